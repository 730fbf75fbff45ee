/* cmd_trace.c: `plateau trace analyze PATH...`: measure a run from its Kineto
 * traces (one file per rank) with the metric names `predict` uses.
 *
 * The library (pl_trace_analyze) measures the GPU timeline; this file adds
 * what needs the model or the GPU: tokens/s = tokens per step / step time and
 * MFU = model FLOPs per step / (step time x GPUs x peak), with model FLOPs
 * per token = 6N + 12 * layers * heads * head_dim * seq (PaLM, Chowdhery et
 * al. 2022, appendix B; docs/model.md), or --flops-per-step as given.
 * Definitions of every output field: docs/trace.md. `plateau trace compare`
 * is in cmd_trace_compare.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"
#include "trace_cli.h"

static const struct cli_opt opts[] = {
    {"format", "F", "text|json|csv (default text)"},
    TRACE_READ_OPTS,
    {"model", "M", "model preset or file, for MFU (with --tokens-per-step)"},
    {"tokens-per-step", "T", "tokens per optimizer step, all ranks together"},
    {"seq", "L", "sequence length for the attention FLOPs (default: the model's)"},
    {"flops-per-step", "F", "model FLOPs per step, all ranks (instead of --model)"},
    {"gpu", "G", "GPU preset or peak such as '989 TFLOP/s' (default: from the trace)"},
    {"top", "N", "kernel names listed, longest total time first (default 10)"},
};

static const struct cli_cmd cmd = {
    "trace analyze", "plateau trace analyze [options] PATH...",
    "Measure step time, compute, exposed and overlapped communication, memory traffic, idle\n"
    "time and collective bandwidth from PyTorch profiler (Kineto) traces, one file per rank\n"
    "(.json or .json.gz; a directory means its trace files). Definitions: docs/trace.md.",
    opts, sizeof opts / sizeof opts[0], true,
};

/* Throughput and MFU, when the options allow them. */
struct perf {
  double tokens_per_step;   /* 0 unknown */
  double flops_per_step;    /* 0 unknown */
  double peak_flops_per_s;  /* 0 unknown */
  double gpus;
  double tokens_per_s, mfu, tflops_per_gpu;
  char peak_from[64];       /* what the peak came from */
};

static int load_peak(const struct cli_args *a, const struct pl_trace_set *s, struct perf *p) {
  const char *g = cli_get(a, "gpu");
  struct pl_diag d;
  pl_diag_clear(&d);
  if (g != NULL && pl_unit_parse(g, PL_UNIT_FLOPS_PER_S, &p->peak_flops_per_s, &d) == PL_OK) {
    if (!(p->peak_flops_per_s > 0))
      return cli_fail("--gpu: a peak of '%s' leaves MFU undefined; give a positive rate", g);
    snprintf(p->peak_from, sizeof p->peak_from, "--gpu %s", g);
    return 0;
  }
  if (g == NULL && s->n_ranks > 0)
    g = pl_gpu_preset_for_device(s->ranks[0].device); /* data/gpus "device_names" */
  if (g == NULL)
    return 0;
  struct pl_gpu gpu;
  pl_diag_clear(&d);
  if (pl_gpu_load(g, &gpu, &d) != PL_OK)
    return cli_get(a, "gpu") ? cli_fail("--gpu: %s", d.msg) : 0;
  p->peak_flops_per_s = pl_gpu_peak_flops_per_s(&gpu, PL_DTYPE_BF16);
  snprintf(p->peak_from, sizeof p->peak_from, "%s bf16 dense", gpu.name);
  return 0;
}

static int load_flops(const struct cli_args *a, struct perf *p) {
  if (cli_get_double(a, "tokens-per-step", &p->tokens_per_step) ||
      cli_get_double(a, "flops-per-step", &p->flops_per_step))
    return 1;
  if ((cli_get(a, "tokens-per-step") && !(p->tokens_per_step > 0)) ||
      (cli_get(a, "flops-per-step") && !(p->flops_per_step > 0)))
    return cli_fail("--tokens-per-step and --flops-per-step must be positive");
  const char *model = cli_get(a, "model");
  if (cli_get(a, "seq") != NULL && (model == NULL || p->flops_per_step > 0)) /* else unread */
    return cli_fail("--seq sets the attention FLOPs of --model with --tokens-per-step; it has "
                    "no use without them");
  if (model == NULL || p->flops_per_step > 0)
    return 0;
  if (p->tokens_per_step <= 0)
    return cli_fail("--model needs --tokens-per-step to count FLOPs per step");
  struct pl_model m;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_model_load(model, &m, &d) != PL_OK)
    return cli_fail("--model: %s", d.msg);
  int64_t seq = m.seq_len;
  if (cli_get_int(a, "seq", &seq))
    return 1;
  p->flops_per_step = pl_flops_palm_per_token(&m, seq) * p->tokens_per_step;
  return 0;
}

static int compute_perf(const struct cli_args *a, const struct pl_trace_set *s, struct perf *p) {
  memset(p, 0, sizeof *p);
  if (load_flops(a, p) || load_peak(a, s, p))
    return 1;
  double t = s->step_time_s.mean;
  p->gpus = s->world_size > 0 ? (double)s->world_size : (double)s->n_ranks;
  if (t <= 0 || !s->any_gpu)
    return 0;
  if (p->tokens_per_step > 0)
    p->tokens_per_s = p->tokens_per_step / t;
  if (!isfinite(p->tokens_per_s)) /* 1e308 tokens in a 0.1 s step */
    return cli_fail("--tokens-per-step: %.4g tokens in a step of %.4g s is not a finite rate; "
                    "check that input",
                    p->tokens_per_step, t);
  if (p->flops_per_step > 0)
    p->tflops_per_gpu = p->flops_per_step / (t * p->gpus) / 1e12;
  if (p->flops_per_step > 0 && p->peak_flops_per_s > 0)
    p->mfu = p->flops_per_step / (t * p->gpus * p->peak_flops_per_s);
  /* Above the peak is not a measurement: the FLOPs or the peak given are wrong. */
  if (p->mfu > 1.0)
    return cli_fail("MFU would be %.3g %%, above 100 %%: %.4g FLOPs per step (%s) in %.4g s on "
                    "%.0f GPUs at %.4g FLOP/s (%s) cannot be; check those inputs",
                    100 * p->mfu, p->flops_per_step,
                    cli_get(a, "flops-per-step") ? "--flops-per-step" : "--model x --tokens-per-step",
                    t, p->gpus, p->peak_flops_per_s, p->peak_from);
  return 0;
}

