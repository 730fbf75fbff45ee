/* test_band.c: the error band (band.h, docs/accuracy.md "Error band").
 *
 * The band file data/accuracy/error-bands.json is generated from `plateau
 * validate` by scripts/gen-error-bands.py. Here every published row of
 * data/validation/ is predicted with the current model, and each class of the
 * embedded file must still hold at least 80 % of its rows: when the model
 * moves and the band goes stale, this fails and says how to regenerate. Also:
 * the class keys, the file reader's checks and the arithmetic of the ranges. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/band.h>
#include <plateau/framework.h>
#include <plateau/plateau.h>

#include "check.h"

static struct pl_diag d;

#define REGEN                                                                          \
  "the error band is stale: regenerate it with `scripts/gen-error-bands.py "          \
  "build-test/plateau` (writes data/accuracy/error-bands.json from plateau validate), " \
  "rebuild, and review the diff (docs/accuracy.md, \"Error band\")"

static void test_keys(void) {
  char k[PL_BAND_LEVELS][PL_BAND_KEY_LEN];
  CHECK_EQ_INT(pl_band_keys("h100", "nemo", 16, k), 4);
  CHECK_STR(k[0], "h100 nemo multi-node");
  CHECK_STR(k[1], "h100 multi-node");
  CHECK_STR(k[2], "h100");
  CHECK_STR(k[3], "all");
  CHECK_EQ_INT(pl_band_keys("a100-80g", "", 1, k), 3);
  CHECK_STR(k[0], "a100-80g single-node");
  CHECK_EQ_INT(pl_band_keys("a100-80g", NULL, 1, k), 3);
}

static void test_parse(void) {
  struct pl_band_table t;
  const char *ok = "{\"trim_pct\": 5, \"min_rows\": 20, \"classes\": ["
                   "{\"class\": \"h100 multi-node\", \"rows\": 40, \"measured_over_predicted\": [0.9, 1.3]},"
                   "{\"class\": \"all\", \"rows\": 90, \"measured_over_predicted\": [0.8, 2]}]}";
  CHECK_STATUS(pl_band_table_parse(ok, strlen(ok), "t", &t, &d), PL_OK, &d);
  CHECK_EQ_INT(t.n, 2);
  CHECK_NEAR_REL(t.classes[0].central_pct, 90, 0);
  /* the finest class the file holds wins; an unknown GPU falls to "all" */
  const struct pl_band *b = pl_band_table_find(&t, "h100", "nemo", 4);
  CHECK(b != NULL && strcmp(b->class_name, "h100 multi-node") == 0);
  b = pl_band_table_find(&t, "h100", "nemo", 1);
  CHECK(b != NULL && strcmp(b->class_name, "all") == 0);
  b = pl_band_table_find(&t, "my-gpu", NULL, 1);
  CHECK(b != NULL && strcmp(b->class_name, "all") == 0);
  static const char *bad[] = {
      "{\"trim_pct\": 5, \"min_rows\": 20, \"classes\": [{\"class\": \"x\", \"rows\": 3, "
      "\"measured_over_predicted\": [1.2, 1.1]}]}",
      "{\"trim_pct\": 5, \"min_rows\": 20, \"classes\": [{\"class\": \"x\", \"rows\": 3, "
      "\"measured_over_predicted\": [0, 1.1]}]}",
      "{\"trim_pct\": 5, \"min_rows\": 20, \"classes\": [{\"class\": \"x\", \"rows\": 0, "
      "\"measured_over_predicted\": [1, 1.1]}]}",
      "{\"trim_pct\": 5, \"min_rows\": 20, \"classes\": [{\"class\": \"x\", \"rows\": 3}]}",
      "{\"trim_pct\": 60, \"min_rows\": 20, \"classes\": []}",
      "{\"min_rows\": 20, \"classes\": []}",
      "{\"trim_pct\": 5, \"min_rows\": 20}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(pl_band_table_parse(bad[i], strlen(bad[i]), "t", &t, &d) != PL_OK);
}

static void test_ranges(void) {
  struct pl_band b = {.known = true, .ratio_lo = 0.8, .ratio_hi = 1.5};
  struct pl_step s = {.simulated = true, .step_time_s = 2, .tokens_per_s = 1000, .mfu = 0.4, .hfu = 0.5};
  struct pl_band_ranges r;
  pl_band_ranges(&b, &s, &r);
  CHECK_NEAR_REL(r.step_time_s[0], 1.6, 1e-12);
  CHECK_NEAR_REL(r.step_time_s[1], 3.0, 1e-12);
  CHECK_NEAR_REL(r.tokens_per_s[0], 1000 / 1.5, 1e-12);
  CHECK_NEAR_REL(r.tokens_per_s[1], 1000 / 0.8, 1e-12);
  CHECK_NEAR_REL(r.mfu[0], 0.4 / 1.5, 1e-12);
  CHECK_NEAR_REL(r.mfu[1], 0.5, 1e-12);
  /* a ratio that would need HFU above 100 % stops there */
  b.ratio_lo = 0.3;
  pl_band_ranges(&b, &s, &r);
  CHECK_NEAR_REL(r.step_time_s[0], 1.0, 1e-12); /* 2 s x hfu 0.5 */
  CHECK_NEAR_REL(r.mfu[1], 0.8, 1e-12);         /* mfu / hfu */
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Every CSV of data/validation/, predicted with the current model. */
static void validate_all(struct pl_validation *v) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/data/validation", PL_SOURCE_DIR);
  DIR *dh = opendir(dir);
  CHECK(dh != NULL);
  if (dh == NULL)
    return;
  static char names[64][256];
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(dh)) != NULL && n < 64) {
    size_t l = strlen(de->d_name);
    if (l > 4 && l < sizeof names[0] && strcmp(de->d_name + l - 4, ".csv") == 0)
      memcpy(names[n++], de->d_name, l + 1);
  }
  closedir(dh);
  qsort(names, n, sizeof names[0], by_name);
  for (size_t i = 0; i < n; i++) {
    char path[2048];
    if (snprintf(path, sizeof path, "%.1000s/%.255s", dir, names[i]) >= (int)sizeof path)
      continue;
    CHECK_STATUS(pl_validation_add_file(v, path, &d), PL_OK, &d);
  }
}

