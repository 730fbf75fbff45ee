/* fit.c: least-squares calibration of a cluster's fabric figures to
 * nccl-tests measurements (pl_calib_nccl, see calib.h).
 *
 * Unknowns (only those the data constrain): the fixed per-call overhead
 * (launch_s, >= 0), the floor a call cannot go under (call_floor_s, >= 0:
 * nccl-tests -g N launches N GPUs from one thread, which overlaps the
 * transfer instead of adding to it), and per tier the latency and the bandwidth, as log-scale
 * factors on the base cluster's values: the intra tier (NVLink hop latency,
 * NVLink bandwidth per GPU) when a series runs on one node, the network tier
 * (network hop latency, NIC bandwidth) when one spans nodes. The model is
 * the full tuner (pl_coll_time), so the fitted figures mean what the preset
 * figures mean. Objective: sum over rows of ((model - measured) / measured)^2,
 * so every size counts alike, plus a weak prior holding the floor at the
 * fastest measured call below min_bytes when the fitted rows leave it free
 * (floor_prior). Minimiser: Levenberg-Marquardt (Marquardt 1963)
 * with forward-difference Jacobians from 40 starts (multistart), the best
 * then polished by a coordinate search and a last run. The tuner switches
 * algorithm and protocol with the parameters (ranked without pipeline fill,
 * charged with it), so the objective is only piecewise smooth and steps
 * where the choice flips; the restarts and the search cross them. A series
 * spanning nodes with several ranks per node frees the NVLink figures too
 * after the network is fitted (docs/collectives.md, "calibrate nccl"). The
 * network bandwidth is fitted only where it sets the logs' largest sizes
 * (net_bw_binds). */
#include <plateau/alloc.h>
#include <plateau/calib.h>

#include <math.h>
#include <string.h>

#define N_PARAMS 7
#define P_LAUNCH 0
#define P_INTRA_LAT 1
#define P_INTRA_BW 2
#define P_INTER_LAT 3
#define P_INTER_BW 4
#define P_FLOOR 5
#define P_MSG 6 /* seconds per network message on the proxy path (src/net/proxy_msg.c) */
#define MAX_ITER 200
#define LOG_BOUND 4.6 /* factors within 1/100 .. 100 of the base */

/* Weight of the floor prior against one row's relative error: a floor 10%
 * away from the small-message plateau costs as much as one row 1% off, so
 * rows that constrain the floor always win. */
#define FLOOR_PRIOR_WEIGHT 0.1

struct problem {
  const struct pl_cluster *base;
  const struct pl_calib_obs *obs;
  size_t n_obs;
  double min_bytes;
  bool active[N_PARAMS];
  double floor_prior_s; /* fastest call below min_bytes, 0 = none (no prior) */
  bool widen_intra;     /* a multi-node series has g > 1: NVLink is in it too */
};

static void apply(const struct problem *pb, const double *p, struct pl_cluster *c) {
  *c = *pb->base;
  c->coll_launch_s = fmax(0.0, p[P_LAUNCH]);
  c->coll_floor_s = fmax(0.0, p[P_FLOOR]);
  c->intra_latency_s = pb->base->intra_latency_s * exp(p[P_INTRA_LAT]);
  c->intra_nccl_bytes_per_s = pb->base->intra_nccl_bytes_per_s * exp(p[P_INTRA_BW]);
  c->inter_latency_s = pb->base->inter_latency_s * exp(p[P_INTER_LAT]);
  c->nic_bytes_per_s = pb->base->nic_bytes_per_s * exp(p[P_INTER_BW]);
  c->inter_msg_s = pb->active[P_MSG] ? fmax(0.0, p[P_MSG]) : pb->base->inter_msg_s;
}

static bool used(const struct problem *pb, const struct pl_nccl_row *r) {
  return r->bytes >= pb->min_bytes && r->time_s > 0.0;
}

