/* cmd_calibrate_trace.c: `plateau calibrate trace PATH... --cluster BASE
 * --out FILE` fits a cluster's fabric figures to the NCCL/RCCL calls measured
 * in Kineto traces, the way `calibrate nccl` fits them to nccl-tests logs:
 * the calls become nccl-tests-like series (pl_calib_trace_series: one row per
 * message size, sizes from the kernels' or record_param_comms' args), the
 * fit is net's pl_calib_nccl, and the result is the same kind of cluster
 * file. Calls that ran beside compute are left out by default, or corrected
 * by the GPU's comm_overlap_slowdown, or taken as measured (--overlap); with
 * too few calls that ran alone it falls back and says so. Definitions and
 * caveats: docs/trace.md section 10. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/calib_trace.h>
#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"
#include "trace_cli.h"

static const struct cli_opt opts[] = {
    {"cluster", "C", "base cluster preset or file to start from (required)"},
    {"out", "FILE", "write the fitted cluster file here (required)"},
    {"min-bytes", "SIZE", "fit message sizes of at least this (default 1M)"},
    {"stat", "S", "min|median: a size's time over its calls (default min, see docs/trace.md 10)"},
    {"ranks-per-node", "N", "for groups whose ranks the traces do not list (default: skip them)"},
    {"overlap", "M",
     "exclude|correct|include: calls beside compute (default exclude, see docs/trace.md 10.2)"},
    {"gpu", "G", "GPU preset or file whose comm_overlap_slowdown corrects (default: the trace's)"},
    TRACE_READ_OPTS,
    {"format", "F", "text|json report (default text)"},
};

static const struct cli_cmd cmd = {
    "calibrate trace", "plateau calibrate trace PATH... --cluster BASE --out FILE.json [options]",
    "Fit the launch overhead, the call floor and the latency and bandwidth of each fabric tier\n"
    "to the collective calls in PyTorch profiler (Kineto) traces (one file per rank, or\n"
    "directories of them), starting from BASE; write the result as a cluster file.",
    opts, sizeof opts / sizeof opts[0], true,
};

struct job {
  struct pl_cluster base, fitted;
  struct pl_trace_set *set;
  struct pl_calib_trace *ct;
  struct pl_calib_obs obs[PL_NCCL_MAX_SERIES];
  struct pl_calib_trace_opts co;
  double min_bytes;
  enum cli_format fmt;
  struct pl_calib_fit fit;
  enum pl_calib_trace_overlap asked; /* --overlap; co.overlap is what was used */
  struct pl_gpu gpu;                 /* for comm_overlap_slowdown; name "" when unknown */
  char fallback[320];                /* why co.overlap differs from asked, "" when not */
};

static int read_options(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *mb = cli_get(a, "min-bytes"), *stat = cli_get(a, "stat");
  j->min_bytes = 1048576.0;
  if (mb != NULL && pl_size_parse(mb, &j->min_bytes, &d) != PL_OK)
    return cli_fail("--min-bytes: %s", d.msg);
  if (stat != NULL && strcmp(stat, "min") != 0 && strcmp(stat, "median") != 0)
    return cli_fail("--stat: unknown value '%s' (expected min|median)", stat);
  j->co.stat = stat != NULL && strcmp(stat, "median") == 0 ? PL_CALIB_TRACE_MEDIAN
                                                           : PL_CALIB_TRACE_MIN;
  if (cli_get_overlap(a, &j->asked) != 0)
    return 1;
  if (cli_get_int(a, "ranks-per-node", &j->co.ranks_per_node) != 0)
    return 1;
  if (j->co.ranks_per_node < 0)
    return cli_fail("--ranks-per-node: must be positive");
  int rc = cli_get_format(a, &j->fmt);
  if (rc != 0)
    return rc;
  /* text and json only, as calibrate compute says: csv printed the text report */
  if (j->fmt == CLI_FORMAT_CSV)
    return cli_usage(&cmd, "--format: csv is not offered here (text|json)");
  return 0;
}

static double model_s(const struct job *j, const struct pl_calib_obs *o, double bytes,
                      struct pl_coll_cost *cost) {
  struct pl_group g = {o->series->ranks, o->series->ranks_per_node};
  memset(cost, 0, sizeof *cost);
  return pl_coll_time_shared(&j->fitted, o->series->op, bytes, g, o->series->active_per_node,
                             o->algo, cost) == PL_OK
             ? cost->time_s
             : 0;
}

