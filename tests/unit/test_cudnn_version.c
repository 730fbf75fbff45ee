/* test_cudnn_version.c: the cuDNN release a run uses (layout.cudnn_version,
 * src/hw/cudnn_release.c): parsing and naming, the GPU file's per-release
 * rates by shape (attention.cudnn.shape_<major>_<minor>, shape_2024) and which
 * one a run takes, and the older on/off flags (cudnn_2024, cudnn_913) as
 * aliases of the version (src/model/framework.c). Expected codes by hand:
 * major x 10000 + minor x 100 + patch, cuDNN 9's CUDNN_VERSION. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"

static void parse(void) {
  struct pl_diag d, *dp = &d;
  int64_t v = -1;
  pl_diag_clear(&d);
  /* 9 x 10000 + 13 x 100 + 0 = 91300; + 1 = 91301; 9.1 = 90100; 8.9.7 = 80907 */
  CHECK_STATUS(pl_cudnn_version_parse("9.13", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 91300);
  CHECK_STATUS(pl_cudnn_version_parse("9.13.1", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 91301);
  CHECK_STATUS(pl_cudnn_version_parse("9.1", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, PL_CUDNN_2024);
  CHECK_STATUS(pl_cudnn_version_parse("8.9.7", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 80907);
  CHECK_STATUS(pl_cudnn_version_parse("latest", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, PL_CUDNN_LATEST);
  /* 9.1 and 9.10 are different releases: 90100 and 91000 */
  CHECK_STATUS(pl_cudnn_version_parse("9.10", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 91000);
  /* below 8.9 (80900): no fused flash attention */
  v = 5;
  CHECK_EQ_INT(pl_cudnn_version_parse("8.8", &v, &d), PL_ERR_RANGE);
  CHECK(strstr(d.msg, "8.9 or newer") != NULL);
  CHECK_EQ_INT(pl_cudnn_version_parse("7.6.5", &v, &d), PL_ERR_RANGE);
  CHECK_EQ_INT(v, 5); /* untouched on error */
  const char *bad[] = {"", "7", "9", "abc", "9.", "9.13.", "9.13.1.2", "9.100", "9.13.100",
                       "-9.13", "9.13x", "v9.13", "9..13", "Latest", "123.1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(pl_cudnn_version_parse(bad[i], &v, &d), PL_ERR_PARSE);
    CHECK(strstr(d.msg, "MAJOR.MINOR[.PATCH]") != NULL);
  }
  CHECK_EQ_INT(pl_cudnn_version_parse(NULL, &v, &d), PL_ERR_PARSE);
  char s[16];
  pl_cudnn_version_str(91300, s, sizeof s);
  CHECK_STR(s, "9.13");
  pl_cudnn_version_str(91301, s, sizeof s);
  CHECK_STR(s, "9.13.1");
  pl_cudnn_version_str(90100, s, sizeof s);
  CHECK_STR(s, "9.1");
  pl_cudnn_version_str(0, s, sizeof s);
  CHECK_STR(s, "latest");
}

/* A GPU file's keys: shape_M_m stands for every patch (through M.m.99),
 * shape_M_m_p for that one, shape_2024 for 9.0-9.1 (9.0.0 through 9.1.99 = 90000-90199). */
static void shape_keys(void) {
  int64_t f = 0, t = 0;
  CHECK(pl_cudnn_shape_key("shape_9_13", &f, &t) && f == 91300 && t == 91399);
  CHECK(pl_cudnn_shape_key("shape_9_13_1", &f, &t) && f == 91301 && t == 91301);
  CHECK(pl_cudnn_shape_key("shape_2024", &f, &t) && f == 90000 && t == 90199);
  CHECK(pl_cudnn_shape_key("shape_9_1", &f, &t) && f == 90100 && t == 90199);
  CHECK(!pl_cudnn_shape_key("shape", &f, &t));
  CHECK(!pl_cudnn_shape_key("shape_d64", &f, &t));
  CHECK(!pl_cudnn_shape_key("shape_7_0", &f, &t)); /* below 8.9: not a release entry */
  CHECK(!pl_cudnn_shape_key("mxfp8_time_ratio", &f, &t));
}

/* h100's text with `insert` placed before its "shape_2024" key. */
static enum pl_status h100_with(const char *insert, struct pl_gpu *g, struct pl_diag *d) {
  size_t len = 0;
  const char *text = pl_data_find("gpus", "h100", &len);
  static char buf[65536];
  const char *at = text != NULL ? strstr(text, "\"shape_2024\"") : NULL;
  if (at == NULL || len + strlen(insert) + 1 > sizeof buf)
    return PL_ERR_MISSING;
  size_t head = (size_t)(at - text);
  memcpy(buf, text, head);
  strcpy(buf + head, insert);
  memcpy(buf + head + strlen(insert), at, len - head);
  size_t n = len + strlen(insert);
  buf[n] = '\0';
  return pl_gpu_parse(buf, n, "edited h100", g, d);
}

#define SHAPE(f, b)                                                                         \
  "{\"fwd_fraction\": {\"value\": " f ", \"source\": \"t\"}, \"bwd_fraction\": {\"value\": " b \
  ", \"source\": \"t\"}, \"fwd_tile_fixed_keys\": {\"value\": 0, \"source\": \"t\"}, "        \
  "\"bwd_tile_fixed_keys\": {\"value\": 64, \"source\": \"t\"}}, "

/* Entries are kept in ascending order whatever the file's order; a run takes
 * the oldest release at or after its own, below the oldest entry that entry
 * (8.9: 2024's, session 26); one release given twice is refused. */
static void gpu_entries(void) {
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(h100_with("\"shape_9_13\": " SHAPE("0.650", "0.550"), &g, &d), PL_OK, dp);
  CHECK_EQ_INT(g.eff.attn_cudnn_version_count, 2);
  CHECK_EQ_INT(g.eff.attn_cudnn_versions[0].cudnn_through, 90199);
  CHECK_EQ_INT(g.eff.attn_cudnn_versions[1].cudnn_through, 91399);
  const struct pl_attn_cudnn_shape *r = pl_gpu_cudnn_shape(&g.eff, 90000); /* 9.0: 2024's */
  CHECK(r != NULL && r->fwd_fraction == 0.598);
  r = pl_gpu_cudnn_shape(&g.eff, 90500); /* 9.5: the next release measured, 9.13 */
  CHECK(r != NULL && r->fwd_fraction == 0.650 && r->bwd_fraction == 0.550);
  CHECK(pl_gpu_cudnn_shape(&g.eff, 91400) == NULL); /* 9.14: today's shape */
  r = pl_gpu_cudnn_shape(&g.eff, 80907); /* 8.9.7: older than every entry, the oldest (2024's) */
  CHECK(r != NULL && r->fwd_fraction == 0.598);
  CHECK(pl_gpu_cudnn_shape(&g.eff, PL_CUDNN_LATEST) == NULL);
  CHECK_EQ_INT(h100_with("\"shape_9_1\": " SHAPE("0.650", "0.550"), &g, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "attention.cudnn.shape_2024") != NULL || strstr(d.msg, "shape_9_1") != NULL);
  CHECK(strstr(d.msg, "given twice") != NULL);
  /* an entry is read as attention.cudnn.shape is: an asymptote above 1 is refused */
  CHECK_EQ_INT(h100_with("\"shape_9_13\": " SHAPE("4.650", "0.550"), &g, &d), PL_ERR_RANGE);
}

/* The on/off flags as aliases of the version (pl_framework_apply), and read
 * back (pl_framework_resolved): cudnn_2024 = 9.0-9.1, cudnn_913 = 9.13.x. */
static void aliases(void) {
  struct pl_framework fw = {0}, out;
  struct pl_layout l = {0};
  fw.cudnn_2024 = PL_SETTING_ON;
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 90100);
  fw = (struct pl_framework){.cudnn_913 = PL_SETTING_ON};
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 91300);
  /* both on: the 2024 release, as when each was its own kernel (2024 first) */
  fw.cudnn_2024 = PL_SETTING_ON;
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 90100);
  /* a version given wins over the aliases */
  fw.cudnn_version_set = true;
  fw.cudnn_version = 91700;
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 91700);
  /* off: a run of that alias's release returns to latest; another release stays */
  fw = (struct pl_framework){.cudnn_2024 = PL_SETTING_OFF};
  l.cudnn_version = 90100;
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 0);
  l.cudnn_version = 91300;
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 91300);
  fw = (struct pl_framework){.cudnn_913 = PL_SETTING_OFF};
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 0);
  /* unset: nothing changes */
  fw = (struct pl_framework){0};
  l.cudnn_version = 91301;
  pl_framework_apply(&fw, &l);
  CHECK_EQ_INT(l.cudnn_version, 91301);
  /* read back */
  pl_framework_resolved(&fw, &l, &out);
  CHECK(out.cudnn_version_set && out.cudnn_version == 91301);
  CHECK(out.cudnn_913 == PL_SETTING_ON && out.cudnn_2024 == PL_SETTING_OFF);
  l.cudnn_version = 90000;
  pl_framework_resolved(&fw, &l, &out);
  CHECK(out.cudnn_2024 == PL_SETTING_ON && out.cudnn_913 == PL_SETTING_OFF);
  l.cudnn_version = 91400;
  pl_framework_resolved(&fw, &l, &out);
  CHECK(out.cudnn_2024 == PL_SETTING_OFF && out.cudnn_913 == PL_SETTING_OFF);
}