/* Residuals into r (NULL to only count); returns the sum of squares. */
static double residuals(const struct problem *pb, const double *p, double *r, size_t *count) {
  struct pl_cluster c;
  apply(pb, p, &c);
  size_t k = 0;
  double ss = 0.0;
  for (size_t i = 0; i < pb->n_obs; i++) {
    const struct pl_nccl_series *s = pb->obs[i].series;
    struct pl_group g = {s->ranks, s->ranks_per_node};
    for (size_t j = 0; j < s->n_rows; j++) {
      if (!used(pb, &s->rows[j]))
        continue;
      struct pl_coll_cost cost;
      double e = 10.0; /* a call that cannot run counts as far off */
      if (pl_coll_time_shared(&c, s->op, s->rows[j].bytes, g, s->active_per_node,
                              pb->obs[i].algo, &cost) == PL_OK)
        e = (cost.time_s - s->rows[j].time_s) / s->rows[j].time_s;
      if (r != NULL)
        r[k] = e;
      k++;
      ss += e * e;
    }
  }
  if (count != NULL)
    *count = k;
  if (pb->floor_prior_s > 0.0) { /* stored after the rows; not counted as a row */
    double e = FLOOR_PRIOR_WEIGHT * (c.coll_floor_s - pb->floor_prior_s) / pb->floor_prior_s;
    if (r != NULL)
      r[k] = e;
    ss += e * e;
  }
  return ss;
}

/* The floor prior: nccl-tests' smallest sizes measure the per-call floor
 * directly (the time no call goes under), so the fastest row below
 * min_bytes is where the floor sits when the fitted rows do not pin it
 * (e.g. an NVLS log, whose 25 us NVLS latency hides the floor at >= 1 MiB). */
static double floor_prior(const struct problem *pb) {
  double t = INFINITY;
  for (size_t i = 0; i < pb->n_obs; i++)
    for (size_t j = 0; j < pb->obs[i].series->n_rows; j++) {
      const struct pl_nccl_row *row = &pb->obs[i].series->rows[j];
      if (row->bytes > 0.0 && row->bytes < pb->min_bytes && row->time_s > 0.0)
        t = fmin(t, row->time_s);
    }
  return isfinite(t) ? t : 0.0;
}

/* Solve a x = b (n <= N_PARAMS) by elimination with partial pivoting. */
static bool solve(double a[N_PARAMS][N_PARAMS], double *b, int n) {
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(a[i][c]) > fabs(a[piv][c]))
        piv = i;
    if (fabs(a[piv][c]) < 1e-300)
      return false;
    for (int j = 0; j < n; j++) {
      double t = a[c][j];
      a[c][j] = a[piv][j];
      a[piv][j] = t;
    }
    double t = b[c];
    b[c] = b[piv];
    b[piv] = t;
    for (int i = c + 1; i < n; i++) {
      double f = a[i][c] / a[c][c];
      for (int j = c; j < n; j++)
        a[i][j] -= f * a[c][j];
      b[i] -= f * b[c];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++)
      b[i] -= a[i][j] * b[j];
    b[i] /= a[i][i];
  }
  return true;
}

static bool is_time(int k) { return k == P_LAUNCH || k == P_FLOOR || k == P_MSG; }

static void clamp(double *p) {
  for (int k = 0; k < N_PARAMS; k++)
    p[k] = is_time(k) ? fmin(fmax(p[k], 0.0), 1.0) : fmin(fmax(p[k], -LOG_BOUND), LOG_BOUND);
}

/* Normal equations J'J and J'r of the active parameters (forward differences). */
static void normal_eq(const struct problem *pb, const double *p, const double *r, size_t m,
                      double *jac, int *idx, int na, double a[N_PARAMS][N_PARAMS], double *g) {
  for (int u = 0; u < na; u++) {
    double q[N_PARAMS];
    memcpy(q, p, sizeof q);
    double h = is_time(idx[u]) ? fmax(1e-7, 1e-3 * p[idx[u]]) : 1e-4;
    q[idx[u]] += h;
    residuals(pb, q, jac + (size_t)u * m, NULL);
    for (size_t i = 0; i < m; i++)
      jac[(size_t)u * m + i] = (jac[(size_t)u * m + i] - r[i]) / h;
  }
  for (int u = 0; u < na; u++) {
    g[u] = 0.0;
    for (size_t i = 0; i < m; i++)
      g[u] += jac[(size_t)u * m + i] * r[i];
    for (int v = 0; v < na; v++) {
      a[u][v] = 0.0;
      for (size_t i = 0; i < m; i++)
        a[u][v] += jac[(size_t)u * m + i] * jac[(size_t)v * m + i];
    }
  }
}

