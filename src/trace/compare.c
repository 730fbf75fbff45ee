/* compare.c: two run summaries side by side (docs/trace.md 9): differences
 * of each metric, and which collective of one run is which of the other.
 *
 * Collectives pair on (op, group size). A row whose group size is unknown
 * (0: a trace without "Group size" or "Process Group Ranks" and without
 * distributedInfo) pairs with the one unpaired row of the same op on the
 * other side when there is exactly one; otherwise it stays alone rather than
 * being matched by guess. */
#include <string.h>

#include <math.h>

#include "trace_int.h"

struct pl_trace_delta pl_trace_delta(double a, bool has_a, double b, bool has_b) {
  struct pl_trace_delta d = {0, 0, false, false};
  if (!has_a || !has_b)
    return d;
  d.diff = b - a;
  d.has_diff = isfinite(d.diff);
  /* A relative change from (nearly) nothing overflows to inf: say "-" instead. */
  if (a != 0 && d.has_diff && isfinite(d.diff / a)) {
    d.rel = d.diff / a;
    d.has_rel = true;
  }
  return d;
}

/* The single unpaired row of op in s (taken flags), or -1 when none or several. */
static int lone(const struct pl_trace_summary *s, const bool *taken, const char *op) {
  int found = -1;
  for (int i = 0; i < s->n_coll; i++) {
    if (taken[i] || strcmp(s->coll[i].op, op) != 0)
      continue;
    if (found >= 0)
      return -1;
    found = i;
  }
  return found;
}

static int exact(const struct pl_trace_summary *b, const bool *taken,
                 const struct pl_trace_summary_coll *x) {
  for (int j = 0; j < b->n_coll; j++)
    if (!taken[j] && b->coll[j].group_size == x->group_size && strcmp(b->coll[j].op, x->op) == 0)
      return j;
  return -1;
}

int pl_trace_coll_pairs(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                        struct pl_trace_coll_pair *out) {
  bool ta[PL_TRACE_SUMMARY_MAX_COLL] = {false}, tb[PL_TRACE_SUMMARY_MAX_COLL] = {false};
  int n = 0;
  for (int i = 0; i < a->n_coll; i++) {
    int j = exact(b, tb, &a->coll[i]);
    if (j >= 0)
      ta[i] = tb[j] = true;
    out[n++] = (struct pl_trace_coll_pair){i, j};
  }
  for (int k = 0; k < n; k++) { /* unknown group sizes: a lone row of the op */
    int i = out[k].a, j = out[k].b >= 0 ? -1 : lone(b, tb, a->coll[i].op);
    if (j >= 0 && (a->coll[i].group_size == 0 || b->coll[j].group_size == 0) &&
        lone(a, ta, a->coll[i].op) == i) {
      out[k].b = j;
      ta[i] = tb[j] = true;
    }
  }
  for (int j = 0; j < b->n_coll; j++)
    if (!tb[j])
      out[n++] = (struct pl_trace_coll_pair){-1, j};
  return n;
}
