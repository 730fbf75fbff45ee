/* nccl_resolve.c: settle what a series measured: its collective, ranks and
 * nodes. The log's own header wins; hints from the user fill gaps (and must
 * not contradict it); the rest is read from the busbw/algbw ratio nccl-tests
 * prints, which is 2(n-1)/n for all_reduce, (n-1)/n for all_gather,
 * reduce_scatter and all_to_all, and 1 for send_recv and broadcast
 * (nccl-tests doc/PERFORMANCE.md). */
#include "calib/calib_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The row printed with the most digits (largest busbw), NULL when none. */
static const struct pl_nccl_row *ratio_row(const struct pl_nccl_series *s) {
  const struct pl_nccl_row *row = NULL;
  for (size_t i = 0; i < s->n_rows; i++) {
    const struct pl_nccl_row *r = &s->rows[i];
    if (r->algbw_bytes_per_s > 0.0 &&
        (row == NULL || r->busbw_bytes_per_s > row->busbw_bytes_per_s))
      row = r;
  }
  return row;
}

/* busbw/algbw of that row. */
static double bus_ratio(const struct pl_nccl_series *s) {
  const struct pl_nccl_row *r = ratio_row(s);
  return r != NULL ? r->busbw_bytes_per_s / r->algbw_bytes_per_s : 0.0;
}

/* Half a unit in the last digit nccl-tests prints for a bandwidth, in GB/s:
 * "%6.2f" (src/common.cu, tags up to v2.17.2: two decimals always) or
 * getFloatStr(value, 6) (src/util.cu from v2.17.3: two decimals while six
 * characters hold them, below 1,000 GB/s, then one). The log does not say
 * which, so from 1,000 GB/s the looser one. */
static double printed_half_ulp(double bytes_per_s) {
  return bytes_per_s < 999.995e9 ? 0.005e9 : 0.05e9;
}

/* Whether n ranks of op give the busbw/algbw ratio the printed figures
 * allow, within their rounding: at 1,024 ranks 2(n-1)/n = 1.99805, and the
 * two-decimal figures of a 29 GB/s busbw move the ratio by +-0.0005, which
 * alone spans about 820-1,370 ranks. */
static bool ratio_admits(const struct pl_nccl_series *s, int64_t n) {
  const struct pl_nccl_row *r = ratio_row(s);
  if (r == NULL || n < 2)
    return true;
  double want;
  if (s->op == PL_COLL_ALL_REDUCE)
    want = 2.0 * (double)(n - 1) / (double)n;
  else if (s->op == PL_COLL_ALL_GATHER || s->op == PL_COLL_REDUCE_SCATTER ||
           s->op == PL_COLL_ALL_TO_ALL)
    want = (double)(n - 1) / (double)n;
  else
    return true;
  double ub = printed_half_ulp(r->busbw_bytes_per_s), ua = printed_half_ulp(r->algbw_bytes_per_s);
  double lo = (r->busbw_bytes_per_s - ub) / (r->algbw_bytes_per_s + ua);
  double hi = r->algbw_bytes_per_s > ua ? (r->busbw_bytes_per_s + ub) / (r->algbw_bytes_per_s - ua)
                                        : INFINITY;
  return want >= lo * (1.0 - 1e-12) && want <= hi * (1.0 + 1e-12);
}

/* Ranks implied by the ratio for op, or 0 when it says nothing / is not whole. */
static int64_t ranks_from_ratio(enum pl_coll_op op, double r) {
  double n;
  if (op == PL_COLL_ALL_REDUCE && r > 1.0 && r < 2.0)
    n = 2.0 / (2.0 - r);
  else if ((op == PL_COLL_ALL_GATHER || op == PL_COLL_REDUCE_SCATTER ||
            op == PL_COLL_ALL_TO_ALL) && r > 0.0 && r < 1.0)
    n = 1.0 / (1.0 - r);
  else
    return 0;
  double k = floor(n + 0.5);
  return fabs(n - k) <= 0.05 * k + 0.1 ? (int64_t)k : 0;
}