/* One damped step; true when it lowered the cost (p, r, cost updated). */
static bool lm_step(const struct problem *pb, double *p, double *r, double *rtry, size_t m,
                    double a[N_PARAMS][N_PARAMS], const double *g, const int *idx, int na,
                    double lambda, double *cost) {
  double m2[N_PARAMS][N_PARAMS], d[N_PARAMS], q[N_PARAMS];
  for (int u = 0; u < na; u++) {
    for (int v = 0; v < na; v++)
      m2[u][v] = a[u][v];
    m2[u][u] += lambda * a[u][u] + 1e-12;
    d[u] = -g[u];
  }
  if (!solve(m2, d, na))
    return false;
  memcpy(q, p, sizeof q);
  for (int u = 0; u < na; u++)
    q[idx[u]] += d[u];
  clamp(q);
  double c = residuals(pb, q, rtry, NULL);
  if (!(c < *cost))
    return false;
  memcpy(p, q, sizeof q);
  memcpy(r, rtry, m * sizeof *r);
  *cost = c;
  return true;
}

/* Levenberg-Marquardt from p; buffers hold m residuals and na*m Jacobian entries. */
static double minimise(const struct problem *pb, double *p, size_t m, double *r, double *rtry,
                       double *jac, int *iters) {
  int idx[N_PARAMS], na = 0;
  for (int k = 0; k < N_PARAMS; k++)
    if (pb->active[k])
      idx[na++] = k;
  double cost = residuals(pb, p, r, NULL), lambda = 1e-2;
  for (*iters = 0; *iters < MAX_ITER && lambda < 1e12; ++*iters) {
    double a[N_PARAMS][N_PARAMS], g[N_PARAMS];
    normal_eq(pb, p, r, m, jac, idx, na, a, g);
    double before = cost;
    while (lambda < 1e12 && !lm_step(pb, p, r, rtry, m, a, g, idx, na, lambda, &cost))
      lambda *= 4.0;
    lambda /= 3.0;
    if (before - cost < 1e-12 * (before + 1e-30))
      break;
  }
  return cost;
}

static double floor_time(const struct problem *pb) {
  double t = 1e30;
  for (size_t i = 0; i < pb->n_obs; i++)
    for (size_t j = 0; j < pb->obs[i].series->n_rows; j++)
      t = fmin(t, pb->obs[i].series->rows[j].time_s);
  return t < 1e30 ? t : 0.0;
}

/* Coordinate search from p: each active parameter in turn tries steps of
 * decreasing size either way and keeps any that lowers the cost. Steps are
 * log factors for hop latencies and bandwidths and fractions of t0 for the
 * launch and floor times. It crosses the steps in the objective that
 * stall Levenberg-Marquardt (see multistart). */
static double coord_search(const struct problem *pb, double *p, double t0, double cost) {
  /* the message cost steps in units of the base's network hop: t0 (the
   * fastest call) says nothing about one message */
  double msg_unit = pb->base->inter_latency_s;
  static const double steps[] = {0.5, 0.2, 0.08, 0.03, 0.01};
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < N_PARAMS; k++) {
      if (!pb->active[k])
        continue;
      for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        for (int sign = -1; sign <= 1; sign += 2) {
          double q[N_PARAMS];
          memcpy(q, p, sizeof q);
          q[k] += sign * steps[i] * (k == P_MSG ? msg_unit : is_time(k) ? t0 : 1.0);
          clamp(q);
          double c = residuals(pb, q, NULL, NULL);
          if (c < cost) {
            cost = c;
            memcpy(p, q, sizeof q);
          }
        }
    }
  return cost;
}

/* Whether the network bandwidth is what the logs' largest sizes measure: in
 * the base cluster, 10% less of it slows the largest fitted row of some
 * series by at least BINDS_MIN (1%). Where NVLink or a per-channel cap sets
 * the large-message time instead (a 2-node NVLS_TREE, whose network moves S
 * per node while its NVLS part binds; more nodes move 2S), the log says
 * nothing about the network's bandwidth, and a fit would move it only to
 * bend the mid sizes' pipeline fill; at the node counts where the network
 * does bind, that figure would then set the time. So it keeps the base's
 * figure. NVLink is not held so: a GPU's NVLink load is the same on any
 * number of nodes, so what a fitted NVLink figure absorbs on the fitted
 * node count it absorbs on the others (docs/collectives.md, "calibrate
 * nccl"). */
