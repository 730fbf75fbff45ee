/* test_limits.c: every documented limit (docs/limits.md) gives a clean error
 * with its message, and the parser findings of fuzzing stay fixed
 * (docs/robustness.md). Library level; the CLI side is
 * tests/cli/robustness.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "base/json.h"
#include "validate/validate_int.h"
#include "check.h"

/* A malloc'd copy of exactly len bytes, no NUL after it: ASan reports any
 * read past the end (a parser relying on a terminator). */
static char *exact(const char *s, size_t len) {
  char *p = malloc(len > 0 ? len : 1);
  memcpy(p, s, len);
  return p;
}

/* Found by fuzz_study_spec: base_json_parse ran strlen/yajl over text that
 * callers of the public (text, len) parsers need not terminate. */
static void test_unterminated_json(void) {
  const char *spec = "{\"seq\": 2048}";
  char *t = exact(spec, strlen(spec));
  struct pl_study_spec s;
  struct pl_diag d;
  CHECK_STATUS(pl_study_spec_parse(t, strlen(spec), "spec", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.seq, 2048);
  free(t);
  t = exact("{}", 2);
  CHECK_STATUS(pl_study_spec_parse(t, 2, "spec", &s, &d), PL_OK, &d);
  free(t);
  t = exact("   ", 3);
  CHECK_STATUS(pl_study_spec_parse(t, 3, "spec", &s, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "empty file");
  free(t);
  const char *model = "{\"layers\": 2";
  t = exact(model, strlen(model));
  struct pl_model m;
  CHECK_STATUS(pl_model_from_json(t, strlen(model), "m", &m, &d), PL_ERR_PARSE, &d);
  free(t);
}

/* {"a": [[...]]} nested depth levels deep (the object is level 1). */
static size_t deep_doc(char *buf, int depth) {
  size_t n = (size_t)snprintf(buf, 16, "{\"a\": ");
  for (int i = 1; i < depth; i++)
    buf[n++] = '[';
  for (int i = 1; i < depth; i++)
    buf[n++] = ']';
  buf[n++] = '}';
  return n;
}

/* JSON documents: depth 64 passes the guard, 65 is refused before yajl;
 * a NUL byte is refused. */
static void test_json_limits(void) {
  char buf[256];
  yajl_val v = NULL;
  struct pl_diag d;
  size_t n = deep_doc(buf, BASE_JSON_MAX_DEPTH);
  CHECK_STATUS(base_json_parse(buf, n, "doc", &v, &d), PL_OK, &d);
  base_json_free(v);
  n = deep_doc(buf, BASE_JSON_MAX_DEPTH + 1);
  CHECK_STATUS(base_json_parse(buf, n, "doc", &v, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "doc: JSON nested deeper than 64 levels");
  CHECK_STATUS(base_json_parse("{\"a\": 1}\0x", 10, "doc", &v, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "contains a NUL byte");
}

static void load(struct pl_model *m, struct pl_cluster *c) {
  struct pl_diag d;
  CHECK_STATUS(pl_model_load("llama2-7b", m, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", c, &d), PL_OK, &d);
}

static enum pl_status resolve(struct pl_layout l, struct pl_diag *d) {
  static struct pl_model m;
  static struct pl_cluster c;
  if (m.layers == 0)
    load(&m, &c);
  return pl_layout_resolve(&l, &m, &c, d);
}

/* Layout counts: 2^24 GPUs, 2^36 sequences per step (and mbs), 2^26 tokens
 * per sequence; beyond them PL_ERR_LIMIT before any product can overflow. */
static void test_layout_limits(void) {
  struct pl_diag d;
  struct pl_layout l = {0};
  l.gpus = INT64_C(1) << 24;
  CHECK_STATUS(resolve(l, &d), PL_OK, &d);
  l.gpus++;
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "layout: gpus 16777217 is more than the limit 16777216");
  l = (struct pl_layout){0};
  l.nodes = INT64_MAX; /* nodes * 8 would wrap to -8 */
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "layout: nodes 9223372036854775807 is more than the limit 2097152");
  l = (struct pl_layout){0};
  l.gbs = INT64_C(1) << 62;
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "layout: gbs");
  l = (struct pl_layout){0};
  l.gpus = INT64_C(1) << 24;
  l.batch_per_gpu = INT64_C(1) << 20; /* 2^44 sequences */
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "layout: gbs 17592186044416 is more than the limit 68719476736");
  l = (struct pl_layout){0};
  l.seq = (INT64_C(1) << 26) + 1;
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "layout: seq");
  l = (struct pl_layout){0};
  l.mbs = INT64_MAX;
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
  l = (struct pl_layout){0};
  l.vp = INT64_MAX;
  l.pp = 2;
  CHECK_STATUS(resolve(l, &d), PL_ERR_LIMIT, &d);
}

/* The validation CSV: 512 fields per record, 100000 records counting the
 * header, 64 MiB per file. */
static void test_csv_limits(void) {
  size_t cap = 300000 * 4;
  char *t = malloc(cap);
  size_t n = 0;
  for (int i = 0; i < 513; i++)
    n += (size_t)snprintf(t + n, cap - n, i ? ",c" : "c");
  t[n++] = '\n';
  struct validate_csv c;
  struct pl_diag d;
  CHECK_STATUS(validate_csv_parse(t, n, "wide", &c, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "csv 'wide': line 1: more than 512 fields in one record");
  n = 0;
  for (int i = 0; i < 100000; i++)
    t[n++] = 'x', t[n++] = '\n';
  CHECK_STATUS(validate_csv_parse(t, n, "tall", &c, &d), PL_OK, &d);
  validate_csv_free(&c);
  t[n++] = 'x', t[n++] = '\n';
  CHECK_STATUS(validate_csv_parse(t, n, "tall", &c, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "csv 'tall': line 100001: more than 100000 records");
  CHECK_STATUS(validate_csv_parse(t, (size_t)(64u << 20) + 1, "big", &c, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "csv 'big': larger than 64 MiB");
  free(t);
}

/* Study specs: 32 entries per axis, nodes up to 2^20, seq up to 2^24. */
static void test_study_limits(void) {
  char buf[1024];
  size_t n = (size_t)snprintf(buf, sizeof buf, "{\"nodes\": [");
  for (int i = 1; i <= 33; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, i > 1 ? ", %d" : "%d", i);
  snprintf(buf + n, sizeof buf - n, "]}");
  struct pl_study_spec s;
  struct pl_diag d;
  CHECK_STATUS(pl_study_spec_parse(buf, strlen(buf), "spec", &s, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "spec: field 'nodes': 33 entries, at most 32");
  const char *big = "{\"nodes\": [1048577]}";
  CHECK_STATUS(pl_study_spec_parse(big, strlen(big), "spec", &s, &d), PL_ERR_RANGE, &d);
  CHECK_CONTAINS(d.msg, "must be an integer from 1 to 1048576");
  const char *seq = "{\"seq\": 16777217}";
  CHECK_STATUS(pl_study_spec_parse(seq, strlen(seq), "spec", &s, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "field 'seq': must be from 1 to 16777216 tokens");
}

/* JSON output nests at most 32 levels; a NaN is refused, never written. */
static void test_emit_guards(void) {
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (f == NULL)
    return;
  struct pl_diag d;
  struct pl_emit *e = pl_emit_open(f);
  pl_emit_obj_begin(e, NULL);
  pl_emit_num(e, "x", NAN);
  pl_emit_obj_end(e);
  CHECK_STATUS(pl_emit_close(e, &d), PL_ERR_INTERNAL, &d);
  CHECK_CONTAINS(d.msg, "non-finite or malformed output at 'x'");
  e = pl_emit_open(f);
  for (int i = 0; i < 40; i++)
    pl_emit_arr_begin(e, NULL);
  for (int i = 0; i < 40; i++)
    pl_emit_arr_end(e);
  CHECK(pl_emit_close(e, &d) != PL_OK);
  fclose(f);
  char buf[40];
  pl_fmt_double(buf, sizeof buf, NAN);
  CHECK(buf[0] == '\0');
  pl_fmt_double(buf, sizeof buf, -INFINITY);
  CHECK(buf[0] == '\0');
  pl_fmt_double(buf, sizeof buf, 0.1);
  CHECK(strcmp(buf, "0.1") == 0);
}

/* JSON text is UTF-8 (RFC 8259 section 8.1): a string holding bytes that are
 * not (a Latin-1 file name from the command line: 'h28\xff.csv' as validate's
 * dataset name) is written with U+FFFD for each bad byte, and well-formed
 * sequences of 2, 3 and 4 bytes pass through. Expected, byte by byte: "a"
 * (0xFF, never UTF-8) "b" (0xC3 0xA9, e-acute) (0xC0 0xAF, an overlong '/')
 * (0xED 0xA0 0x80, the surrogate U+D800) (0xE2 0x82 0xAC, the euro sign)
 * (0xF0 0x9F 0x98 0x80, U+1F600) (0xE2 0x82 at the end, cut short). */
static void test_emit_utf8(void) {
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (f == NULL)
    return;
  struct pl_diag d;
  struct pl_emit *e = pl_emit_open(f);
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "s", "a\xff" "b\xc3\xa9\xc0\xaf\xed\xa0\x80\xe2\x82\xac\xf0\x9f\x98\x80\xe2\x82");
  pl_emit_obj_end(e);
  CHECK_STATUS(pl_emit_close(e, &d), PL_OK, &d);
  long n = ftell(f);
  rewind(f);
  char buf[256] = {0};
  CHECK(n > 0 && n < (long)sizeof buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  CHECK_CONTAINS(buf, "\"s\": \"a\\ufffdb\xc3\xa9\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
                      "\xe2\x82\xac\xf0\x9f\x98\x80\\ufffd\\ufffd\"");
}

/* C99 strtod reads hexadecimal: '--bytes 0x100' was 256 bytes, '--gpu-hour-price
 * 0x10' 16 USD, '0x10 TB/s' 16 TB/s. No plateau figure is written so: each
 * parser of src/base/units.c refuses it; decimal forms read as before. */
static void test_no_hex_numbers(void) {
  struct pl_diag d;
  double v = 0;
  CHECK_STATUS(pl_double_parse("0x10", &v, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "'0x10' is not a finite number");
  CHECK_STATUS(pl_double_parse("0X1p4", &v, &d), PL_ERR_PARSE, &d);
  CHECK_STATUS(pl_unit_parse("0x10 TB/s", PL_UNIT_BYTES_PER_S, &v, &d), PL_ERR_PARSE, &d);
  CHECK_STATUS(pl_size_parse("0x100", &v, &d), PL_ERR_PARSE, &d);
  CHECK_STATUS(pl_count_parse("0x10", &v, &d), PL_ERR_PARSE, &d);
  CHECK_STATUS(pl_double_parse("1e3", &v, &d), PL_OK, &d);
  CHECK(v == 1000);
  CHECK_STATUS(pl_unit_parse("3.35 TB/s", PL_UNIT_BYTES_PER_S, &v, &d), PL_OK, &d);
  CHECK(v == 3.35e12);
  CHECK_STATUS(pl_size_parse("1M", &v, &d), PL_OK, &d);
  CHECK(v == 1048576);
}

/* Found by the fuzz_units invariant: a finite number times its unit's scale
 * overflowed to infinity and was accepted ("1e308 TB" = inf bytes). */
static void test_unit_overflow(void) {
  double v = 0;
  struct pl_diag d;
  CHECK_STATUS(pl_unit_parse("1e308 TB", PL_UNIT_BYTES, &v, &d), PL_ERR_RANGE, &d);
  CHECK_CONTAINS(d.msg, "'1e308 TB' is too large");
  CHECK_STATUS(pl_size_parse("1e308G", &v, &d), PL_ERR_RANGE, &d);
  CHECK_CONTAINS(d.msg, "'1e308G' is too large");
  CHECK_STATUS(pl_unit_parse("1e290 GB", PL_UNIT_BYTES, &v, &d), PL_OK, &d);
  CHECK(isfinite(v) && v > 0);
}

/* Found by fuzz_validate_csv (UBSan): a header-only CSV summarized
 * v->rows + 0 with rows still NULL. Now 0 rows and a zero summary. */
static void test_header_only_csv(void) {
  const char *csv = "source,model,layers,hidden,heads,seq_len,gpu,num_gpus,tp,pp,micro_batch,"
                    "global_batch\n";
  struct pl_validation v;
  struct pl_diag d;
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "hdr", csv, strlen(csv), &d), PL_OK, &d);
  CHECK_EQ_INT((int64_t)v.n_rows, 0);
  CHECK_EQ_INT(v.overall.rows, 0);
  pl_validation_free(&v);
}

/* Found by the e2e bad-value sweep (session 18): a step of 1.1e30 s (--hbm-bandwidth
 * '1e-300 TB/s') printed as 31 digits with its unit cut off by the 32-byte
 * buffer, and --tokens 1e308 as hundreds of digits. Text keeps its unit:
 * "%.4g s" from 1e9 s, "%.3g" beyond the largest suffix (Z, 1e21). */
static void test_text_huge_numbers(void) {
  char buf[32];
  pl_fmt_seconds(buf, sizeof buf, 1.121682779e30);
  CHECK_STR(buf, "1.122e+30 s");
  pl_fmt_seconds(buf, sizeof buf, 12.5);
  CHECK_STR(buf, "12.500 s"); /* unchanged below 1e9 s */
  pl_fmt_count(buf, sizeof buf, 1e308);
  CHECK_STR(buf, "1e+308");
  pl_fmt_count(buf, sizeof buf, 2.5e23); /* 250 Z: the largest suffix still reads */
  CHECK_STR(buf, "250.00 Z");
  pl_fmt_count(buf, sizeof buf, 6738415616.0);
  CHECK_STR(buf, "6.74 B");
}

/* Output paths: 4095 characters (struct pl_outfile). */
static void test_outfile_path(void) {
  static char path[5000];
  memset(path, 'a', sizeof path - 1);
  struct pl_outfile o;
  struct pl_diag d;
  CHECK_STATUS(pl_outfile_open(&o, path, &d), PL_ERR_LIMIT, &d);
  CHECK_CONTAINS(d.msg, "output path is longer than 4095 characters");
}

int main(void) {
  test_unterminated_json();
  test_json_limits();
  test_layout_limits();
  test_csv_limits();
  test_study_limits();
  test_emit_guards();
  test_emit_utf8();
  test_no_hex_numbers();
  test_outfile_path();
  test_unit_overflow();
  test_header_only_csv();
  test_text_huge_numbers();
  return check_finish();
}
