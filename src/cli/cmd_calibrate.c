/* cmd_calibrate.c: `plateau calibrate nccl LOG... --cluster BASE --out FILE`
 * fits a cluster's fabric figures to real nccl-tests logs (src/calib/) and
 * writes a cluster file that loads wherever a preset does. It prints the
 * fitted values and, per log and size, measured vs modelled time and the
 * error. `plateau calibrate trace ...` belongs to the trace tools. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"

#define MAX_OBS 256

static const struct cli_opt nccl_opts[] = {
    {"cluster", "C", "base cluster preset or file to start from (required)"},
    {"out", "FILE", "write the fitted cluster file here (required)"},
    {"algo", "A", "algorithm the logs ran with: auto|ring|tree|nvls|nvls_tree, one for all logs "
                  "or a comma list, one per log (default auto, or the log's NCCL_ALGO line)"},
    {"op", "OP", "collective, for logs that do not name it (no '# Collective test' line): one "
                 "for all logs or a comma list, one per log"},
    {"gpus", "N", "ranks, for logs without '#  Rank' lines"},
    {"nodes", "N", "nodes, for logs without '#  Rank ... on HOST' lines"},
    {"min-bytes", "SIZE", "fit rows of at least this size (default 1M)"},
    {"format", "F", "text|json report (default text)"},
};
static const struct cli_cmd nccl_cmd = {
    "calibrate nccl",
    "plateau calibrate nccl LOG... --cluster BASE --out FILE.json [options]",
    "Fit the launch overhead, the call floor and the latency and bandwidth of each fabric tier "
    "the logs exercise (NVLink on one node, the network across nodes) by least squares on "
    "relative time error, starting from BASE; write the result as a cluster file.",
    nccl_opts, sizeof nccl_opts / sizeof nccl_opts[0], true};

struct job {
  struct pl_cluster base, fitted;
  struct pl_nccl_log *logs[CLI_MAX_POSITIONAL];
  int n_logs;
  struct pl_calib_obs obs[MAX_OBS];
  int obs_log[MAX_OBS];
  char obs_warn[MAX_OBS][400]; /* pl_nccl_series_resolve's warning for the series, or "" */
  size_t n_obs;
  struct pl_nccl_hints hints;
  enum pl_coll_op ops[CLI_MAX_POSITIONAL]; /* --op, one for all logs or one per log */
  int n_ops;
  enum pl_coll_algo algos[CLI_MAX_POSITIONAL];
  int n_algos;
  double min_bytes;
  enum cli_format fmt;
  struct pl_calib_fit fit;
};

static void print_warnings(const struct pl_nccl_log *log) {
  for (size_t i = 0; i < log->n_warnings && i < PL_NCCL_WARNINGS_KEPT; i++)
    fprintf(cli_err(), "plateau: warning: '%s': %s\n", log->origin, log->warnings[i]);
  if (log->n_warnings > PL_NCCL_WARNINGS_KEPT)
    fprintf(cli_err(), "plateau: warning: '%s': %zu more warnings\n", log->origin,
            log->n_warnings - PL_NCCL_WARNINGS_KEPT);
}

static int parse_algos(const char *text, struct job *j) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", text ? text : "auto");
  j->n_algos = 0;
  for (char *item = buf, *next; item != NULL; item = next) {
    next = strchr(item, ',');
    if (next != NULL)
      *next++ = '\0';
    struct pl_diag d;
    pl_diag_clear(&d);
    if (j->n_algos == CLI_MAX_POSITIONAL || pl_coll_algo_parse(item, &j->algos[j->n_algos], &d))
      return cli_fail("--algo: %s", d.msg[0] ? d.msg : "too many values");
    j->n_algos++;
  }
  if (j->n_algos != 1 && j->n_algos != j->n_logs)
    return cli_fail("--algo: give one algorithm for all logs or one per log (%d logs, %d given)",
                    j->n_logs, j->n_algos);
  return 0;
}