#define BINDS_MIN 0.01
static bool net_bw_binds(const struct problem *pb) {
  for (size_t i = 0; i < pb->n_obs; i++) {
    const struct pl_nccl_series *s = pb->obs[i].series;
    double bytes = 0.0;
    for (size_t j = 0; j < s->n_rows; j++)
      if (used(pb, &s->rows[j]))
        bytes = fmax(bytes, s->rows[j].bytes);
    if (bytes <= 0.0)
      continue;
    struct pl_cluster slow = *pb->base;
    slow.nic_bytes_per_s *= 0.9;
    struct pl_group g = {s->ranks, s->ranks_per_node};
    struct pl_coll_cost a, b;
    if (pl_coll_time_shared(pb->base, s->op, bytes, g, s->active_per_node, pb->obs[i].algo, &a) ==
            PL_OK &&
        pl_coll_time_shared(&slow, s->op, bytes, g, s->active_per_node, pb->obs[i].algo, &b) ==
            PL_OK &&
        b.time_s >= a.time_s * (1.0 + BINDS_MIN))
      return true;
  }
  return false;
}

/* Whether the fitted rows see the proxy's per-message bound (src/net/
 * proxy_msg.c): with one network hop's latency per message, some fitted row
 * of a series spanning nodes is at least BINDS_MIN slower than in the base.
 * Where none is, the rows measure nothing about it (every call's NCCL terms
 * hide it) and the base's figure is kept, as net_bw_binds keeps the
 * network's bandwidth. */
static bool msg_binds(const struct problem *pb) {
  struct pl_cluster probe = *pb->base;
  probe.inter_msg_s = fmax(pb->base->inter_msg_s, pb->base->inter_latency_s);
  if (!(probe.inter_msg_s > pb->base->inter_msg_s))
    return false;
  for (size_t i = 0; i < pb->n_obs; i++) {
    const struct pl_nccl_series *s = pb->obs[i].series;
    if (s->ranks <= s->ranks_per_node)
      continue;
    struct pl_group g = {s->ranks, s->ranks_per_node};
    for (size_t j = 0; j < s->n_rows; j++) {
      struct pl_coll_cost a, b;
      if (used(pb, &s->rows[j]) &&
          pl_coll_time_shared(pb->base, s->op, s->rows[j].bytes, g, s->active_per_node,
                              pb->obs[i].algo, &a) == PL_OK &&
          pl_coll_time_shared(&probe, s->op, s->rows[j].bytes, g, s->active_per_node,
                              pb->obs[i].algo, &b) == PL_OK &&
          b.time_s >= a.time_s * (1.0 + BINDS_MIN))
        return true;
    }
  }
  return false;
}

static enum pl_status setup(struct problem *pb, struct pl_calib_fit *fit, struct pl_diag *diag) {
  memset(fit, 0, sizeof *fit);
  pb->active[P_LAUNCH] = pb->active[P_FLOOR] = true;
  for (size_t i = 0; i < pb->n_obs; i++) {
    const struct pl_nccl_series *s = pb->obs[i].series;
    if (s->ranks < 1 || s->ranks_per_node < 1)
      return pl_diag_set(diag, PL_ERR_MISSING, "series at line %lld: ranks and nodes not resolved",
                         (long long)s->first_line);
    struct pl_group g = {s->ranks, s->ranks_per_node};
    enum pl_status st = pl_coll_check(pb->base, s->op, s->rows[0].bytes, g, pb->obs[i].algo, diag);
    if (st != PL_OK)
      return st;
    if (s->ranks == s->ranks_per_node && s->ranks > 1)
      fit->fit_intra = true;
    if (s->ranks > s->ranks_per_node && s->ranks_per_node > 1)
      pb->widen_intra = true;
    if (s->ranks > s->ranks_per_node)
      fit->fit_inter = true;
  }
  pb->active[P_INTRA_LAT] = pb->active[P_INTRA_BW] = fit->fit_intra;
  pb->active[P_INTER_LAT] = fit->fit_inter;
  pb->active[P_INTER_BW] = fit->fit_inter && net_bw_binds(pb);
  pb->active[P_MSG] = fit->fit_inter && msg_binds(pb);
  fit->fit_msg = pb->active[P_MSG];
  fit->fit_inter_bw = pb->active[P_INTER_BW];
  return PL_OK;
}

