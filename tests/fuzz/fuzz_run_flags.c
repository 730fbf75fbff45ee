/* fuzz_run_flags.c: the framework and hardware flag tables
 * (include/plateau/run_flags.h: pl_framework_flags_read, pl_cluster_flags_read)
 * that read predict's behaviour and machine flags and the generic validation
 * CSV's framework_flags / hardware_flags cells (src/validate/source_generic.c).
 *
 * Input: lines; each line's first byte picks a flag (high bit set: a hardware
 * flag of dgx-h100, else a framework flag; the rest of the byte modulo the
 * table's length), the rest of the line is its value. --framework takes
 * only preset names here (a path would make the target read files).
 *
 * Every error is one line with a message. A framework that reads is resolved
 * and written back as flags (pl_framework_flags_format), read onto an empty
 * framework, resolved and written again: the same text (test_run_flags.c does
 * this for the presets). A cluster that reads has finite positive memory and
 * bandwidths, is written back against its preset (pl_cluster_flags_format),
 * and that text reads back onto the preset to the same text; every
 * collective on it has a finite time >= 0. A violation aborts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>
#include <plateau/run_flags.h>

#include "flag_pairs.h"

static size_t count(const char *(*name)(size_t)) {
  size_t n = 0;
  while (name(n) != NULL)
    n++;
  return n;
}

/* The fuzz input as (flag, value) pairs, framework and hardware apart. */
static void from_input(const uint8_t *data, size_t size, struct pairs *fw, struct pairs *hw) {
  size_t n_fw = count(pl_framework_flag_name), n_hw = count(pl_cluster_flag_name);
  size_t used_fw = 0, used_hw = 0;
  fw->n = hw->n = 0;
  for (size_t i = 0; i < size;) {
    size_t end = i;
    while (end < size && data[end] != '\n')
      end++;
    if (end > i) {
      uint8_t b = data[i];
      struct pairs *p = (b & 0x80) ? hw : fw;
      size_t *used = (b & 0x80) ? &used_hw : &used_fw;
      const char *name =
          (b & 0x80) ? pl_cluster_flag_name((b & 0x7f) % n_hw) : pl_framework_flag_name(b % n_fw);
      size_t len = end - i - 1;
      if (p->n < MAX_PAIRS && *used + len + 1 <= TEXT && memchr(data + i + 1, '\0', len) == NULL) {
        char *v = p->buf + *used;
        memcpy(v, data + i + 1, len);
        v[len] = '\0';
        *used += len + 1;
        bool file = strcmp(name, "framework") == 0 && pl_data_find("frameworks", v, NULL) == NULL;
        if (!file) {
          p->name[p->n] = name;
          p->value[p->n++] = v;
        }
      }
    }
    i = end + 1;
  }
}

static void resolve_format(const struct pl_framework *fw, char *out, size_t n) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  pl_framework_apply(fw, &l);
  if (!isfinite(l.bucket_bytes) || l.bucket_bytes < 0)
    abort();
  struct pl_framework r;
  pl_framework_resolved(fw, &l, &r);
  if (pl_framework_flags_format(&r, out, n) >= n)
    abort(); /* TEXT holds every flag of the table */
}

static void framework(struct pairs *in) {
  struct pl_framework fw;
  memset(&fw, 0, sizeof fw);
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_framework_flags_read(&fw, get, in, &d);
  check_error(st, &d);
  if (st != PL_OK)
    return;
  static char first[TEXT], second[TEXT];
  resolve_format(&fw, first, sizeof first);
  static struct pairs back;
  split(first, &back);
  struct pl_framework fw2;
  memset(&fw2, 0, sizeof fw2);
  pl_diag_clear(&d);
  if (pl_framework_flags_read(&fw2, get, &back, &d) != PL_OK) {
    fprintf(stderr, "written flags do not read back: %s\n  %s\n", d.msg, first);
    abort();
  }
  resolve_format(&fw2, second, sizeof second);
  if (strcmp(first, second) != 0) {
    fprintf(stderr, "framework flags written twice differ:\n  %s\n  %s\n", first, second);
    abort();
  }
}

static void collectives(const struct pl_cluster *c) {
  static const double sizes[] = {0.0, 8.0, 1048576.0, 8589934592.0};
  for (int op = 0; op < PL_COLL_N_OPS; op++)
    for (int nodes = 1; nodes <= 2; nodes++)
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct pl_group g = {nodes * c->gpus_per_node, c->gpus_per_node};
        struct pl_coll_cost cost;
        if (pl_coll_time(c, (enum pl_coll_op)op, sizes[k], g, PL_ALGO_AUTO, &cost) == PL_OK &&
            !(cost.time_s >= 0.0 && isfinite(cost.time_s)))
          abort();
      }
}

static void hardware(struct pairs *in) {
  static struct pl_cluster base;
  static int loaded = -1;
  if (loaded < 0)
    loaded = pl_cluster_load("dgx-h100", &base, NULL) == PL_OK;
  if (!loaded)
    abort();
  static struct pl_cluster c, c2;
  c = base;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_cluster_flags_read(&c, get, in, &d);
  check_error(st, &d);
  if (st != PL_OK)
    return;
  if (!(c.gpu.hbm_bytes > 0 && isfinite(c.gpu.hbm_bytes)) ||
      !(c.gpu.hbm_bytes_per_s > 0 && isfinite(c.gpu.hbm_bytes_per_s)) ||
      !(c.nic_bytes_per_s > 0 && isfinite(c.nic_bytes_per_s)) || c.gpus_per_node < 1 ||
      c.gpus_per_node > base.gpus_per_node || !(c.gpu.clock_cv >= 0 && c.gpu.clock_cv <= 1))
    abort();
  static char first[TEXT], second[TEXT];
  if (pl_cluster_flags_format(&c, &base, first, sizeof first) >= sizeof first)
    abort();
  static struct pairs back;
  split(first, &back);
  c2 = base;
  pl_diag_clear(&d);
  if (pl_cluster_flags_read(&c2, get, &back, &d) != PL_OK) {
    fprintf(stderr, "written hardware flags do not read back: %s\n  %s\n", d.msg, first);
    abort();
  }
  pl_cluster_flags_format(&c2, &base, second, sizeof second);
  if (strcmp(first, second) != 0) {
    fprintf(stderr, "hardware flags written twice differ:\n  %s\n  %s\n", first, second);
    abort();
  }
  collectives(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > TEXT / 2)
    return 0;
  static struct pairs fw, hw;
  from_input(data, size, &fw, &hw);
  framework(&fw);
  hardware(&hw);
  return 0;
}
