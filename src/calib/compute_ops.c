/* compute_ops.c: a trace's GEMM and attention ops matched to a prediction's
 * ops by shape, the rest compared per phase (include/plateau/calib_compute.h,
 * docs/trace.md 9.5). */
#include <plateau/calib_compute.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phase_names[PL_PHASE_N] = {"forward", "backward", "optimizer step"};

/* Per-step multiplier of an op's one-micro-batch times (report's per_step_s). */
static double mult(const struct pl_trace_summary_op *p) {
  double t = p->fwd_s + p->bwd_s;
  return t > 0 ? p->per_step_s / t : 0;
}

/* One GEMM call's FLOPs: 2 m n k per product, count of them (batched). */
static double gemm_call_flops(int64_t m, int64_t n, int64_t k, int64_t count) {
  return 2.0 * (double)m * (double)n * (double)k * (double)count;
}

static bool same_pair(int64_t a, int64_t b, int64_t x, int64_t y) {
  return (a == x && b == y) || (a == y && b == x);
}

/* The GEMM passes of predicted op p that have o's shape: bit 0 forward, bit 1 backward. */
static int gemm_passes(const struct pl_trace_summary_op *p, const struct pl_compute_obs *o) {
  if (strcmp(p->kind, "gemm") != 0 || p->count != o->count)
    return 0;
  int bits = 0;
  if (same_pair(o->m, o->n, p->m, p->n) && o->k == p->k)
    bits |= 1;
  if ((same_pair(o->m, o->n, p->m, p->k) && o->k == p->n) ||
      (same_pair(o->m, o->n, p->n, p->k) && o->k == p->m))
    bits |= 2;
  return bits;
}

static int attn_passes(const struct pl_trace_summary_op *p, const struct pl_compute_obs *o) {
  if (strcmp(p->kind, "attention") != 0 || p->m != o->m || p->n != o->n || p->k != o->k ||
      p->count != o->count)
    return 0;
  return o->kind == PL_COMPUTE_ATTN_FWD ? 1 : 2;
}

static void unmatched(struct pl_opcmp *c, const struct pl_compute_obs *o, const char *why,
                      double steps) {
  char shape[48];
  snprintf(shape, sizeof shape, "%lld x %lld x %lld x %lld", (long long)o->m, (long long)o->n,
           (long long)o->k, (long long)o->count);
  const char *pass = phase_names[o->phase];
  for (int i = 0; i < c->n_unmatched; i++) {
    struct pl_opcmp_row *r = &c->unmatched[i];
    if (strcmp(r->name, o->op) == 0 && strcmp(r->shape, shape) == 0 &&
        strcmp(r->pass, pass) == 0 && strcmp(r->why, why) == 0) {
      r->measured_s += o->time_s / steps;
      r->calls += 1; /* divided by the steps at the end */
      return;
    }
  }
  if (c->n_unmatched == PL_OPCMP_MAX_UNMATCHED) {
    c->unmatched_dropped++;
    return;
  }
  struct pl_opcmp_row *r = &c->unmatched[c->n_unmatched++];
  snprintf(r->name, sizeof r->name, "%s", o->op);
  snprintf(r->pass, sizeof r->pass, "%s", pass);
  snprintf(r->shape, sizeof r->shape, "%s", shape);
  snprintf(r->why, sizeof r->why, "%s", why);
  r->measured_s = o->time_s / steps;
  r->calls = 1;
  r->has_meas = true;
}

static int cmp_row(const void *a, const void *b) {
  double x = ((const struct pl_opcmp_row *)a)->measured_s,
         y = ((const struct pl_opcmp_row *)b)->measured_s;
  return (x < y) - (x > y);
}

/* Match one GEMM or attention observation; returns the row it adds to, or
 * -1 with *why set. rows[2 i] / rows[2 i + 1] are op i's forward / backward. */
static int match(const struct pl_compute_obs *o, const struct pl_trace_summary_op *ops, int n_ops,
                 bool phases_known, const char **why) {
  int found = -1, all = 0, wanted = o->phase == PL_PHASE_FWD ? 1 : o->phase == PL_PHASE_BWD ? 2 : 0;
  for (int i = 0; i < n_ops; i++) {
    int bits = o->kind == PL_COMPUTE_GEMM || o->kind == PL_COMPUTE_GEMM_FP8
                   ? gemm_passes(&ops[i], o)
                   : attn_passes(&ops[i], o);
    all |= bits;
    int use = phases_known ? bits & wanted : bits;
    if (!phases_known && o->kind != PL_COMPUTE_ATTN_FWD && o->kind != PL_COMPUTE_ATTN_BWD &&
        use == 3) {
      *why = "forward or backward shape (no autograd ranges in the trace)";
      return -1;
    }
    if (use == 0)
      continue;
    int row = 2 * i + (use == 2 ? 1 : 0);
    if (found >= 0 && found / 2 != i) {
      *why = "shape of more than one predicted op";
      return -1;
    }
    found = row;
  }
  if (found < 0)
    *why = all == 0 ? "no predicted op of this shape"
           : o->phase == PL_PHASE_OPT ? "run in the optimizer step"
           : o->phase == PL_PHASE_FWD ? "backward shape run in the forward"
                                      : "forward shape run in the backward";
  return found;
}