/* What the fitted rows run on the fitted cluster (pl_calib_fit.pairs_seen,
 * min_net_msgs_per_step): a fit measures only the regimes its rows are in.
 * The per-message cost fitted on rows that post k >= 2 messages a ring step
 * is the proxy's throughput (k posts in turn, proxy_msg.c); a step with one
 * message is a chain of post, wire and the receiver's arrival, which such
 * rows do not time. Polaris setup (4): the 2-node rows post >= 4 a step, the
 * 2-node fit's 4.93 us a message gives the same job's 256-node 8 / 16 MiB
 * rows (2 and 4 a step) within 1.7 %, and its 1-4 MiB rows (one a step,
 * NCCL 2.21.5's one channel at 1,024 ranks) 50-56 % too fast
 * (docs/collectives.md, "Session 28 (pol28)"). */
static void seen(const struct problem *pb, const struct pl_cluster *c, struct pl_calib_fit *fit) {
  fit->pairs_seen = 0;
  fit->min_net_msgs_per_step = 0.0;
  for (size_t i = 0; i < pb->n_obs; i++) {
    const struct pl_nccl_series *s = pb->obs[i].series;
    struct pl_group g = {s->ranks, s->ranks_per_node};
    for (size_t j = 0; j < s->n_rows; j++) {
      struct pl_coll_cost cost;
      if (!used(pb, &s->rows[j]) ||
          pl_coll_time_shared(c, s->op, s->rows[j].bytes, g, s->active_per_node, pb->obs[i].algo,
                              &cost) != PL_OK)
        continue;
      fit->pairs_seen |= PL_CALIB_PAIR(cost.algo, cost.proto);
      if (cost.net_msgs_per_step > 0.0 && (fit->min_net_msgs_per_step == 0.0 ||
                                           cost.net_msgs_per_step < fit->min_net_msgs_per_step))
        fit->min_net_msgs_per_step = cost.net_msgs_per_step;
    }
  }
}

static void report(const struct problem *pb, const double *p, const double *r, size_t m,
                   struct pl_cluster *out, struct pl_calib_fit *fit) {
  apply(pb, p, out);
  out->calibrated = true;
  out->calibrated_intra = out->calibrated_intra || fit->fit_intra;
  out->calibrated_inter = out->calibrated_inter || fit->fit_inter;
  /* a held figure is the base's, and the written file says so (cluster_save.c) */
  out->calibrated_nic_bw = out->calibrated_nic_bw || (fit->fit_inter_bw && p[P_INTER_BW] != 0.0);
  out->calibrated_msg = out->calibrated_msg || fit->fit_msg;
  /* a free figure the rows never moved (its log-scale factor still exactly
   * 0, where every start put it: e.g. the NVLink hop latency of an NVLS-only
   * log, the NVLink figures a 2-node Polaris fit widens but its rows do not
   * see) is the base's, and is written so */
  out->kept_intra_lat = fit->fit_intra && p[P_INTRA_LAT] == 0.0;
  out->kept_intra_bw = fit->fit_intra && p[P_INTRA_BW] == 0.0;
  out->kept_inter_lat = fit->fit_inter && p[P_INTER_LAT] == 0.0;
  /* a free factor the minimiser drove to the edge of its range: the rows
   * do not pin that figure (e.g. a tree-only 256-node Polaris log: both hop
   * latencies at 1/100 of the base), so it is reported, not trusted */
  static const struct {
    int k;
    unsigned bit;
  } lim[] = {{P_INTRA_LAT, PL_CALIB_LIMIT_INTRA_LAT},
             {P_INTRA_BW, PL_CALIB_LIMIT_INTRA_BW},
             {P_INTER_LAT, PL_CALIB_LIMIT_INTER_LAT},
             {P_INTER_BW, PL_CALIB_LIMIT_INTER_BW}};
  fit->at_limit = 0;
  for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
    if (pb->active[lim[i].k] && fabs(p[lim[i].k]) >= LOG_BOUND * (1.0 - 1e-9))
      fit->at_limit |= lim[i].bit;
  fit->launch_s = out->coll_launch_s;
  fit->floor_s = out->coll_floor_s;
  fit->intra_latency_s = out->intra_latency_s;
  fit->intra_bytes_per_s = out->intra_nccl_bytes_per_s;
  fit->inter_latency_s = out->inter_latency_s;
  fit->node_net_bytes_per_s = pl_cluster_node_net_bytes_per_s(out);
  fit->inter_msg_s = out->inter_msg_s;
  seen(pb, out, fit);
  fit->n_points = m;
  double ss = 0.0;
  for (size_t i = 0; i < m; i++) {
    ss += r[i] * r[i];
    fit->max_rel_err = fmax(fit->max_rel_err, fabs(r[i]));
  }
  fit->rms_rel_err = sqrt(ss / (double)m);
}