static int parse_hints(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *op = cli_get(a, "op");
  if (op != NULL) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", op);
    for (char *item = buf, *next; item != NULL; item = next) {
      next = strchr(item, ',');
      if (next != NULL)
        *next++ = '\0';
      if (j->n_ops == CLI_MAX_POSITIONAL)
        return cli_fail("--op: too many values");
      if (pl_coll_op_parse(item, &j->ops[j->n_ops++], &d) != PL_OK)
        return cli_fail("--op: %s", d.msg);
    }
    j->hints.op_set = true;
  }
  if (cli_get_int(a, "gpus", &j->hints.ranks) != 0 || cli_get_int(a, "nodes", &j->hints.nodes) != 0)
    return 1;
  const char *mb = cli_get(a, "min-bytes");
  j->min_bytes = 1048576.0;
  if (mb != NULL && pl_size_parse(mb, &j->min_bytes, &d) != PL_OK)
    return cli_fail("--min-bytes: %s", d.msg);
  int rc = cli_get_format(a, &j->fmt);
  if (rc != 0)
    return rc;
  /* text and json only, as calibrate compute says: csv printed the text report */
  if (j->fmt == CLI_FORMAT_CSV)
    return cli_usage(&nccl_cmd, "--format: csv is not offered here (text|json)");
  return 0;
}

/* The algorithm of log i: --algo, else the log's NCCL_ALGO line, else auto. */
static enum pl_coll_algo algo_of(const struct job *j, int i, const struct pl_nccl_series *s) {
  enum pl_coll_algo a = j->algos[j->n_algos == 1 ? 0 : i];
  if (a == PL_ALGO_AUTO && s->algo_hint[0] != '\0')
    pl_coll_algo_parse(s->algo_hint, &a, NULL); /* "ring,tree" stays auto */
  return a;
}

static int load_logs(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  for (int i = 0; i < a->n_pos; i++) {
    if (pl_nccl_log_load(a->pos[i], &j->logs[i], &d) != PL_OK)
      return cli_fail("%s", d.msg);
    j->n_logs++;
    print_warnings(j->logs[i]);
  }
  return 0;
}

static int resolve_all(struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (j->n_ops > 1 && j->n_ops != j->n_logs)
    return cli_fail("--op: give one collective for all logs or one per log (%d logs, %d given)",
                    j->n_logs, j->n_ops);
  for (int i = 0; i < j->n_logs; i++) {
    struct pl_nccl_hints h = j->hints;
    if (j->n_ops > 0)
      h.op = j->ops[j->n_ops == 1 ? 0 : i];
    for (size_t k = 0; k < j->logs[i]->n_series; k++) {
      struct pl_nccl_series *s = &j->logs[i]->series[k];
      char warn[400];
      if (pl_nccl_series_resolve(s, &h, j->logs[i]->origin, warn, sizeof warn, &d))
        return cli_fail("%s", d.msg);
      if (warn[0] != '\0')
        fprintf(cli_err(), "plateau: warning: %s\n", warn);
      if (j->n_obs == MAX_OBS)
        return cli_fail("more than %d tests in the logs", MAX_OBS);
      j->obs[j->n_obs].series = s;
      j->obs[j->n_obs].algo = algo_of(j, i, s);
      snprintf(j->obs_warn[j->n_obs], sizeof j->obs_warn[j->n_obs], "%s", warn);
      j->obs_log[j->n_obs++] = i;
    }
  }
  return 0;
}

/* A figure the fit drove to the edge of its range (1/100 or 100 x the
 * base's, src/calib/fit.c) is what no fitted row pins: say so, since the
 * file still carries it. */
static const struct {
  unsigned bit;
  const char *what, *key; /* key: the JSON report's name of the figure */
} limits[] = {{PL_CALIB_LIMIT_INTRA_LAT, "NVLink hop latency", "intra_latency_s"},
              {PL_CALIB_LIMIT_INTRA_BW, "NVLink bandwidth", "intra_bytes_per_s"},
              {PL_CALIB_LIMIT_INTER_LAT, "network hop latency", "inter_latency_s"},
              {PL_CALIB_LIMIT_INTER_BW, "network bandwidth", "node_net_bytes_per_s"}};

static void warn_limits(const struct pl_calib_fit *f) {
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    if (f->at_limit & limits[i].bit)
      fprintf(cli_err(),
              "plateau: warning: the fitted %s is at the edge of the fit's range (1/100 or 100 x "
              "the base's): the rows do not pin it, so it is not a measurement\n",
              limits[i].what);
}

/* The algorithm / protocol pairs the fitted rows ran ("ring/LL, ring/Simple"). */
static void pairs_text(unsigned pairs, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int a = 0; a < PL_ALGO_N; a++)
    for (int p = 0; p < PL_PROTO_N; p++)
      if ((pairs & PL_CALIB_PAIR(a, p)) && used < n) {
        int w = snprintf(buf + used, n - used, "%s%s/%s", used ? ", " : "",
                         pl_coll_algo_name((enum pl_coll_algo)a),
                         pl_coll_proto_name((enum pl_coll_proto)p));
        used += w > 0 ? (size_t)w : 0;
      }
}