struct tally {
  int64_t rows, inside;
};

static void test_coverage(void) {
  struct pl_band_table t;
  CHECK_STATUS(pl_band_table_builtin(&t, &d), PL_OK, &d);
  CHECK(t.n > 0);
  struct pl_validation v;
  pl_validation_init(&v);
  validate_all(&v);
  CHECK(v.n_rows > 1000);
  static struct tally per_class[PL_BAND_MAX_CLASSES];
  /* classes the current rows fall in, with their counts (to find a class the file lacks) */
  static char seen[4 * PL_BAND_MAX_CLASSES][PL_BAND_KEY_LEN];
  static int64_t seen_rows[4 * PL_BAND_MAX_CLASSES];
  size_t n_seen = 0;
  struct tally own = {0, 0}; /* each row against the band it would be given */
  for (size_t i = 0; i < v.n_rows; i++) {
    const struct pl_vrow *r = &v.rows[i];
    if (r->skipped || !(r->predicted > 0) || !(r->measured > 0))
      continue;
    double ratio = r->measured / r->predicted;
    char k[PL_BAND_LEVELS][PL_BAND_KEY_LEN];
    char fam[32]; /* a versioned preset (nemo-2024) is in its family's class (nemo) */
    pl_framework_family(r->framework, fam, sizeof fam);
    int nk = pl_band_keys(r->gpu, fam, r->layout.nodes, k);
    for (int j = 0; j < nk; j++) {
      for (size_t c = 0; c < t.n; c++) {
        if (strcmp(t.classes[c].class_name, k[j]) != 0)
          continue;
        per_class[c].rows++;
        per_class[c].inside += ratio >= t.classes[c].ratio_lo && ratio <= t.classes[c].ratio_hi;
      }
      size_t s = 0;
      while (s < n_seen && strcmp(seen[s], k[j]) != 0)
        s++;
      if (s == n_seen && n_seen < sizeof seen / sizeof seen[0])
        memcpy(seen[n_seen++], k[j], PL_BAND_KEY_LEN);
      if (s < n_seen)
        seen_rows[s]++;
    }
    const struct pl_band *b = pl_band_table_find(&t, r->gpu, fam, r->layout.nodes);
    CHECK(b != NULL);
    if (b != NULL) {
      own.rows++;
      own.inside += ratio >= b->ratio_lo && ratio <= b->ratio_hi;
    }
  }
  for (size_t c = 0; c < t.n; c++) {
    const struct pl_band *b = &t.classes[c];
    const struct tally *y = &per_class[c];
    double share = y->rows > 0 ? (double)y->inside / (double)y->rows : 0;
    printf("%-36s %5lld rows (file: %5lld)  inside [%.3f, %.3f]: %5lld = %5.1f%%\n",
           b->class_name, (long long)y->rows, (long long)b->rows, b->ratio_lo, b->ratio_hi,
           (long long)y->inside, 100 * share);
    check_count++;
    if (y->rows == 0 || share < 0.80) {
      check_fail_at(__FILE__, __LINE__);
      fprintf(stderr, "class '%s': %lld of %lld validation rows (%.1f%%) inside its band, under 80%%: %s\n",
              b->class_name, (long long)y->inside, (long long)y->rows, 100 * share, REGEN);
    }
  }
  for (size_t s = 0; s < n_seen; s++) {
    if (seen_rows[s] < t.min_rows)
      continue;
    size_t c = 0;
    while (c < t.n && strcmp(t.classes[c].class_name, seen[s]) != 0)
      c++;
    check_count++;
    if (c == t.n) {
      check_fail_at(__FILE__, __LINE__);
      fprintf(stderr, "class '%s' has %lld predicted validation rows (>= %lld) but no band: %s\n",
              seen[s], (long long)seen_rows[s], (long long)t.min_rows, REGEN);
    }
  }
  double own_share = own.rows > 0 ? (double)own.inside / (double)own.rows : 0;
  printf("every row against its own band: %lld of %lld = %.1f%%\n", (long long)own.inside,
         (long long)own.rows, 100 * own_share);
  check_count++;
  if (own_share < 0.80) {
    check_fail_at(__FILE__, __LINE__);
    fprintf(stderr, "%.1f%% of rows inside the band they are given, under 80%%: %s\n", 100 * own_share,
            REGEN);
  }
  pl_validation_free(&v);
}

int main(void) {
  test_keys();
  test_parse();
  test_ranges();
  test_coverage();
  return check_finish();
}