/* Levenberg-Marquardt from 40 starts, the best kept in best (returns its
 * cost). (launch, floor) start as fractions of the smallest measured time;
 * hop latencies at the base and e^(+-0.2), e^(+-0.4) of it; bandwidths at
 * the base and 15% below it (a min() of two bandwidths is flat in the one
 * that does not bind). The tuner ranks pairs without pipeline fill and
 * charges them with it, so the objective steps where the choice flips, and
 * one start can stall on a step. */
static double multistart(const struct problem *pb, size_t mr, double *buf, double t0,
                         double *best, struct pl_calib_fit *fit) {
  static const double starts[4][2] = {{0.0, 0.0}, {0.5, 0.0}, {0.0, 0.9}, {0.3, 0.9}};
  static const double lat_starts[5] = {0.0, 0.4, -0.4, 0.2, -0.2};
  /* message cost: off, then fractions of the base's network hop */
  static const double msg_starts[5] = {0.0, 0.25, 0.5, 1.0, 2.0};
  double best_cost = INFINITY;
  for (int s = 0; s < 40; s++) {
    double p[N_PARAMS] = {0};
    p[P_LAUNCH] = starts[s % 4][0] * t0;
    p[P_FLOOR] = starts[s % 4][1] * t0;
    p[P_INTRA_LAT] = pb->active[P_INTRA_LAT] ? lat_starts[s / 4 % 5] : 0.0;
    p[P_INTER_LAT] = pb->active[P_INTER_LAT] ? lat_starts[s / 4 % 5] : 0.0;
    p[P_INTRA_BW] = pb->active[P_INTRA_BW] && s >= 20 ? -0.15 : 0.0;
    p[P_INTER_BW] = pb->active[P_INTER_BW] && s >= 20 ? -0.15 : 0.0;
    p[P_MSG] = pb->active[P_MSG] ? msg_starts[s % 5] * pb->base->inter_latency_s : 0.0;
    int iters = 0;
    double cost = minimise(pb, p, mr, buf, buf + mr, buf + 2 * mr, &iters);
    fit->iterations += iters;
    if (cost < best_cost) {
      best_cost = cost;
      memcpy(best, p, N_PARAMS * sizeof *best);
    }
  }
  return best_cost;
}

enum pl_status pl_calib_nccl(const struct pl_cluster *base, const struct pl_calib_obs *obs,
                             size_t n_obs, double min_bytes, struct pl_cluster *out,
                             struct pl_calib_fit *fit, struct pl_diag *diag) {
  struct problem pb = {base, obs, n_obs, min_bytes, {false}, 0.0, false};
  enum pl_status st = setup(&pb, fit, diag);
  if (st != PL_OK)
    return st;
  size_t m = 0;
  double p0[N_PARAMS] = {0};
  residuals(&pb, p0, NULL, &m);
  if (m < PL_CALIB_NCCL_MIN_ROWS)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "only %zu result rows of at least %.0f bytes: too few to fit (need %d)", m,
                       min_bytes, PL_CALIB_NCCL_MIN_ROWS);
  pb.floor_prior_s = floor_prior(&pb);
  size_t mr = m + (pb.floor_prior_s > 0.0 ? 1 : 0); /* residuals incl. the prior */
  double *buf = pl_calloc((2 + N_PARAMS) * mr, sizeof *buf);
  if (buf == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory fitting %zu rows", m);
  double best[N_PARAMS] = {0}, t0 = floor_time(&pb);
  double best_cost = multistart(&pb, mr, buf, t0, best, fit);
  /* A multi-node series with several ranks per node also runs over NVLink
   * (the chain of tree, the NVLS part of NVLS_TREE, every pipeline fill):
   * once the network is fitted, free the NVLink figures too and polish,
   * starting from the best so far so the cost can only fall. */
  bool widen = pb.widen_intra && !fit->fit_intra;
  if (widen)
    pb.active[P_INTRA_LAT] = pb.active[P_INTRA_BW] = fit->fit_intra = true;
  if (coord_search(&pb, best, t0, best_cost) < best_cost || widen) { /* then polish */
    int iters = 0;
    minimise(&pb, best, mr, buf, buf + mr, buf + 2 * mr, &iters);
    fit->iterations += iters;
  }
  residuals(&pb, best, buf, NULL);
  report(&pb, best, buf, m, out, fit);
  pl_free(buf);
  return PL_OK;
}
