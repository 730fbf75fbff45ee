/* cmd_calibrate_compute.c: `plateau calibrate compute TRACE... --gpu BASE
 * --out FILE` fits a GPU file's compute efficiencies to the kernels of
 * PyTorch profiler traces recorded with record_shapes=True (src/calib/
 * compute_*.c, docs/ground-truth.md) and writes a GPU file usable as
 * --gpu FILE. It prints each fitted figure before and after with the ops and
 * kernels behind it and its residual, the kernel time predicted with the base
 * and the fitted file against the measured, and the kernels it could not use,
 * per op name and reason. */
#include <stdio.h>
#include <string.h>

#include <plateau/calib_compute.h>
#include <plateau/calib_trace.h>
#include <plateau/emit.h>
#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"

static const struct cli_opt compute_opts[] = {
    {"gpu", "G", "base GPU preset or file to start from (required)"},
    {"out", "FILE", "write the fitted GPU file here (required)"},
    {"overlap", "M",
     "exclude|correct|include: ops beside a collective (default exclude, docs/ground-truth.md)"},
    {"format", "F", "text|json report (default text)"},
};
static const struct cli_cmd compute_cmd = {
    "calibrate compute",
    "plateau calibrate compute TRACE... --gpu BASE --out FILE.json [options]",
    "Fit the GEMM rate and per-tile cost, the FP8 GEMM rate, the attention forward and backward "
    "fractions and the HBM fraction of BASE to the GPU kernels of Kineto traces recorded with "
    "record_shapes=True (kernels linked to their CPU op by correlation id), by least squares on "
    "relative time error; write the result as a GPU file.",
    compute_opts, sizeof compute_opts / sizeof compute_opts[0], true};

struct job {
  struct pl_gpu base, fitted;
  struct pl_compute_trace *traces[CLI_MAX_POSITIONAL];
  int n_traces;
  struct pl_compute_obs *obs;
  size_t n_obs;
  struct pl_compute_fit fit;
  enum cli_format fmt;
  enum pl_calib_trace_overlap overlap; /* --overlap */
  size_t n_beside;                     /* ops beside a collective, over the traces */
};

static const char *const param_names[PL_CP_COUNT] = {
    "gemm.mamf", "gemm.tile_fixed_k", "gemm.mamf_fp8", "attention.fwd_fraction",
    "attention.bwd_fraction", "hbm_fraction"};

/* Ops that ran beside a collective (pl_compute_trace.beside): left out
 * (exclude), shortened to what they would take alone by the base's
 * overlap_slowdown (correct: the inverse of the step simulator's rule), or
 * taken as measured (include). */
static void add_beside(struct job *j, const struct pl_compute_trace *t) {
  for (size_t k = 0; k < t->n_beside; k++) {
    if (j->overlap == PL_CALIB_TRACE_EXCLUDE)
      continue;
    j->obs[j->n_obs++] = j->overlap == PL_CALIB_TRACE_CORRECT
                             ? pl_compute_obs_alone(&t->beside[k], j->base.eff.overlap_slowdown)
                             : t->beside[k];
  }
}

static int load(const struct cli_args *a, struct job *j) {
  size_t total = 0;
  for (int i = 0; i < a->n_pos; i++) {
    struct pl_diag d;
    pl_diag_clear(&d);
    if (pl_compute_obs_load(a->pos[i], &j->traces[i], &d) != PL_OK)
      return cli_fail("%s", d.msg);
    j->n_traces++;
    total += j->traces[i]->n_obs + j->traces[i]->n_beside;
    j->n_beside += j->traces[i]->n_beside;
  }
  j->obs = pl_calloc(total ? total : 1, sizeof *j->obs);
  if (j->obs == NULL)
    return cli_fail("calibrate compute: out of memory");
  for (int i = 0; i < j->n_traces; i++) {
    if (j->traces[i]->n_obs > 0) /* a trace with no usable kernel has obs NULL */
      memcpy(j->obs + j->n_obs, j->traces[i]->obs, j->traces[i]->n_obs * sizeof *j->obs);
    j->n_obs += j->traces[i]->n_obs;
  }
  for (int i = 0; i < j->n_traces; i++)
    add_beside(j, j->traces[i]);
  return 0;
}

/* A skip entry is "not used" unless it is the ops beside a collective that
 * --overlap correct|include used after all. */