/* One series: per message size, measured vs fitted model time. */
static void text_series(const struct job *j, size_t k) {
  const struct pl_nccl_series *s = &j->ct->series[k];
  printf("\n%s, %lld ranks on %lld node%s%s\n", pl_coll_op_name(s->op), (long long)s->ranks,
         (long long)s->nodes, s->nodes == 1 ? "" : "s",
         !j->ct->series_fallback[k] ? ""
         : j->co.comm_overlap_slowdown > 0 && s->nodes == 1
             ? " (no call of a fitted size ran alone: calls beside compute corrected)"
             : " (no call of a fitted size ran alone: calls beside compute as measured)");
  /* corrected: the series' calls beside compute had the contention taken out
   * (inside one node, with a slowdown, in correct mode or exclude's fallback) */
  bool corrected = s->nodes == 1 && j->co.comm_overlap_slowdown > 0 &&
                   (j->co.overlap == PL_CALIB_TRACE_CORRECT || j->ct->series_fallback[k]);
  printf("  %12s %6s %12s %12s %8s %10s  %s\n", "size (B)", "calls",
         corrected ? "corrected us" : "measured us", "model us", "error", "busbw GB/s",
         "model algo/proto");
  for (size_t i = 0; i < s->n_rows; i++) {
    const struct pl_nccl_row *r = &s->rows[i];
    struct pl_coll_cost c;
    double m = model_s(j, &j->obs[k], r->bytes, &c);
    printf("  %12.0f %6lld %12.2f %12.2f %+7.1f%% %10.2f  %s/%s%s\n", r->bytes,
           (long long)j->ct->row_calls[k][i], r->time_s * 1e6, m * 1e6,
           100 * (m - r->time_s) / r->time_s, r->busbw_bytes_per_s / 1e9,
           pl_coll_algo_name(c.algo), pl_coll_proto_name(c.proto),
           r->bytes >= j->min_bytes ? "" : "  (not fitted)");
  }
}

static void text_report(const struct job *j, const char *out) {
  const struct pl_calib_fit *f = &j->fit;
  const struct pl_calib_trace *t = j->ct;
  printf("calibrated '%s' to %zu message sizes of >= %.0f bytes from %lld of %lld collective "
         "calls (%s per size)\n",
         j->base.name, f->n_points, j->min_bytes, (long long)t->used, (long long)t->calls,
         j->co.stat == PL_CALIB_TRACE_MIN ? "fastest call" : "median call");
  if (t->unsized + t->unplaced + t->unsupported > 0)
    printf("  left out: %lld without a message size, %lld without group placement, %lld of an "
           "op without a cost model or of 1 rank\n",
           (long long)t->unsized, (long long)t->unplaced, (long long)t->unsupported);
  if (t->overlapped > 0 && j->co.overlap == PL_CALIB_TRACE_EXCLUDE)
    printf("  compute beside the call: %lld calls; %lld left out (fitted the calls that ran "
           "alone), %lld corrected in series with none that ran alone\n",
           (long long)t->overlapped, (long long)t->excluded, (long long)t->corrected);
  else if (t->overlapped > 0 && j->co.overlap == PL_CALIB_TRACE_CORRECT)
    printf("  compute beside the call: %lld calls; %lld inside one node shortened by %s's "
           "comm_overlap_slowdown %.2f\n",
           (long long)t->overlapped, (long long)t->corrected, j->gpu.name,
           j->gpu.eff.comm_overlap_slowdown);
  else if (t->overlapped > 0)
    printf("  compute beside the call: %lld calls, taken as measured (the fit includes their "
           "contention)\n",
           (long long)t->overlapped);
  if (j->fallback[0])
    printf("  note: %s\n", j->fallback);
  printf("  launch overhead   %9.2f us per call (base %.2f)\n", f->launch_s * 1e6,
         j->base.coll_launch_s * 1e6);
  printf("  call floor        %9.2f us (base %.2f)\n", f->floor_s * 1e6, j->base.coll_floor_s * 1e6);
  if (f->fit_intra)
    printf("  intra (%s)  hop %.3f us (base %.3f), %.1f GB/s per GPU per direction (base %.1f)\n",
           j->base.intra_kind, f->intra_latency_s * 1e6, j->base.intra_latency_s * 1e6,
           f->intra_bytes_per_s / 1e9, j->base.intra_nccl_bytes_per_s / 1e9);
  if (f->fit_inter)
    printf("  inter (%s)  hop %.3f us (base %.3f), %.1f GB/s per node per direction (base %.1f)\n",
           j->base.inter_kind, f->inter_latency_s * 1e6, j->base.inter_latency_s * 1e6,
           f->node_net_bytes_per_s / 1e9, pl_cluster_node_net_bytes_per_s(&j->base) / 1e9);
  printf("  error over fitted sizes: rms %.1f%%, max %.1f%%\n", 100 * f->rms_rel_err,
         100 * f->max_rel_err);
  for (size_t k = 0; k < t->n_series; k++)
    text_series(j, k);
  printf("\nwrote %s (use it as --cluster %s)\n", out, out);
}