static enum pl_status infer_op(struct pl_nccl_series *s, double r, const char *where,
                               struct pl_diag *diag) {
  bool none = strcmp(s->redop, "none") == 0;
  if (!none && r > 1.01) {
    s->op = PL_COLL_ALL_REDUCE;
  } else if (!none && r > 0.0 && r < 0.99) {
    s->op = PL_COLL_REDUCE_SCATTER;
  } else {
    const char *could = none ? (r < 0.99 ? "all_gather or all_to_all" : "broadcast")
                             : "send_recv (or reduce)";
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "%s: the log does not name its collective and its columns fit %s; "
                       "pass --op",
                       where, could);
  }
  s->op_known = true;
  return PL_OK;
}

static enum pl_status settle_op(struct pl_nccl_series *s, const struct pl_nccl_hints *h, double r,
                                const char *where, struct pl_diag *diag) {
  if (h != NULL && h->op_set) {
    if (s->op_known && s->op != h->op)
      return pl_diag_set(diag, PL_ERR_RANGE, "%s: the log runs %s but --op says %s", where,
                         pl_coll_op_name(s->op), pl_coll_op_name(h->op));
    s->op = h->op;
    s->op_known = true;
    return PL_OK;
  }
  return s->op_known ? PL_OK : infer_op(s, r, where, diag);
}

static enum pl_status settle_ranks(struct pl_nccl_series *s, const struct pl_nccl_hints *h,
                                   double r, const char *where, char *warn, size_t warn_len,
                                   struct pl_diag *diag) {
  int64_t from_ratio = ranks_from_ratio(s->op, r);
  int64_t hint = h != NULL ? h->ranks : 0;
  if (s->ranks > 0 && hint > 0 && s->ranks != hint)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: the log lists %lld ranks but --gpus says %lld",
                       where, (long long)s->ranks, (long long)hint);
  if (s->ranks == 0)
    s->ranks = hint > 0 ? hint : from_ratio;
  if (s->ranks == 0)
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "%s: cannot tell how many ranks ran %s (no '#  Rank' lines); pass --gpus",
                       where, pl_coll_op_name(s->op));
  if (from_ratio > 0 && from_ratio != s->ranks && !ratio_admits(s, s->ranks) && warn != NULL)
    snprintf(warn, warn_len,
             "%s: busbw/algbw = %.4f implies %lld ranks for %s, not %lld: check --op/--gpus",
             where, r, (long long)from_ratio, pl_coll_op_name(s->op), (long long)s->ranks);
  return PL_OK;
}

static enum pl_status settle_nodes(struct pl_nccl_series *s, const struct pl_nccl_hints *h,
                                   const char *where, struct pl_diag *diag) {
  int64_t hint = h != NULL ? h->nodes : 0;
  if (s->nodes > 0 && hint > 0 && s->nodes != hint)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: the log's ranks run on %lld hosts but --nodes says %lld",
                       where, (long long)s->nodes, (long long)hint);
  if (s->nodes == 0)
    s->nodes = hint;
  if (s->nodes == 0)
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "%s: cannot tell how many nodes ran it (no '#  Rank ... on HOST' lines); "
                       "pass --nodes",
                       where);
  if (s->ranks % s->nodes != 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: %lld ranks do not split evenly over %lld nodes",
                       where, (long long)s->ranks, (long long)s->nodes);
  s->ranks_per_node = s->ranks / s->nodes;
  return PL_OK;
}

enum pl_status pl_nccl_series_resolve(struct pl_nccl_series *s, const struct pl_nccl_hints *h,
                                      const char *origin, char *warn, size_t warn_len,
                                      struct pl_diag *diag) {
  char where[320];
  snprintf(where, sizeof where, "'%s' (test at line %lld)", origin, (long long)s->first_line);
  if (warn != NULL && warn_len > 0)
    warn[0] = '\0';
  double r = bus_ratio(s);
  enum pl_status st = settle_op(s, h, r, where, diag);
  if (st == PL_OK)
    st = settle_ranks(s, h, r, where, warn, warn_len, diag);
  if (st == PL_OK)
    st = settle_nodes(s, h, where, diag);
  return st;
}