static bool unused(const struct job *j, const struct pl_compute_skip *k) {
  return j->overlap == PL_CALIB_TRACE_EXCLUDE || strcmp(k->why, "ran beside a collective") != 0;
}

static void fmt_param(char *buf, size_t n, int id, double v) {
  if (id == PL_CP_GEMM_RATE || id == PL_CP_GEMM_FP8_RATE)
    snprintf(buf, n, "%.1f TFLOP/s", v / 1e12);
  else if (id == PL_CP_GEMM_FIXED_K)
    snprintf(buf, n, "%.0f", v);
  else
    snprintf(buf, n, "%.4f", v);
}

static void text_report(const struct job *j, const char *out) {
  printf("plateau calibrate compute: %s from %d trace%s, %zu ops with shapes\n", j->base.name,
         j->n_traces, j->n_traces == 1 ? "" : "s", j->n_obs);
  if (j->n_beside > 0)
    printf("  ops beside a collective: %zu, %s\n", j->n_beside,
           j->overlap == PL_CALIB_TRACE_EXCLUDE   ? "left out (--overlap exclude)"
           : j->overlap == PL_CALIB_TRACE_CORRECT ? "shortened by the base's overlap_slowdown"
                                                  : "taken as measured (--overlap include)");
  printf("  %-24s %16s %16s %7s %8s %9s\n", "figure", "base", "fitted", "ops", "kernels",
         "rms err");
  for (int i = 0; i < PL_CP_COUNT; i++) {
    const struct pl_compute_param *p = &j->fit.p[i];
    char b[32], f[32], r[16] = "-";
    fmt_param(b, sizeof b, i, p->before);
    fmt_param(f, sizeof f, i, p->after);
    if (p->ops > 0)
      snprintf(r, sizeof r, "%.1f%%", 100 * p->rms_rel_err);
    printf("  %-24s %16s %16s %7lld %8lld %9s%s\n", param_names[i], b, f, (long long)p->ops,
           (long long)p->kernels, r, p->fitted ? "" : "  (not fitted: kept)");
  }
  const struct pl_compute_fit *t = &j->fit;
  printf("\nkernel time of those ops: measured %.3f ms, predicted %.3f ms with %s (%+.1f%%), "
         "%.3f ms fitted (%+.1f%%)\n",
         t->measured_s * 1e3, t->predicted_base_s * 1e3, j->base.name,
         100 * (t->predicted_base_s / t->measured_s - 1), t->predicted_s * 1e3,
         100 * (t->predicted_s / t->measured_s - 1));
  for (int i = 0; i < j->n_traces; i++) {
    const struct pl_compute_trace *tr = j->traces[i];
    double used = 0;
    for (size_t k = 0; k < tr->n_obs; k++)
      used += tr->obs[k].time_s;
    printf("\n%s: %lld kernels, %.3f ms; with shapes %.1f%% of kernel time; unlinked %lld "
           "kernels (%.3f ms)\n",
           tr->origin, (long long)tr->kernels, tr->kernel_s * 1e3,
           tr->kernel_s > 0 ? 100 * used / tr->kernel_s : 0, (long long)tr->unlinked_kernels,
           tr->unlinked_s * 1e3);
    printf("  not used, by op (largest first):\n");
    size_t shown = 0, more = 0;
    for (size_t k = 0; k < tr->n_skips; k++) {
      if (!unused(j, &tr->skips[k]))
        continue;
      if (shown == 12) {
        more++;
        continue;
      }
      shown++;
      printf("    %-44s %6lld ops %7lld kernels %10.3f ms  %s\n", tr->skips[k].name,
             (long long)tr->skips[k].ops, (long long)tr->skips[k].kernels,
             tr->skips[k].time_s * 1e3, tr->skips[k].why);
    }
    if (more > 0 || tr->skips_dropped > 0)
      printf("    ... %zu more op names (%lld ops beyond the %d names kept)\n", more,
             (long long)tr->skips_dropped, PL_COMPUTE_MAX_NAMES);
  }
  printf("\nwrote %s (use it as --gpu %s)\n", out, out);
}