static struct pl_opcmp_row *add_row(struct pl_opcmp *c, const char *name, const char *pass) {
  struct pl_opcmp_row *r = &c->rows[c->n_rows++];
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  snprintf(r->pass, sizeof r->pass, "%s", pass);
  return r;
}

enum pl_status pl_compute_opcmp(const struct pl_compute_trace *t,
                                const struct pl_trace_summary_op *ops, int n_ops,
                                double optimizer_s, bool has_optimizer, struct pl_opcmp *c,
                                struct pl_diag *diag) {
  memset(c, 0, sizeof *c);
  if (n_ops <= 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "the prediction lists no ops (write it with `plateau predict --ops "
                       "--format json`)");
  if (2 * n_ops + 4 > PL_OPCMP_MAX_ROWS)
    return pl_diag_set(diag, PL_ERR_LIMIT, "more than %d predicted ops", (PL_OPCMP_MAX_ROWS - 4) / 2);
  c->steps_known = t->steps > 0;
  double steps = c->steps = t->steps > 0 ? (double)t->steps : 1;
  bool phases_known = t->phase_s[PL_PHASE_BWD] > 0;
  /* rows 0 .. 2 n_ops - 1: each op's forward and backward (GEMM and attention) */
  for (int i = 0; i < n_ops; i++) {
    char name[40];
    snprintf(name, sizeof name, "%s.%s", ops[i].segment, ops[i].name);
    for (int pass = 0; pass < 2; pass++) {
      struct pl_opcmp_row *r = add_row(c, name, pass ? "bwd" : "fwd");
      snprintf(r->shape, sizeof r->shape, "%lld x %lld x %lld x %lld", (long long)ops[i].m,
               (long long)ops[i].n, (long long)ops[i].k, (long long)ops[i].count);
      r->predicted_s = (pass ? ops[i].bwd_s : ops[i].fwd_s) * mult(&ops[i]);
      r->has_pred = strcmp(ops[i].kind, "memory") != 0;
      r->has_meas = r->has_pred;
      if (strcmp(ops[i].kind, "gemm") == 0) /* forward one GEMM, backward dgrad + wgrad */
        r->pred_flops = (pass ? 2.0 : 1.0) * mult(&ops[i]) * gemm_call_flops(ops[i].m, ops[i].n,
                                                                             ops[i].k, ops[i].count);
    }
  }
  double matched_by_phase[PL_PHASE_N] = {0};
  for (size_t j = 0; j < t->n_obs; j++) {
    const struct pl_compute_obs *o = &t->obs[j];
    if (o->kind == PL_COMPUTE_MEMORY)
      continue;
    matched_by_phase[o->phase] += o->time_s;
    const char *why = NULL;
    int row = match(o, ops, n_ops, phases_known, &why);
    if (row < 0) {
      unmatched(c, o, why, steps);
      continue;
    }
    c->rows[row].measured_s += o->time_s / steps;
    c->rows[row].calls += 1;
    if (o->kind == PL_COMPUTE_GEMM || o->kind == PL_COMPUTE_GEMM_FP8)
      c->rows[row].meas_flops += gemm_call_flops(o->m, o->n, o->k, o->count) / steps;
  }
  /* the rest, per phase: memory-bound and other kernels, the optimizer */
  double mem_pred[2] = {0, 0};
  for (int i = 0; i < n_ops; i++)
    if (strcmp(ops[i].kind, "memory") == 0) {
      mem_pred[0] += ops[i].fwd_s * mult(&ops[i]);
      mem_pred[1] += ops[i].bwd_s * mult(&ops[i]);
    }
  for (int ph = 0; ph < PL_PHASE_N; ph++) {
    struct pl_opcmp_row *r =
        add_row(c, ph == PL_PHASE_OPT ? "optimizer" : "memory-bound and other",
                ph == PL_PHASE_FWD ? "fwd" : ph == PL_PHASE_BWD ? "bwd" : "step");
    r->measured_s = (t->phase_s[ph] - matched_by_phase[ph]) / steps;
    r->has_meas = true;
    r->has_pred = ph == PL_PHASE_OPT ? has_optimizer : true;
    r->predicted_s = ph == PL_PHASE_OPT ? optimizer_s : mem_pred[ph];
  }
  for (int ph = 0; ph < PL_PHASE_N; ph++) {
    c->idle_host_s[ph] = t->idle_host_s[ph] / steps;
    c->idle_queued_s[ph] = t->idle_queued_s[ph] / steps;
  }
  struct pl_opcmp_row *u = add_row(c, "unlinked kernels", "");
  u->measured_s = t->unlinked_s / steps;
  u->has_meas = true;
  for (int i = 0; i < c->n_rows; i++) /* ops per step */
    c->rows[i].calls /= steps;
  for (int i = 0; i < c->n_unmatched; i++)
    c->unmatched[i].calls /= steps;
  qsort(c->unmatched, (size_t)c->n_unmatched, sizeof c->unmatched[0], cmp_row);
  return PL_OK;
}