/* What the fit did not measure, for a user who takes the file to another
 * node count (docs/collectives.md, "calibrate nccl", "What a 2-node fit
 * cannot see"): the pairs its rows ran, and where a larger group posts
 * fewer network messages a ring step than any fitted row. NCCL drops a ring
 * LL channel while bytes < channels x 512 x 8 x ranks (NCCL 2.21-2.29
 * src/enqueue.cc getChannnelThreadInfo, NCCL_LL_THREAD_THRESHOLD 8 x nRanks,
 * tuning.cc), so below k x 4,096 x ranks bytes a ring LL call posts fewer
 * than k messages a step. */
#define RING_LL_BYTES_PER_CHANNEL_RANK 4096.0 /* NCCL_LL_MAX_NTHREADS 512 x NCCL_LL_THREAD_THRESHOLD 8 */
#define CAVEAT_EXAMPLE_RANKS 1024.0 /* the figure printed: Polaris setup (4), 256 nodes x 4 */
static void text_caveats(const struct job *j) {
  const struct pl_calib_fit *f = &j->fit;
  char pairs[512];
  pairs_text(f->pairs_seen, pairs, sizeof pairs);
  printf("  extrapolating: the fitted rows ran %s; at other node counts and sizes NCCL's tuner "
         "may pick a pair no fitted row ran\n",
         pairs[0] ? pairs : "nothing");
  /* one node count across the multi-node series: nothing in the fit sees how a figure moves
   * with it (Polaris setup (4): a 4-32 KiB message costs 1.4-3.0x more on 8 and 256 nodes than
   * on 2; docs/collectives.md, "Session 28 (pol28)") */
  long long nodes = 0;
  bool one_count = true;
  for (size_t k = 0; k < j->n_obs; k++) {
    const struct pl_nccl_series *s = j->obs[k].series;
    if (s->ranks <= s->ranks_per_node)
      continue;
    if (nodes != 0 && (long long)s->nodes != nodes)
      one_count = false;
    nodes = (long long)s->nodes;
  }
  if (nodes > 0 && one_count)
    printf("  extrapolating: every multi-node row ran on %lld nodes, so nothing here shows how the "
           "network figures move with the node count\n",
           nodes);
  if (f->min_net_msgs_per_step > 1.0)
    printf("  extrapolating: every fitted ring step across nodes posts >= %.0f network messages "
           "a proxy, so the per-message figures are a throughput; a ring LL call posts fewer "
           "below %.0f x 4096 x ranks bytes (%.0f MiB at 1,024 ranks), down to one a step, which "
           "no fitted row timed\n",
           f->min_net_msgs_per_step, f->min_net_msgs_per_step,
           f->min_net_msgs_per_step * RING_LL_BYTES_PER_CHANNEL_RANK * CAVEAT_EXAMPLE_RANKS /
               (1024.0 * 1024.0));
}

static void text_fit(const struct job *j) {
  const struct pl_calib_fit *f = &j->fit;
  const struct pl_cluster *b = &j->base;
  printf("calibrated '%s' to %zu result rows of >= %.0f bytes (%d iterations)\n", b->name,
         f->n_points, j->min_bytes, f->iterations);
  printf("  launch overhead   %9.2f us per call (base %.2f)\n", f->launch_s * 1e6,
         b->coll_launch_s * 1e6);
  printf("  call floor        %9.2f us (base %.2f)\n", f->floor_s * 1e6, b->coll_floor_s * 1e6);
  if (f->fit_intra)
    printf("  intra (%s)  hop %.3f us (base %.3f), %.1f GB/s per GPU per direction (base %.1f)\n",
           b->intra_kind, f->intra_latency_s * 1e6, b->intra_latency_s * 1e6,
           f->intra_bytes_per_s / 1e9, b->intra_nccl_bytes_per_s / 1e9);
  if (f->fit_inter)
    printf("  inter (%s)  hop %.3f us (base %.3f), %.1f GB/s per node per direction (%s %.1f)\n",
           b->inter_kind, f->inter_latency_s * 1e6, b->inter_latency_s * 1e6,
           f->node_net_bytes_per_s / 1e9,
           f->fit_inter_bw ? "base" : "held at the base: no fitted row is set by it;",
           pl_cluster_node_net_bytes_per_s(b) / 1e9);
  if (f->fit_msg)
    printf("  inter message     %9.2f us per network message on NCCL's proxy (base %.2f)\n",
           f->inter_msg_s * 1e6, b->inter_msg_s * 1e6);
  else if (f->fit_inter && b->inter_msg_s > 0.0)
    printf("  inter message     %9.2f us per network message, held at the base: no fitted row "
           "is set by it\n",
           b->inter_msg_s * 1e6);
  printf("  error over fitted rows: rms %.1f%%, max %.1f%%\n", 100 * f->rms_rel_err,
         100 * f->max_rel_err);
  text_caveats(j);
}