/* ---- JSON ---- */

static void num_or_null(struct pl_emit *e, const char *k, double v, bool ok) {
  if (ok)
    pl_emit_num(e, k, v);
  else
    pl_emit_null(e, k);
}

/* TraceLens's per-collective timing across ranks (docs/trace.md 4.2): the
 * set's rows only; null where no call was matched on two ranks. */
static void json_sync(struct pl_emit *e, const struct pl_trace_coll *c) {
  bool m = c->sync_matched > 0, z = c->sync_sized > 0;
  pl_emit_int(e, "matched", c->sync_matched);
  num_or_null(e, "matched_count", c->sync_count, m);
  num_or_null(e, "sync_time_s", c->sync_time_s, m);
  num_or_null(e, "start_skew_s", c->start_skew_s, m);
  num_or_null(e, "start_skew_max_s", c->start_skew_max_s, m);
  num_or_null(e, "end_skew_s", c->end_skew_s, m);
  num_or_null(e, "sync_algbw_gbps", c->sync_algbw_bytes_per_s / 1e9, z);
  num_or_null(e, "sync_busbw_gbps", c->sync_busbw_bytes_per_s / 1e9,
              z && c->sync_busbw_bytes_per_s > 0);
}

static void json_coll(struct pl_emit *e, const struct pl_trace_coll *c, int n, bool sync) {
  pl_emit_arr_begin(e, "collectives");
  for (int i = 0; i < n; i++) {
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", c[i].op);
    if (c[i].group_size > 0)
      pl_emit_int(e, "group_size", c[i].group_size);
    else
      pl_emit_null(e, "group_size");
    pl_emit_num(e, "count", c[i].count);
    num_or_null(e, "bytes", c[i].bytes, c[i].sized_calls > 0);
    pl_emit_num(e, "time_s", c[i].time_s);
    num_or_null(e, "algbw_gbps", c[i].algbw_bytes_per_s / 1e9, c[i].sized_calls > 0);
    num_or_null(e, "busbw_gbps", c[i].busbw_bytes_per_s / 1e9,
                c[i].sized_calls > 0 && c[i].busbw_bytes_per_s > 0);
    if (sync)
      json_sync(e, &c[i]);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void json_stat(struct pl_emit *e, const char *k, const struct pl_trace_stat *st) {
  pl_emit_obj_begin(e, k);
  pl_emit_num(e, "mean", st->mean);
  pl_emit_num(e, "min", st->min);
  pl_emit_num(e, "max", st->max);
  pl_emit_int(e, "min_rank", st->min_rank);
  pl_emit_int(e, "max_rank", st->max_rank);
  pl_emit_obj_end(e);
}

static void json_kernels(struct pl_emit *e, const struct pl_trace_kernel *k, int n, int top) {
  pl_emit_int(e, "kernel_names", n);
  pl_emit_arr_begin(e, "kernels");
  for (int i = 0; i < n && i < top; i++) {
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "name", k[i].name);
    pl_emit_str(e, "category", pl_trace_kcat_name(k[i].category));
    pl_emit_num(e, "count", k[i].count);
    pl_emit_num(e, "time_s", k[i].time_s);
    pl_emit_num(e, "min_s", k[i].min_s);
    pl_emit_num(e, "max_s", k[i].max_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void json_kcat(struct pl_emit *e, const double *kcat) {
  pl_emit_obj_begin(e, "kernel_time");
  for (int c = 0; c < PL_TK_N; c++) {
    char k[40];
    snprintf(k, sizeof k, "%s_s", pl_trace_kcat_name((enum pl_trace_kcat)c));
    pl_emit_num(e, k, kcat[c]);
  }
  pl_emit_obj_end(e);
}

static void json_launch(struct pl_emit *e, const struct pl_trace_launch *l) {
  pl_emit_obj_begin(e, "launch");
  pl_emit_int(e, "events", l->events);
  bool ok = l->events > 0;
  num_or_null(e, "delay_mean_s", l->delay_mean_s, ok);
  num_or_null(e, "delay_p50_s", l->delay_p50_s, ok);
  num_or_null(e, "delay_p90_s", l->delay_p90_s, ok);
  num_or_null(e, "delay_p99_s", l->delay_p99_s, ok);
  num_or_null(e, "delay_max_s", l->delay_max_s, ok);
  pl_emit_int(e, "delay_outliers", l->delay_outliers);
  pl_emit_int(e, "runtime_outliers", l->runtime_outliers);
  pl_emit_int(e, "short_events", l->short_events);
  pl_emit_num(e, "short_gpu_s", l->short_gpu_s);
  pl_emit_num(e, "short_cpu_s", l->short_cpu_s);
  bool h = l->hta_events > 0; /* HTA's launch_delay (docs/trace.md 3.7) */
  pl_emit_int(e, "hta_events", l->hta_events);
  num_or_null(e, "hta_delay_mean_s", l->hta_delay_mean_s, h);
  num_or_null(e, "hta_delay_p50_s", l->hta_delay_p50_s, h);
  num_or_null(e, "hta_delay_p90_s", l->hta_delay_p90_s, h);
  num_or_null(e, "hta_delay_p99_s", l->hta_delay_p99_s, h);
  num_or_null(e, "hta_delay_max_s", l->hta_delay_max_s, h);
  pl_emit_int(e, "hta_delay_outliers", l->hta_delay_outliers);
  pl_emit_obj_end(e);
}

static void json_streams(struct pl_emit *e, const struct pl_trace_rank *r) {
  pl_emit_arr_begin(e, "streams");
  for (int i = 0; i < r->n_streams; i++) {
    const struct pl_trace_stream *t = &r->streams[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_int(e, "stream", t->stream);
    pl_emit_num(e, "span_s", t->span_s);
    pl_emit_num(e, "busy_s", t->busy_s);
    pl_emit_num(e, "idle_s", t->idle_s);
    pl_emit_num(e, "idle_host_s", t->idle_host_s);
    pl_emit_num(e, "idle_kernel_s", t->idle_kernel_s);
    pl_emit_num(e, "idle_other_s", t->idle_other_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void json_arrivals(struct pl_emit *e, const struct pl_trace_set *s) {
  pl_emit_arr_begin(e, "arrivals");
  for (int i = 0; i < s->n_arrivals; i++) {
    const struct pl_trace_step_arrival *a = &s->arrivals[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_int(e, "step", a->step);
    pl_emit_int(e, "collectives", a->collectives);
    pl_emit_int(e, "last_rank", a->last_rank);
    pl_emit_int(e, "last_count", a->last_count);
    pl_emit_num(e, "wait_s", a->wait_s);
    pl_emit_num(e, "max_wait_s", a->max_wait_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

/* Communication per collective kind (docs/trace.md 3.4.2): the kinds that ran. */
static void json_comm_by_op(struct pl_emit *e, const double *comm, const double *over) {
  pl_emit_arr_begin(e, "comm_by_op");
  for (int k = 0; k < PL_TRACE_COMM_CATS; k++) {
    if (comm[k] <= 0)
      continue;
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", pl_trace_kcat_name((enum pl_trace_kcat)(PL_TK_ALL_REDUCE + k)));
    pl_emit_num(e, "comm_s", comm[k]);
    pl_emit_num(e, "overlapped_comm_s", over[k]);
    pl_emit_num(e, "exposed_comm_s", comm[k] - over[k]);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

/* TraceLens's per-size table (docs/trace.md 3.4.1). */
static void json_coll_sizes(struct pl_emit *e, const struct pl_trace_rank *r) {
  pl_emit_arr_begin(e, "coll_sizes");
  for (int i = 0; i < r->n_coll_sizes; i++) {
    const struct pl_trace_coll_size *c = &r->coll_sizes[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", c->op);
    if (c->group_size > 0)
      pl_emit_int(e, "group_size", c->group_size);
    else
      pl_emit_null(e, "group_size");
    num_or_null(e, "bytes", c->bytes, c->bytes > 0);
    if (c->dtype_bytes > 0)
      pl_emit_int(e, "dtype_bytes", c->dtype_bytes);
    else
      pl_emit_null(e, "dtype_bytes");
    pl_emit_bool(e, "other_sizes", c->bytes < 0);
    pl_emit_int(e, "calls", c->calls);
    pl_emit_num(e, "count", c->count);
    pl_emit_num(e, "time_s", c->time_s);
    pl_emit_num(e, "sum_s", c->sum_s);
    pl_emit_num(e, "mean_s", c->mean_s);
    pl_emit_num(e, "std_s", c->std_s);
    pl_emit_num(e, "min_s", c->min_s);
    pl_emit_num(e, "max_s", c->max_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void json_rank(struct pl_emit *e, const struct pl_trace_rank *r, int top) {
  pl_emit_obj_begin(e, NULL);
  pl_emit_int(e, "rank", r->rank);
  pl_emit_str(e, "file", r->file);
  pl_emit_str(e, "device", r->device[0] ? r->device : NULL);
  pl_emit_bool(e, "gpu", r->has_gpu);
  pl_emit_int(e, "steps", r->steps);
  pl_emit_int(e, "steps_total", r->steps_total);
  pl_emit_int(e, "steps_skipped", r->steps_skipped);
  pl_emit_bool(e, "last_step_dropped", r->last_dropped);
  pl_emit_num(e, "span_s", r->span_s);
  pl_emit_num(e, "compute_s", r->compute_s);
  pl_emit_num(e, "comm_s", r->comm_s);
  pl_emit_num(e, "overlapped_comm_s", r->overlapped_comm_s);
  pl_emit_num(e, "exposed_comm_s", r->exposed_comm_s);
  pl_emit_num(e, "memory_s", r->memory_s);
  pl_emit_num(e, "exposed_memory_s", r->exposed_memory_s);
  pl_emit_num(e, "idle_s", r->idle_s);
  pl_emit_num(e, "recompute_s", r->recompute_s);
  pl_emit_num(e, "cpu_step_s", r->cpu_step_s);
  pl_emit_int(e, "gpu_events", r->gpu_events);
  pl_emit_int(e, "gpu_devices", r->gpu_devices);
  if (r->gpu_pid >= 0)
    pl_emit_int(e, "gpu_pid", r->gpu_pid);
  else
    pl_emit_null(e, "gpu_pid");
  pl_emit_int(e, "unlinked_gpu_events", r->unlinked_events);
  pl_emit_int(e, "duplicate_comm_events", r->duplicate_comm_events);
  json_coll(e, r->coll, r->n_coll, false);
  json_coll_sizes(e, r);
  pl_emit_num(e, "idle_host_s", r->idle_host_s);
  pl_emit_num(e, "idle_kernel_s", r->idle_kernel_s);
  pl_emit_num(e, "idle_other_s", r->idle_other_s);
  pl_emit_num(e, "kernel_s", r->kernel_s);
  json_kcat(e, r->kcat_s);
  json_comm_by_op(e, r->comm_cat_s, r->overlapped_cat_s);
  json_kernels(e, r->kernels, r->n_kernels, top);
  json_streams(e, r);
  json_launch(e, &r->launch);
  pl_emit_num(e, "coll_wait_s", r->coll_wait_s);
  pl_emit_num(e, "coll_last", r->coll_last);
  pl_emit_num(e, "coll_first", r->coll_first);
  pl_emit_int(e, "coll_matched", r->coll_matched);
  pl_emit_obj_end(e);
}

static void json_breakdown(struct pl_emit *e, const struct pl_trace_set *s) {
  pl_emit_obj_begin(e, "breakdown");
  pl_emit_num(e, "compute_s", s->compute_s.mean);
  pl_emit_num(e, "exposed_comm_s", s->exposed_comm_s.mean);
  pl_emit_num(e, "overlapped_comm_s", s->overlapped_comm_s.mean);
  pl_emit_num(e, "exposed_memory_s", s->exposed_memory_s.mean);
  pl_emit_num(e, "idle_s", s->idle_s.mean);
  pl_emit_num(e, "comm_s", s->comm_s.mean);
  pl_emit_num(e, "memory_s", s->memory_s.mean);
  pl_emit_num(e, "recompute_s", s->recompute_s.mean);
  pl_emit_num(e, "idle_host_s", s->idle_host_s.mean);
  pl_emit_num(e, "idle_kernel_s", s->idle_kernel_s.mean);
  pl_emit_num(e, "idle_other_s", s->idle_other_s.mean);
  pl_emit_num(e, "kernel_s", s->kernel_s.mean);
  num_or_null(e, "coll_wait_s", s->coll_wait_s, s->n_arrivals > 0);
  pl_emit_obj_end(e);
}

static void json_across(struct pl_emit *e, const struct pl_trace_set *s) {
  pl_emit_obj_begin(e, "across_ranks");
  json_stat(e, "step_time_s", &s->step_time_s);
  json_stat(e, "compute_s", &s->compute_s);
  json_stat(e, "comm_s", &s->comm_s);
  json_stat(e, "exposed_comm_s", &s->exposed_comm_s);
  json_stat(e, "overlapped_comm_s", &s->overlapped_comm_s);
  json_stat(e, "memory_s", &s->memory_s);
  json_stat(e, "idle_s", &s->idle_s);
  json_stat(e, "idle_host_s", &s->idle_host_s);
  json_stat(e, "idle_kernel_s", &s->idle_kernel_s);
  json_stat(e, "idle_other_s", &s->idle_other_s);
  json_stat(e, "kernel_s", &s->kernel_s);
  pl_emit_obj_end(e);
  pl_emit_obj_begin(e, "straggler");
  if (s->straggler_rank >= 0 || s->straggler_file != NULL) {
    pl_emit_int(e, "rank", s->straggler_rank);
    pl_emit_str(e, "file", s->straggler_file);
    if (s->straggler_gpu_pid >= 0)
      pl_emit_int(e, "gpu_pid", s->straggler_gpu_pid);
    else
      pl_emit_null(e, "gpu_pid");
    pl_emit_num(e, "busy_s", s->straggler_busy_s);
    pl_emit_num(e, "spread_s", s->straggler_spread_s);
  }
  pl_emit_obj_end(e);
}

/* Files in the set: ranks split from one file (one per GPU pid) are adjacent
 * and share its path. */
static int n_files(const struct pl_trace_set *s) {
  int n = 0;
  for (int i = 0; i < s->n_ranks; i++)
    n += i == 0 || s->ranks[i].file != s->ranks[i - 1].file;
  return n;
}

static void json_set_head(struct pl_emit *e, const struct pl_trace_set *s) {
  pl_emit_int(e, "files", n_files(s));
  if (s->world_size > 0)
    pl_emit_int(e, "world_size", s->world_size);
  else
    pl_emit_null(e, "world_size");
  pl_emit_arr_begin(e, "missing_ranks");
  for (int i = 0; i < s->n_missing; i++)
    pl_emit_int(e, NULL, s->missing[i]);
  pl_emit_arr_end(e);
  pl_emit_bool(e, "gpu", s->any_gpu);
}

static int print_json(const struct pl_trace_set *s, const struct perf *p, int top) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_fail("out of memory");
  pl_emit_obj_begin(e, NULL);
  json_set_head(e, s);
  pl_emit_num(e, "step_time_s", s->step_time_s.mean);
  num_or_null(e, "tokens_per_s", p->tokens_per_s, p->tokens_per_s > 0);
  num_or_null(e, "tokens_per_s_per_gpu", p->tokens_per_s / p->gpus, p->tokens_per_s > 0);
  num_or_null(e, "mfu", p->mfu, p->mfu > 0);
  num_or_null(e, "tflops_per_gpu", p->tflops_per_gpu, p->tflops_per_gpu > 0);
  num_or_null(e, "peak_flops_per_s", p->peak_flops_per_s, p->peak_flops_per_s > 0);
  json_breakdown(e, s);
  json_coll(e, s->coll, s->n_coll, true);
  json_kcat(e, s->kcat_s);
  json_comm_by_op(e, s->comm_cat_s, s->overlapped_cat_s);
  json_kernels(e, s->kernels, s->n_kernels, top);
  json_launch(e, &s->launch);
  json_arrivals(e, s);
  json_across(e, s);
  pl_emit_arr_begin(e, "ranks");
  for (int i = 0; i < s->n_ranks; i++)
    json_rank(e, &s->ranks[i], top);
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

/* ---- CSV: one row per rank, columns named as in ranks[] ---- */

static void csv_num(double v) {
  char b[40];
  pl_fmt_double(b, sizeof b, v);
  printf(",%s", b);
}

/* The columns after gpu_pid: idle split, kernel time by category, launch
 * delays (empty without launches), collective arrival. */
static void csv_extra(const struct pl_trace_rank *r) {
  csv_num(r->idle_host_s);
  csv_num(r->idle_kernel_s);
  csv_num(r->idle_other_s);
  csv_num(r->kernel_s);
  for (int c = 0; c < PL_TK_N; c++)
    csv_num(r->kcat_s[c]);
  const struct pl_trace_launch *l = &r->launch;
  printf(",%lld", (long long)l->events);
  double d[] = {l->delay_mean_s, l->delay_p50_s, l->delay_p90_s, l->delay_p99_s};
  for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
    if (l->events > 0)
      csv_num(d[k]);
    else
      printf(",");
  }
  printf(",%lld", (long long)l->short_events);
  csv_num(r->coll_wait_s);
  csv_num(r->coll_last);
}

static int print_csv(const struct pl_trace_set *s) {
  printf("rank,file,steps,span_s,compute_s,comm_s,overlapped_comm_s,exposed_comm_s,memory_s,"
         "exposed_memory_s,idle_s,recompute_s,gpu_pid,idle_host_s,idle_kernel_s,idle_other_s,"
         "kernel_s");
  for (int c = 0; c < PL_TK_N; c++)
    printf(",%s_s", pl_trace_kcat_name((enum pl_trace_kcat)c));
  printf(",launch_events,launch_delay_mean_s,launch_delay_p50_s,launch_delay_p90_s,"
         "launch_delay_p99_s,short_events,coll_wait_s,coll_last\n");
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_rank *r = &s->ranks[i];
    double v[] = {r->span_s,        r->compute_s, r->comm_s,           r->overlapped_comm_s,
                  r->exposed_comm_s, r->memory_s,  r->exposed_memory_s, r->idle_s,
                  r->recompute_s};
    printf("%lld,\"%s\",%lld", (long long)r->rank, r->file, (long long)r->steps);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
      char b[40];
      pl_fmt_csv(b, sizeof b, v[k]);
      printf(",%s", b);
    }
    if (r->gpu_pid >= 0)
      printf(",%lld", (long long)r->gpu_pid);
    else
      printf(",");
    csv_extra(r);
    printf("\n");
  }
  return 0;
}

/* ---- text ---- */

static void line(const char *what, double v, double span) {
  char b[32];
  pl_fmt_seconds(b, sizeof b, v);
  printf("  %-22s %12s  %5.1f%%\n", what, b, span > 0 ? 100.0 * v / span : 0.0);
}

static void text_coll(const struct pl_trace_coll *c, int n) {
  if (n == 0)
    return;
  printf("\ncollectives (per step, mean over ranks; busbw as nccl-tests, GB/s = 1e9 B/s):\n");
  printf("  %-15s %5s %9s %12s %12s %12s\n", "op", "ranks", "calls", "bytes/call", "time",
         "busbw (GB/s)");
  for (int i = 0; i < n; i++) {
    char b[32] = "not in trace", t[32], g[24] = "?", bw[32] = "-";
    if (c[i].sized_calls > 0)
      pl_fmt_bytes(b, sizeof b, c[i].bytes);
    pl_fmt_seconds(t, sizeof t, c[i].time_s);
    if (c[i].group_size > 0)
      snprintf(g, sizeof g, "%lld", (long long)c[i].group_size);
    if (c[i].busbw_bytes_per_s > 0)
      snprintf(bw, sizeof bw, "%.2f", c[i].busbw_bytes_per_s / 1e9);
    printf("  %-15s %5s %9.1f %12s %12s %12s\n", c[i].op, g, c[i].count, b, t, bw);
  }
}

static void share(const char *what, double v, double of) {
  char b[32];
  pl_fmt_seconds(b, sizeof b, v);
  printf("  %-34s %12s  %5.1f%%\n", what, b, of > 0 ? 100.0 * v / of : 0.0);
}

/* Why the GPU is idle (docs/trace.md 3.6): shares of idle time. */
static void text_idle(const struct pl_trace_set *s) {
  double idle = s->idle_s.mean;
  if (idle <= 0)
    return;
  printf("\nwhy the GPU is idle (per step, mean over ranks; %% of idle time):\n");
  share("host wait (launched late)", s->idle_host_s.mean, idle);
  share("kernel wait (gaps under 30 ns)", s->idle_kernel_s.mean, idle);
  share("other (queued: stream/event wait)", s->idle_other_s.mean, idle);
}

static void text_kernels(const struct pl_trace_set *s, int top) {
  double k = s->kernel_s.mean;
  if (k <= 0)
    return;
  printf("\nkernel time by category (per step, mean over ranks; a sum over kernels, %% of it):\n");
  for (int c = 0; c < PL_TK_N; c++)
    if (s->kcat_s[c] > 0)
      share(pl_trace_kcat_name((enum pl_trace_kcat)c), s->kcat_s[c], k);
  share("all kernels", k, k);
  printf("\ntop %d of %d kernel names (per step, mean over ranks):\n", top < s->n_kernels ? top : s->n_kernels,
         s->n_kernels);
  printf("  %12s %6s %9s %12s  %-14s %s\n", "time", "share", "calls", "mean", "category", "name");
  for (int i = 0; i < s->n_kernels && i < top; i++) {
    const struct pl_trace_kernel *x = &s->kernels[i];
    char t[32], m[32];
    pl_fmt_seconds(t, sizeof t, x->time_s);
    pl_fmt_seconds(m, sizeof m, x->count > 0 ? x->time_s / x->count : 0);
    printf("  %12s %5.1f%% %9.1f %12s  %-14s %.90s\n", t, 100.0 * x->time_s / k, x->count, m,
           pl_trace_kcat_name(x->category), x->name);
  }
}

static void text_launch(const struct pl_trace_set *s) {
  const struct pl_trace_launch *l = &s->launch;
  if (l->events == 0)
    return;
  char v[5][32];
  double d[5] = {l->delay_mean_s, l->delay_p50_s, l->delay_p90_s, l->delay_p99_s,
                 l->delay_max_s};
  for (int i = 0; i < 5; i++)
    pl_fmt_seconds(v[i], sizeof v[i], d[i]);
  printf("\nlaunches (%lld GPU events with their CPU launch, all ranks and kept steps):\n",
         (long long)l->events);
  printf("  launch delay (GPU start - launch)  mean %s, median %s, p90 %s, p99 %s, max %s\n",
         v[0], v[1], v[2], v[3], v[4]);
  char g[32], c[32];
  pl_fmt_seconds(g, sizeof g, l->short_gpu_s);
  pl_fmt_seconds(c, sizeof c, l->short_cpu_s);
  printf("  shorter than their launch call     %lld events: %s of GPU time per step for %s of "
         "launch calls\n", (long long)l->short_events, g, c);
  printf("  outliers                           %lld launch calls over 50 us, %lld delays over "
         "100 us\n", (long long)l->runtime_outliers, (long long)l->delay_outliers);
  if (l->hta_events > 0) {
    double h[4] = {l->hta_delay_mean_s, l->hta_delay_p50_s, l->hta_delay_p90_s,
                   l->hta_delay_max_s};
    for (int i = 0; i < 4; i++)
      pl_fmt_seconds(v[i], sizeof v[i], h[i]);
    printf("  HTA's delay (GPU start - call end) mean %s, median %s, p90 %s, max %s; %lld over "
           "100 us\n", v[0], v[1], v[2], v[3], (long long)l->hta_delay_outliers);
  }
}

/* Communication per collective kind (docs/trace.md 3.4.2). */
static void text_comm_by_op(const struct pl_trace_set *s) {
  int n = 0;
  for (int k = 0; k < PL_TRACE_COMM_CATS; k++)
    n += s->comm_cat_s[k] > 0;
  if (n == 0)
    return;
  printf("\ncommunication by collective (per step, mean over ranks; union of each kind's "
         "kernels):\n");
  printf("  %-15s %12s %12s %12s %9s\n", "op", "time", "overlapped", "exposed", "exposed%");
  for (int k = 0; k < PL_TRACE_COMM_CATS; k++) {
    double c = s->comm_cat_s[k], o = s->overlapped_cat_s[k];
    if (c <= 0)
      continue;
    char a[32], b[32], x[32];
    pl_fmt_seconds(a, sizeof a, c);
    pl_fmt_seconds(b, sizeof b, o);
    pl_fmt_seconds(x, sizeof x, c - o);
    printf("  %-15s %12s %12s %12s %8.1f%%\n",
           pl_trace_kcat_name((enum pl_trace_kcat)(PL_TK_ALL_REDUCE + k)), a, b, x,
           100.0 * (c - o) / c);
  }
}

/* The first rank's collectives by message size (docs/trace.md 3.4.1). */
static void text_coll_sizes(const struct pl_trace_rank *r) {
  if (r->n_coll_sizes == 0)
    return;
  char who[32] = "the trace";
  if (r->rank >= 0)
    snprintf(who, sizeof who, "rank %lld", (long long)r->rank);
  printf("\ncollectives of %s by message size (TraceLens's table; per call, all kept steps):\n",
         who);
  printf("  %-15s %5s %12s %7s %12s %12s %12s %12s %12s\n", "op", "ranks", "bytes/call", "calls",
         "total", "mean", "std", "min", "max");
  for (int i = 0; i < r->n_coll_sizes && i < 20; i++) {
    const struct pl_trace_coll_size *c = &r->coll_sizes[i];
    char b[32] = "not in trace", g[24] = "?", v[5][32];
    if (c->bytes > 0)
      pl_fmt_bytes(b, sizeof b, c->bytes);
    else if (c->bytes < 0)
      snprintf(b, sizeof b, "other sizes");
    if (c->group_size > 0)
      snprintf(g, sizeof g, "%lld", (long long)c->group_size);
    double d[5] = {c->sum_s, c->mean_s, c->std_s, c->min_s, c->max_s};
    for (int k = 0; k < 5; k++)
      pl_fmt_seconds(v[k], sizeof v[k], d[k]);
    printf("  %-15s %5s %12s %7lld %12s %12s %12s %12s %12s\n", c->op, g, b,
           (long long)c->calls, v[0], v[1], v[2], v[3], v[4]);
  }
  if (r->n_coll_sizes > 20)
    printf("  ... %d more (--format json lists all)\n", r->n_coll_sizes - 20);
}

/* Each collective kind timed across ranks (docs/trace.md 4.2). */
static void text_sync(const struct pl_trace_set *s) {
  bool any = false;
  for (int i = 0; i < s->n_coll; i++)
    any = any || s->coll[i].sync_matched > 0;
  if (!any)
    return;
  printf("\ncollectives across ranks (TraceLens: each timed by its shortest kernel over its "
         "ranks; per step):\n");
  printf("  %-15s %5s %9s %12s %12s %12s %12s\n", "op", "ranks", "matched", "time",
         "start skew", "end skew", "busbw (GB/s)");
  for (int i = 0; i < s->n_coll; i++) {
    const struct pl_trace_coll *c = &s->coll[i];
    if (c->sync_matched == 0)
      continue;
    char t[32], a[32], b[32], g[24] = "?", bw[32] = "-";
    pl_fmt_seconds(t, sizeof t, c->sync_time_s);
    pl_fmt_seconds(a, sizeof a, c->start_skew_s);
    pl_fmt_seconds(b, sizeof b, c->end_skew_s);
    if (c->group_size > 0)
      snprintf(g, sizeof g, "%lld", (long long)c->group_size);
    if (c->sync_busbw_bytes_per_s > 0)
      snprintf(bw, sizeof bw, "%.2f", c->sync_busbw_bytes_per_s / 1e9);
    printf("  %-15s %5s %9.1f %12s %12s %12s %12s\n", c->op, g, c->sync_count, t, a, b, bw);
  }
  printf("  (skews: means per collective; busbw from the shortest kernel, not a lower bound)\n");
}

/* Where ranks wait for each other at collectives (docs/trace.md 4.1). */
static void text_arrival(const struct pl_trace_set *s) {
  if (s->n_arrivals == 0)
    return;
  printf("\ncollective arrival (kernel starts on the traces' common clock):\n");
  printf("  %5s %12s %12s %12s  %s\n", "step", "collectives", "last rank", "at", "others wait");
  for (int i = 0; i < s->n_arrivals && i < 20; i++) {
    const struct pl_trace_step_arrival *a = &s->arrivals[i];
    char w[32];
    pl_fmt_seconds(w, sizeof w, a->wait_s);
    printf("  %5lld %12lld %12lld %12lld  %s (longest %.3f ms)\n", (long long)a->step,
           (long long)a->collectives, (long long)a->last_rank, (long long)a->last_count, w,
           a->max_wait_s * 1e3);
  }
  if (s->n_arrivals > 20)
    printf("  ... %d more steps (--format json lists all)\n", s->n_arrivals - 20);
  printf("  %5s %12s %12s %12s\n", "rank", "waits/step", "last/step", "first/step");
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_rank *r = &s->ranks[i];
    if (r->coll_matched == 0)
      continue;
    char w[32];
    pl_fmt_seconds(w, sizeof w, r->coll_wait_s);
    printf("  %5lld %12s %12.1f %12.1f\n", (long long)r->rank, w, r->coll_last, r->coll_first);
  }
}

static void text_streams(const struct pl_trace_rank *r) {
  if (r->n_streams == 0)
    return;
  char who[32] = "the trace";
  if (r->rank >= 0)
    snprintf(who, sizeof who, "rank %lld", (long long)r->rank);
  printf("\nstreams of %s (per step; idle split as HTA's; --format json: every rank):\n", who);
  printf("  %8s %10s %10s %10s %10s %10s %10s\n", "stream", "span", "busy", "idle", "host",
         "kernel", "other");
  for (int i = 0; i < r->n_streams; i++) {
    const struct pl_trace_stream *t = &r->streams[i];
    double v[] = {t->span_s, t->busy_s, t->idle_s, t->idle_host_s, t->idle_kernel_s,
                  t->idle_other_s};
    printf("  %8lld", (long long)t->stream);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
      char b[32];
      pl_fmt_seconds(b, sizeof b, v[k]);
      printf(" %10s", b);
    }
    printf("\n");
  }
}

static void text_ranks(const struct pl_trace_set *s) {
  printf("\n  %5s %5s %10s %10s %10s %10s %10s %10s  %s\n", "rank", "steps", "step", "compute",
         "comm", "exposed", "memory", "idle", "file");
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_rank *r = &s->ranks[i];
    double v[] = {r->span_s, r->compute_s, r->comm_s, r->exposed_comm_s, r->memory_s, r->idle_s};
    if (r->rank >= 0)
      printf("  %5lld %5lld", (long long)r->rank, (long long)r->steps);
    else
      printf("  %5s %5lld", "none", (long long)r->steps);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
      char b[32];
      pl_fmt_seconds(b, sizeof b, v[k]);
      printf(" %10s", r->has_gpu || k == 0 ? b : "-");
    }
    if (r->gpu_pid >= 0)
      printf("  %s (pid %lld)\n", r->file, (long long)r->gpu_pid);
    else
      printf("  %s%s\n", r->file, r->has_gpu ? "" : "  (CPU only)");
  }
}

static void text_notes(const struct pl_trace_set *s) {
  if (s->n_missing > 0) {
    printf("\nmissing ranks (%d of %lld):", s->n_missing, (long long)s->world_size);
    for (int i = 0; i < s->n_missing && i < 32; i++)
      printf(" %lld", (long long)s->missing[i]);
    printf("%s\n", s->n_missing > 32 ? " ..." : "");
  }
  if (s->world_mismatch)
    printf("note: the files disagree on world_size; they may come from different runs\n");
  if (s->duplicate_rank >= 0)
    printf("note: rank %lld appears in more than one file\n", (long long)s->duplicate_rank);
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_rank *r = &s->ranks[i];
    if (r->rank_from_name)
      printf("note: %s has no distributedInfo; rank %lld taken from its name\n", r->file,
             (long long)r->rank);
    if (r->rank < 0)
      printf("note: %s records no rank (no distributedInfo, no rank in its name)\n", r->file);
    if (!r->has_steps && r->has_gpu)
      printf("note: %s has no ProfilerStep; the whole trace is one window\n", r->file);
    if (r->last_dropped)
      printf("note: %s: last step cut short by the profiler, dropped\n", r->file);
    if (r->duplicate_comm_events > 0)
      printf("note: %s: %lld communication kernels appear twice (same pid, tid, ts, dur and "
             "name): each counted once\n",
             r->file, (long long)r->duplicate_comm_events);
    if (r->gpu_devices > 1 && (i == 0 || r->file != s->ranks[i - 1].file))
      printf("note: %s: GPU events of %d%s devices (pid) in one file, measured as one rank "
             "per pid over the file's steps\n",
             r->file, r->gpu_devices, r->gpu_devices >= 16 ? " or more" : "");
  }
}

static void text_perf(const struct perf *p) {
  if (p->tokens_per_s > 0)
    printf("  %-22s %12.1f  (%.1f per GPU)\n", "tokens/s", p->tokens_per_s,
           p->tokens_per_s / p->gpus);
  if (p->tflops_per_gpu > 0)
    printf("  %-22s %12.1f\n", "model TFLOP/s per GPU", p->tflops_per_gpu);
  if (p->mfu > 0)
    printf("  %-22s %11.1f%%  (peak: %s)\n", "MFU", 100 * p->mfu, p->peak_from);
}

static int print_text(const struct pl_trace_set *s, const struct perf *p, int top) {
  const struct pl_trace_rank *r0 = &s->ranks[0];
  int nf = n_files(s);
  printf("%d trace file%s", nf, nf == 1 ? "" : "s");
  if (nf != s->n_ranks)
    printf(" (%d ranks: one per GPU pid)", s->n_ranks);
  if (s->world_size > 0)
    printf(", world size %lld", (long long)s->world_size);
  printf("%s%s\n", r0->device[0] ? ", " : "", r0->device);
  if (!s->any_gpu) {
    char b[32];
    pl_fmt_seconds(b, sizeof b, s->step_time_s.mean);
    printf("CPU-only trace%s: no GPU events, so no GPU metrics\n", s->n_ranks > 1 ? "s" : "");
    printf("  %-22s %12s  (the CPU's ProfilerStep; no GPU time, compute, communication or "
           "idle to divide it)\n", "CPU step time", b);
  } else {
    double t = s->step_time_s.mean;
    char who[32] = "the trace without a rank";
    if (r0->rank >= 0)
      snprintf(who, sizeof who, "rank %lld", (long long)r0->rank);
    if (r0->has_steps && r0->steps_total > 0 && r0->steps != 1)
      printf("per step, mean over ranks (%s: %lld steps kept of %lld, %lld warm-up "
             "skipped):\n", who, (long long)r0->steps,
             (long long)r0->steps_total, (long long)r0->steps_skipped);
    else if (r0->has_steps && r0->steps_total > 0 && r0->steps == r0->steps_total - r0->steps_skipped)
      printf("per step, mean over ranks (%s: 1 step kept of %lld):\n", who,
             (long long)r0->steps_total);
    else
      printf("whole trace as one window (mean over ranks):\n");
    line("step time", t, t);
    line("compute", s->compute_s.mean, t);
    line("exposed comm", s->exposed_comm_s.mean, t);
    line("exposed memory", s->exposed_memory_s.mean, t);
    line("idle", s->idle_s.mean, t);
    line("overlapped comm", s->overlapped_comm_s.mean, t);
    line("comm (all)", s->comm_s.mean, t);
    line("memory (all)", s->memory_s.mean, t);
    if (s->recompute_s.mean > 0)
      line("recompute (in compute)", s->recompute_s.mean, t);
    text_perf(p);
    if (s->n_ranks > 1 && s->straggler_gpu_pid >= 0)
      printf("  straggler: rank %lld (%s, pid %lld), %.3f ms more busy time than the least busy "
             "rank\n",
             (long long)s->straggler_rank, s->straggler_file, (long long)s->straggler_gpu_pid,
             s->straggler_spread_s * 1e3);
    else if (s->n_ranks > 1)
      printf("  straggler: rank %lld (%s), %.3f ms more busy time than the least busy rank\n",
             (long long)s->straggler_rank, s->straggler_file, s->straggler_spread_s * 1e3);
  }
  text_coll(s->coll, s->n_coll);
  text_comm_by_op(s);
  if (s->n_ranks > 0)
    text_coll_sizes(&s->ranks[0]);
  if (s->any_gpu) {
    text_idle(s);
    text_kernels(s, top);
    text_launch(s);
    text_arrival(s);
    text_sync(s);
    text_streams(&s->ranks[0]);
  }
  text_ranks(s);
  text_notes(s);
  return 0;
}

/* ---- driver ---- */

int trace_read_opts(const struct cli_args *a, struct pl_trace_opts *o) {
  int64_t v;
  o->skip = -1;
  o->threads = 0;
  o->whole_trace = false;
  if (cli_get(a, "skip") != NULL) {
    v = 0;
    if (strcmp(cli_get(a, "skip"), "0") != 0 && cli_get_int(a, "skip", &v))
      return 1;
    o->skip = v;
  }
  if (cli_get(a, "threads") != NULL) {
    if (cli_get_int(a, "threads", &v))
      return 1;
    o->threads = v > 1024 ? 1024 : (int)v;
  }
  const char *w = cli_get(a, "window");
  if (w != NULL && strcmp(w, "trace") != 0 && strcmp(w, "steps") != 0)
    return cli_fail("--window: unknown value '%s' (expected steps|trace)", w);
  o->whole_trace = w != NULL && strcmp(w, "trace") == 0;
  return 0;
}

static int analyze(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  if (args.n_pos == 0)
    return cli_usage(&cmd, "no trace files given");
  enum cli_format format;
  struct pl_trace_opts o;
  if (cli_get_format(&args, &format) || trace_read_opts(&args, &o))
    return 1;
  struct pl_trace_set *s;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_trace_analyze(args.pos, args.n_pos, &o, &s, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  struct perf p;
  int64_t top = 10;
  rc = compute_perf(&args, s, &p);
  if (rc == 0)
    rc = cli_get_int(&args, "top", &top); /* pl_int_parse: a positive integer */
  int n = top > 100000 ? 100000 : (int)top;
  if (rc == 0)
    rc = format == CLI_FORMAT_JSON  ? print_json(s, &p, n)
         : format == CLI_FORMAT_CSV ? print_csv(s)
                                    : print_text(s, &p, n);
  pl_trace_set_free(s);
  return rc;
}

int cmd_trace(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "analyze") == 0)
    return analyze(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "compare") == 0)
    return cmd_trace_compare(argc - 1, argv + 1);
  FILE *out = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
                  ? cli_out()
                  : cli_err();
  if (argc >= 2 && out == cli_err())
    fprintf(out, "plateau trace: unknown subcommand '%s'\n", argv[1]);
  fprintf(out, "usage: plateau trace analyze [options] PATH...\n"
               "       plateau trace compare [options] A B\n\n"
               "subcommands:\n"
               "  analyze   measure step time, overlap and collectives from Kineto traces\n"
               "  compare   two traces or results (trace analyze / predict JSON) side by side\n");
  return out == cli_out() ? 0 : 2;
}