static void json_series(struct pl_emit *e, const struct job *j, size_t k) {
  const struct pl_nccl_series *s = &j->ct->series[k];
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "op", pl_coll_op_name(s->op));
  pl_emit_int(e, "ranks", s->ranks);
  pl_emit_int(e, "nodes", s->nodes);
  pl_emit_bool(e, "overlap_fallback", j->ct->series_fallback[k]);
  pl_emit_arr_begin(e, "rows");
  for (size_t i = 0; i < s->n_rows; i++) {
    const struct pl_nccl_row *r = &s->rows[i];
    struct pl_coll_cost c;
    double m = model_s(j, &j->obs[k], r->bytes, &c);
    pl_emit_obj_begin(e, NULL);
    pl_emit_num(e, "bytes", r->bytes);
    pl_emit_int(e, "calls", j->ct->row_calls[k][i]);
    pl_emit_num(e, "measured_s", r->time_s);
    pl_emit_num(e, "model_s", m);
    pl_emit_num(e, "rel_err", (m - r->time_s) / r->time_s);
    pl_emit_bool(e, "fitted", r->bytes >= j->min_bytes);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
}

static void json_fit(struct pl_emit *e, const struct pl_calib_fit *f) {
  pl_emit_obj_begin(e, "fit");
  pl_emit_num(e, "launch_s", f->launch_s);
  pl_emit_num(e, "floor_s", f->floor_s);
  if (f->fit_intra) {
    pl_emit_num(e, "intra_latency_s", f->intra_latency_s);
    pl_emit_num(e, "intra_bytes_per_s", f->intra_bytes_per_s);
  }
  if (f->fit_inter) {
    pl_emit_num(e, "inter_latency_s", f->inter_latency_s);
    pl_emit_num(e, "node_net_bytes_per_s", f->node_net_bytes_per_s);
  }
  pl_emit_int(e, "points", (int64_t)f->n_points);
  pl_emit_num(e, "rms_rel_err", f->rms_rel_err);
  pl_emit_num(e, "max_rel_err", f->max_rel_err);
  pl_emit_obj_end(e);
}

static int json_report(const struct job *j, const char *out) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_fail("out of memory");
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "base", j->base.name);
  pl_emit_str(e, "out", out);
  pl_emit_str(e, "stat", j->co.stat == PL_CALIB_TRACE_MIN ? "min" : "median");
  pl_emit_obj_begin(e, "calls");
  pl_emit_int(e, "total", j->ct->calls);
  pl_emit_int(e, "used", j->ct->used);
  pl_emit_int(e, "unsized", j->ct->unsized);
  pl_emit_int(e, "unplaced", j->ct->unplaced);
  pl_emit_int(e, "unsupported", j->ct->unsupported);
  pl_emit_int(e, "overlapped", j->ct->overlapped);
  pl_emit_int(e, "excluded", j->ct->excluded);
  pl_emit_int(e, "corrected", j->ct->corrected);
  pl_emit_obj_end(e);
  pl_emit_obj_begin(e, "overlap");
  pl_emit_str(e, "asked", cli_overlap_name(j->asked));
  pl_emit_str(e, "used", cli_overlap_name(j->co.overlap));
  if (j->gpu.name[0]) {
    pl_emit_str(e, "gpu", j->gpu.name);
    pl_emit_num(e, "comm_overlap_slowdown", j->gpu.eff.comm_overlap_slowdown);
  } else {
    pl_emit_null(e, "gpu");
    pl_emit_null(e, "comm_overlap_slowdown");
  }
  if (j->fallback[0])
    pl_emit_str(e, "fallback", j->fallback);
  else
    pl_emit_null(e, "fallback");
  pl_emit_obj_end(e);
  json_fit(e, &j->fit);
  pl_emit_arr_begin(e, "series");
  for (size_t k = 0; k < j->ct->n_series; k++)
    json_series(e, j, k);
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

/* Name the fitted cluster after the output file and say where it came from. */
static void label(struct job *j, const struct cli_args *a, const char *out, char *note,
                  size_t n) {
  const char *base = strrchr(out, '/');
  base = base ? base + 1 : out;
  size_t stem = strcspn(base, ".");
  snprintf(j->fitted.name, sizeof j->fitted.name, "%.*s",
           (int)(stem < sizeof j->fitted.name ? stem : sizeof j->fitted.name - 1), base);
  snprintf(j->fitted.description, sizeof j->fitted.description,
           "%s, calibrated to the collectives of %d trace file%s", j->base.name,
           j->set->n_ranks, j->set->n_ranks == 1 ? "" : "s");
  int used = snprintf(note, n,
                      "plateau calibrate trace from base cluster '%s' (%s per size, "
                      "calls beside compute: %s); traces:",
                      j->base.name, j->co.stat == PL_CALIB_TRACE_MIN ? "min" : "median",
                      cli_overlap_name(j->co.overlap));
  for (int i = 0; i < a->n_pos && used > 0 && (size_t)used < n; i++)
    used += snprintf(note + used, n - (size_t)used, " %s", a->pos[i]);
  if (used > 0 && (size_t)used < n)
    snprintf(note + used, n - (size_t)used, "; rms error %.1f%%, max %.1f%% over %zu sizes >= %.0f B",
             100 * j->fit.rms_rel_err, 100 * j->fit.max_rel_err, j->fit.n_points, j->min_bytes);
}