struct row_err {
  double model_s, err;
  struct pl_coll_cost cost;
};

static struct row_err row_error(const struct pl_cluster *c, const struct pl_calib_obs *o,
                                const struct pl_nccl_row *r) {
  struct row_err e = {0};
  struct pl_group g = {o->series->ranks, o->series->ranks_per_node};
  if (pl_coll_time_shared(c, o->series->op, r->bytes, g, o->series->active_per_node, o->algo,
                          &e.cost) == PL_OK) {
    e.model_s = e.cost.time_s;
    e.err = (e.model_s - r->time_s) / r->time_s;
  }
  return e;
}

static void text_series(const struct job *j, size_t k) {
  const struct pl_calib_obs *o = &j->obs[k];
  const struct pl_nccl_series *s = o->series;
  printf("\n%s (line %lld): %s, %lld ranks on %lld node%s, algo %s\n",
         j->logs[j->obs_log[k]]->origin, (long long)s->first_line, pl_coll_op_name(s->op),
         (long long)s->ranks, (long long)s->nodes, s->nodes == 1 ? "" : "s",
         pl_coll_algo_name(o->algo));
  printf("  %12s %12s %12s %8s %10s %10s  %s\n", "size (B)", "measured us", "model us", "error",
         "busbw GB/s", "model GB/s", "model algo/proto");
  double ss = 0.0, mx = 0.0;
  int n = 0;
  for (size_t i = 0; i < s->n_rows; i++) {
    const struct pl_nccl_row *r = &s->rows[i];
    struct row_err e = row_error(&j->fitted, o, r);
    bool fitted = r->bytes >= j->min_bytes;
    printf("  %12.0f %12.2f %12.2f %+7.1f%% %10.2f %10.2f  %s/%s%s\n", r->bytes, r->time_s * 1e6,
           e.model_s * 1e6, 100 * e.err, r->busbw_bytes_per_s / 1e9,
           pl_coll_busbw(s->op, s->ranks, r->bytes, e.model_s) / 1e9,
           pl_coll_algo_name(e.cost.algo), pl_coll_proto_name(e.cost.proto),
           fitted ? "" : "  (not fitted)");
    if (fitted) {
      ss += e.err * e.err;
      mx = fmax(mx, fabs(e.err));
      n++;
    }
  }
  if (n > 0)
    printf("  fitted rows: rms %.1f%%, max %.1f%%\n", 100 * sqrt(ss / n), 100 * mx);
}

