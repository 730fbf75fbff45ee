/* fuzz_layout_flags.c: the layout flag table (include/plateau/run_flags.h:
 * pl_layout_flags_read, pl_layout_flags_format) that reads predict's layout
 * flags and the generic validation CSV's layout_flags cells, with the
 * session-26 fine-tuning and 16-bit-module flags (--task, --lora-rank,
 * --lora-targets, --packed-sample-len, --bf16-last-blocks, --bf16-modules),
 * and pl_layout_resolve's checks of them against a model.
 *
 * Input: lines; each line's first byte picks a flag (the byte modulo the
 * table's length), the rest of the line is its value. The layout is read onto
 * a zeroed layout and resolved on a dense model (llama2-7b, dgx-h100) or, with
 * the first byte's high bit set, an MoE one (qwen3-30b-a3b).
 *
 * Every error is one line with a message. A layout that resolves has a finite
 * memory total >= 0 and is written as flags (pl_layout_flags_format), read
 * onto a zeroed layout, resolved and written again: the same text. A
 * violation aborts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>
#include <plateau/run_flags.h>

#include "flag_pairs.h"

static void from_input(const uint8_t *data, size_t size, struct pairs *p) {
  size_t n_flags = 0, used = 0;
  while (pl_layout_flag_name(n_flags) != NULL)
    n_flags++;
  p->n = 0;
  for (size_t i = 0; i < size;) {
    size_t end = i;
    while (end < size && data[end] != '\n')
      end++;
    if (end > i) {
      size_t len = end - i - 1;
      if (p->n < MAX_PAIRS && used + len + 1 <= TEXT && memchr(data + i + 1, '\0', len) == NULL) {
        char *v = p->buf + used;
        memcpy(v, data + i + 1, len);
        v[len] = '\0';
        used += len + 1;
        p->name[p->n] = pl_layout_flag_name(data[i] % n_flags);
        p->value[p->n++] = v;
      }
    }
    i = end + 1;
  }
}

/* Read, resolve and (when it resolves) write; false when refused. */
static bool read_resolve(struct pairs *in, const struct pl_model *m, const struct pl_cluster *c,
                         struct pl_layout *l, char *out, size_t n) {
  memset(l, 0, sizeof *l);
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_layout_flags_read(l, get, in, &d);
  check_error(st, &d);
  if (st != PL_OK)
    return false;
  pl_diag_clear(&d);
  st = pl_layout_resolve(l, m, c, &d);
  check_error(st, &d);
  if (st != PL_OK)
    return false;
  if (pl_layout_flags_format(l, pl_model_is_moe(m), out, n) >= n)
    abort(); /* TEXT holds every flag of the table */
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct pl_model dense, moe;
  static struct pl_cluster cluster;
  static int loaded = -1;
  if (loaded < 0)
    loaded = pl_model_load("llama2-7b", &dense, NULL) == PL_OK &&
             pl_model_load("qwen3-30b-a3b", &moe, NULL) == PL_OK &&
             pl_cluster_load("dgx-h100", &cluster, NULL) == PL_OK;
  if (!loaded)
    abort();
  const struct pl_model *m = size > 0 && (data[0] & 0x80) ? &moe : &dense;
  static struct pairs in, back;
  from_input(data, size, &in);
  static struct pl_layout l, l2;
  static char first[TEXT], second[TEXT];
  if (!read_resolve(&in, m, &cluster, &l, first, sizeof first))
    return 0;
  struct pl_memory mem;
  pl_memory_compute(m, &l, &cluster.gpu, &mem);
  if (!(mem.total_bytes >= 0 && isfinite(mem.total_bytes))) {
    fprintf(stderr, "memory total %g for%s\n", mem.total_bytes, first);
    abort();
  }
  split(first, &back);
  if (!read_resolve(&back, m, &cluster, &l2, second, sizeof second)) {
    fprintf(stderr, "written layout flags do not resolve again:\n  %s\n", first);
    abort();
  }
  if (strcmp(first, second) != 0) {
    fprintf(stderr, "layout flags written twice differ:\n  %s\n  %s\n", first, second);
    abort();
  }
  return 0;
}