/* The framework file's behaviour "cudnn_version": a version string or "latest". */
static void framework_key(void) {
  struct pl_framework fw;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  const char *ok = "{\"name\": \"x\", \"behaviours\": {\"cudnn_version\": \"9.13\"}}";
  CHECK_STATUS(pl_framework_parse(ok, strlen(ok), "t", &fw, &d), PL_OK, dp);
  CHECK(fw.cudnn_version_set && fw.cudnn_version == 91300);
  const char *latest =
      "{\"name\": \"x\", \"behaviours\": {\"cudnn_version\": {\"value\": \"latest\", \"source\": \"s\"}}}";
  CHECK_STATUS(pl_framework_parse(latest, strlen(latest), "t", &fw, &d), PL_OK, dp);
  CHECK(fw.cudnn_version_set && fw.cudnn_version == 0);
  const char *bad[] = {"{\"name\": \"x\", \"behaviours\": {\"cudnn_version\": 9.13}}",
                       "{\"name\": \"x\", \"behaviours\": {\"cudnn_version\": \"7\"}}"};
  for (size_t i = 0; i < 2; i++) {
    CHECK_EQ_INT(pl_framework_parse(bad[i], strlen(bad[i]), "t", &fw, &d), PL_ERR_PARSE);
    CHECK(strstr(d.msg, "behaviour 'cudnn_version' must be a cuDNN version") != NULL);
  }
}

int main(void) {
  parse();
  shape_keys();
  gpu_entries();
  aliases();
  framework_key();
  return check_finish();
}