static int json_report(const struct job *j, const char *out) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_emit_done(e);
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "base", j->base.name);
  pl_emit_str(e, "out", out);
  pl_emit_obj_begin(e, "fit");
  pl_emit_num(e, "launch_s", j->fit.launch_s);
  pl_emit_num(e, "floor_s", j->fit.floor_s);
  if (j->fit.fit_intra) {
    pl_emit_num(e, "intra_latency_s", j->fit.intra_latency_s);
    pl_emit_num(e, "intra_bytes_per_s", j->fit.intra_bytes_per_s);
  }
  if (j->fit.fit_inter) {
    pl_emit_num(e, "inter_latency_s", j->fit.inter_latency_s);
    pl_emit_num(e, "node_net_bytes_per_s", j->fit.node_net_bytes_per_s);
    pl_emit_bool(e, "node_net_bytes_per_s_fitted", j->fit.fit_inter_bw);
  }
  if (j->fit.fit_msg)
    pl_emit_num(e, "inter_msg_s", j->fit.inter_msg_s);
  /* the free figures the fit left at the base's, as the written file's
   * sources say (src/hw/cluster_save.c) */
  const struct pl_cluster *c = &j->fitted;
  pl_emit_arr_begin(e, "kept");
  if (j->fit.fit_intra && c->kept_intra_lat)
    pl_emit_str(e, NULL, "intra_latency_s");
  if (j->fit.fit_intra && c->kept_intra_bw)
    pl_emit_str(e, NULL, "intra_bytes_per_s");
  if (j->fit.fit_inter && c->kept_inter_lat)
    pl_emit_str(e, NULL, "inter_latency_s");
  if (j->fit.fit_inter && !c->calibrated_nic_bw)
    pl_emit_str(e, NULL, "node_net_bytes_per_s");
  if (j->fit.fit_inter && !j->fit.fit_msg && c->inter_msg_s > 0.0)
    pl_emit_str(e, NULL, "inter_msg_s");
  pl_emit_arr_end(e);
  pl_emit_arr_begin(e, "at_limit"); /* the figures warn_limits names */
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    if (j->fit.at_limit & limits[i].bit)
      pl_emit_str(e, NULL, limits[i].key);
  pl_emit_arr_end(e);
  pl_emit_arr_begin(e, "pairs"); /* algo/proto pairs of the fitted rows (text_caveats) */
  for (int a = 0; a < PL_ALGO_N; a++)
    for (int p = 0; p < PL_PROTO_N; p++)
      if (j->fit.pairs_seen & PL_CALIB_PAIR(a, p)) {
        char pair[64];
        snprintf(pair, sizeof pair, "%s/%s", pl_coll_algo_name((enum pl_coll_algo)a),
                 pl_coll_proto_name((enum pl_coll_proto)p));
        pl_emit_str(e, NULL, pair);
      }
  pl_emit_arr_end(e);
  pl_emit_num(e, "min_net_msgs_per_step", j->fit.min_net_msgs_per_step);
  pl_emit_int(e, "points", (int64_t)j->fit.n_points);
  pl_emit_num(e, "rms_rel_err", j->fit.rms_rel_err);
  pl_emit_num(e, "max_rel_err", j->fit.max_rel_err);
  pl_emit_obj_end(e);
  pl_emit_arr_begin(e, "series");
  for (size_t k = 0; k < j->n_obs; k++) {
    const struct pl_calib_obs *o = &j->obs[k];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "log", j->logs[j->obs_log[k]]->origin);
    pl_emit_str(e, "op", pl_coll_op_name(o->series->op));
    pl_emit_int(e, "ranks", o->series->ranks);
    pl_emit_int(e, "nodes", o->series->nodes);
    pl_emit_str(e, "algo", pl_coll_algo_name(o->algo));
    pl_emit_str(e, "warning", j->obs_warn[k][0] != '\0' ? j->obs_warn[k] : NULL);
    pl_emit_arr_begin(e, "rows");
    for (size_t i = 0; i < o->series->n_rows; i++) {
      const struct pl_nccl_row *r = &o->series->rows[i];
      struct row_err er = row_error(&j->fitted, o, r);
      pl_emit_obj_begin(e, NULL);
      pl_emit_num(e, "bytes", r->bytes);
      pl_emit_num(e, "measured_s", r->time_s);
      pl_emit_num(e, "model_s", er.model_s);
      pl_emit_num(e, "rel_err", er.err);
      pl_emit_str(e, "algo", pl_coll_algo_name(er.cost.algo));
      pl_emit_str(e, "proto", pl_coll_proto_name(er.cost.proto));
      pl_emit_bool(e, "fitted", r->bytes >= j->min_bytes);
      pl_emit_obj_end(e);
    }
    pl_emit_arr_end(e);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  /* the logs' parse warnings as print_warnings writes them on stderr (which the
   * C API and Python do not show): "'LOG': line 12: ..." */
  pl_emit_arr_begin(e, "warnings");
  for (int i = 0; i < j->n_logs; i++) {
    const struct pl_nccl_log *log = j->logs[i];
    char line[512];
    for (size_t w = 0; w < log->n_warnings && w < PL_NCCL_WARNINGS_KEPT; w++) {
      snprintf(line, sizeof line, "'%s': %s", log->origin, log->warnings[w]);
      pl_emit_str(e, NULL, line);
    }
    if (log->n_warnings > PL_NCCL_WARNINGS_KEPT) {
      snprintf(line, sizeof line, "'%s': %zu more warnings", log->origin,
               log->n_warnings - PL_NCCL_WARNINGS_KEPT);
      pl_emit_str(e, NULL, line);
    }
  }
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