static void json_trace(struct pl_emit *e, const struct job *j, const struct pl_compute_trace *tr) {
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "path", tr->origin);
  pl_emit_int(e, "kernels", tr->kernels);
  pl_emit_num(e, "kernel_s", tr->kernel_s);
  pl_emit_int(e, "ops_with_shapes", (int64_t)tr->n_obs);
  pl_emit_int(e, "unlinked_kernels", tr->unlinked_kernels);
  pl_emit_num(e, "unlinked_s", tr->unlinked_s);
  pl_emit_arr_begin(e, "not_used");
  for (size_t k = 0; k < tr->n_skips; k++) {
    if (!unused(j, &tr->skips[k]))
      continue;
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", tr->skips[k].name);
    pl_emit_str(e, "why", tr->skips[k].why);
    pl_emit_int(e, "ops", tr->skips[k].ops);
    pl_emit_int(e, "kernels", tr->skips[k].kernels);
    pl_emit_num(e, "time_s", tr->skips[k].time_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_int(e, "not_used_dropped_ops", tr->skips_dropped);
  pl_emit_obj_end(e);
}

static int json_report(const struct job *j, const char *out) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_emit_done(e);
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "base", j->base.name);
  pl_emit_str(e, "out", out);
  pl_emit_obj_begin(e, "beside_collective");
  pl_emit_int(e, "ops", (int64_t)j->n_beside);
  pl_emit_str(e, "overlap", cli_overlap_name(j->overlap));
  pl_emit_num(e, "overlap_slowdown", j->base.eff.overlap_slowdown);
  pl_emit_obj_end(e);
  pl_emit_arr_begin(e, "figures");
  for (int i = 0; i < PL_CP_COUNT; i++) {
    const struct pl_compute_param *p = &j->fit.p[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "name", param_names[i]);
    pl_emit_bool(e, "fitted", p->fitted);
    pl_emit_num(e, "base", p->before);
    pl_emit_num(e, "value", p->after);
    pl_emit_int(e, "ops", p->ops);
    pl_emit_int(e, "kernels", p->kernels);
    pl_emit_num(e, "rms_rel_err", p->rms_rel_err);
    pl_emit_num(e, "measured_s", p->measured_s);
    pl_emit_num(e, "predicted_s", p->predicted_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_num(e, "measured_s", j->fit.measured_s);
  pl_emit_num(e, "predicted_base_s", j->fit.predicted_base_s);
  pl_emit_num(e, "predicted_s", j->fit.predicted_s);
  pl_emit_arr_begin(e, "traces");
  for (int i = 0; i < j->n_traces; i++)
    json_trace(e, j, j->traces[i]);
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

static void note_of(const struct job *j, char *note, size_t n) {
  int used = snprintf(note, n, "from base GPU '%s'; traces:", j->base.name);
  for (int i = 0; i < j->n_traces && used > 0 && (size_t)used < n; i++) {
    const char *p = strrchr(j->traces[i]->origin, '/');
    used += snprintf(note + used, n - (size_t)used, " %s", p ? p + 1 : j->traces[i]->origin);
  }
}

static int calibrate(const struct cli_args *a, struct job *j) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *gpu = cli_get(a, "gpu"), *out = cli_get(a, "out");
  if (gpu == NULL || out == NULL)
    return cli_usage(&compute_cmd, "--gpu BASE and --out FILE are required");
  if (a->n_pos == 0)
    return cli_usage(&compute_cmd, "give at least one trace");
  if (cli_get_format(a, &j->fmt) != 0)
    return 2;
  if (j->fmt == CLI_FORMAT_CSV)
    return cli_usage(&compute_cmd, "--format: csv is not offered here (text|json)");
  if (cli_get_overlap(a, &j->overlap) != 0)
    return 1;
  if (pl_gpu_load(gpu, &j->base, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (load(a, j) != 0)
    return 1;
  if (pl_calib_compute(&j->base, j->obs, j->n_obs, &j->fitted, &j->fit, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  char note[1024];
  note_of(j, note, sizeof note);
  if (pl_calib_compute_save(gpu, &j->fitted, &j->fit, note, out, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (j->fmt == CLI_FORMAT_JSON)
    return json_report(j, out);
  text_report(j, out);
  return 0;
}

int cmd_calibrate_compute(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&compute_cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  if (cli_output_ok(&args, "out") != 0 || cli_inputs_distinct(&args, "trace") != 0)
    return 1;
  static struct job j; /* traces and fit state: off the stack */
  memset(&j, 0, sizeof j);
  rc = calibrate(&args, &j);
  for (int i = 0; i < j.n_traces; i++)
    pl_compute_trace_free(j.traces[i]);
  pl_free(j.obs);
  return rc;
}