/* The GPU whose comm_overlap_slowdown corrects overlapped calls: --gpu, else
 * the preset named by the trace's device ("device_names"), else none. */
static int find_gpu(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *g = cli_get(a, "gpu");
  if (g == NULL)
    g = pl_gpu_preset_for_device(j->set->ranks[0].device);
  if (g != NULL && pl_gpu_load(g, &j->gpu, &d) != PL_OK)
    return cli_fail("--gpu: %s", d.msg);
  if (g == NULL)
    j->gpu.name[0] = '\0';
  j->co.comm_overlap_slowdown = g != NULL ? j->gpu.eff.comm_overlap_slowdown : 0;
  if (j->asked == PL_CALIB_TRACE_CORRECT && g == NULL)
    return cli_fail("--overlap correct: the traces' GPU ('%s') is not a preset: give --gpu G",
                    j->set->ranks[0].device);
  return 0;
}

/* Group the calls as asked. With too few sizes among the calls that ran
 * alone, fall back to correcting the others (when the GPU has a slowdown) or
 * to taking them as measured, and say which and why. */
static int group(struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  j->co.overlap = j->asked;
  j->co.min_bytes = j->min_bytes;
  if (pl_calib_trace_series(j->set, &j->co, &j->ct, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  size_t rows = pl_calib_trace_rows(j->ct, j->min_bytes);
  if (j->asked != PL_CALIB_TRACE_EXCLUDE || j->ct->excluded == 0 || rows >= PL_CALIB_NCCL_MIN_ROWS)
    return 0;
  bool correct = j->co.comm_overlap_slowdown > 0;
  snprintf(j->fallback, sizeof j->fallback,
           "leaving out the %lld calls beside compute left %zu message sizes of >= %.0f B from "
           "%lld calls (%d needed): fitted all calls, %s",
           (long long)j->ct->excluded, rows, j->min_bytes, (long long)j->ct->used,
           PL_CALIB_NCCL_MIN_ROWS,
           correct ? "those beside compute corrected by the GPU's comm_overlap_slowdown"
                   : "as measured: the fitted figures include the compute contention (no GPU "
                     "slowdown known; --gpu G)");
  pl_calib_trace_free(j->ct);
  j->ct = NULL;
  j->co.overlap = correct ? PL_CALIB_TRACE_CORRECT : PL_CALIB_TRACE_INCLUDE;
  if (pl_calib_trace_series(j->set, &j->co, &j->ct, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

static int calibrate(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *cl = cli_get(a, "cluster"), *out = cli_get(a, "out");
  struct pl_trace_opts to;
  if (cl == NULL || out == NULL)
    return cli_usage(&cmd, "--cluster BASE and --out FILE are required");
  int rc = read_options(a, j); /* 2 for a usage error (--format csv) */
  if (rc != 0)
    return rc;
  if (trace_read_opts(a, &to) != 0)
    return 1;
  if (pl_cluster_load(cl, &j->base, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  j->co.gpus_per_node = j->base.gpus_per_node;
  if (pl_trace_analyze_calls(a->pos, a->n_pos, &to, &j->set, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (find_gpu(a, j) != 0 || group(j) != 0)
    return 1;
  for (size_t k = 0; k < j->ct->n_series; k++)
    j->obs[k] = (struct pl_calib_obs){&j->ct->series[k], PL_ALGO_AUTO};
  if (pl_calib_nccl(&j->base, j->obs, j->ct->n_series, j->min_bytes, &j->fitted, &j->fit, &d) !=
      PL_OK)
    return cli_fail("calibrate trace: %s", d.msg);
  char note[2048];
  label(j, a, out, note, sizeof note);
  if (pl_cluster_save(&j->fitted, out, note, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (j->fmt == CLI_FORMAT_JSON)
    return json_report(j, out);
  text_report(j, out);
  return 0;
}

int cmd_calibrate_trace(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  if (args.n_pos == 0)
    return cli_usage(&cmd, "no trace files given");
  if (cli_output_ok(&args, "out") != 0)
    return 1;
  static struct job j; /* series and fit state: off the stack */
  memset(&j, 0, sizeof j);
  rc = calibrate(&args, &j);
  pl_calib_trace_free(j.ct);
  pl_trace_set_free(j.set);
  return rc;
}