/* Name the fitted cluster after the output file and say where it came from. */
static void label(struct job *j, const char *out, char *note, size_t n) {
  const char *base = strrchr(out, '/');
  base = base ? base + 1 : out;
  size_t stem = strcspn(base, ".");
  snprintf(j->fitted.name, sizeof j->fitted.name, "%.*s",
           (int)(stem < sizeof j->fitted.name ? stem : sizeof j->fitted.name - 1), base);
  snprintf(j->fitted.description, sizeof j->fitted.description, "%s, calibrated to %d nccl-tests log%s",
           j->base.name, j->n_logs, j->n_logs == 1 ? "" : "s");
  int used = snprintf(note, n, "plateau calibrate nccl from base cluster '%s'; logs:", j->base.name);
  for (int i = 0; i < j->n_logs && used > 0 && (size_t)used < n; i++)
    used += snprintf(note + used, n - (size_t)used, " %s", j->logs[i]->origin);
  if (used > 0 && (size_t)used < n)
    snprintf(note + used, n - (size_t)used, "; rms error %.1f%%, max %.1f%% over %zu rows >= %.0f B",
             100 * j->fit.rms_rel_err, 100 * j->fit.max_rel_err, j->fit.n_points, j->min_bytes);
}

static int calibrate(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *cl = cli_get(a, "cluster"), *out = cli_get(a, "out");
  if (cl == NULL || out == NULL)
    return cli_usage(&nccl_cmd, "--cluster BASE and --out FILE are required");
  if (a->n_pos == 0)
    return cli_usage(&nccl_cmd, "give at least one nccl-tests log");
  if (pl_cluster_load(cl, &j->base, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  int rc = parse_hints(a, j); /* 2 for a usage error (--format csv) */
  if (rc != 0)
    return rc;
  if (load_logs(a, j) != 0 || parse_algos(cli_get(a, "algo"), j) != 0 || resolve_all(j) != 0)
    return 1;
  if (pl_calib_nccl(&j->base, j->obs, j->n_obs, j->min_bytes, &j->fitted, &j->fit, &d) != PL_OK)
    return cli_fail("calibrate nccl: %s", d.msg);
  char note[2048];
  label(j, out, note, sizeof note);
  if (pl_cluster_save(&j->fitted, out, note, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (j->fmt == CLI_FORMAT_JSON) {
    warn_limits(&j->fit);
    return json_report(j, out);
  }
  warn_limits(&j->fit);
  text_fit(j);
  for (size_t k = 0; k < j->n_obs; k++)
    text_series(j, k);
  printf("\nwrote %s (use it as --cluster %s)\n", out, out);
  return 0;
}

static int calibrate_nccl(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&nccl_cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  if (cli_output_ok(&args, "out") != 0 || cli_inputs_distinct(&args, "log") != 0)
    return 1;
  static struct job j; /* logs and fit state: off the stack */
  memset(&j, 0, sizeof j);
  rc = calibrate(&args, &j);
  for (int i = 0; i < j.n_logs; i++)
    pl_nccl_log_free(j.logs[i]);
  return rc;
}

static void usage(FILE *f) {
  fprintf(f, "usage: plateau calibrate nccl LOG... --cluster BASE --out FILE.json [options]\n"
             "       plateau calibrate trace ...\n"
             "       plateau calibrate compute TRACE... --gpu BASE --out FILE.json [options]\n\n"
             "Fit plateau's models to measurements.\n"
             "  nccl    fit a cluster's fabric figures to nccl-tests logs "
             "(plateau calibrate nccl --help)\n"
             "  trace   fit from PyTorch profiler traces (plateau calibrate trace --help)\n"
             "  compute fit a GPU's compute efficiencies to the kernels of traces recorded with "
             "shapes\n          (plateau calibrate compute --help)\n\n"
             "exit status: 0 ok, 1 bad input or failed run, 2 usage error\n");
}

int cmd_calibrate(int argc, char **argv) {
  if (argc < 2) {
    usage(cli_err());
    return 2;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "nccl") == 0)
    return calibrate_nccl(argc - 1, argv + 1);
  if (strcmp(argv[1], "trace") == 0)
    return cmd_calibrate_trace(argc - 1, argv + 1);
  if (strcmp(argv[1], "compute") == 0)
    return cmd_calibrate_compute(argc - 1, argv + 1);
  fprintf(cli_err(), "plateau: calibrate: unknown kind '%s' (expected nccl, trace or compute)\n",
          argv[1]);
  usage(cli_err());
  return 2;
}
