/* summary.c: one run's per-step numbers, whatever they come from
 * (docs/trace.md 9.1): Kineto traces analyzed here, a `plateau trace analyze
 * --format json` result, or a `plateau predict --format json` result.
 *
 * What a path is: a directory, a gzip file, or a file whose first 64 KiB
 * start with '[' or hold the key "traceEvents" is a trace (Kineto writes
 * traceEvents after a few KiB of deviceProperties at most); anything else is
 * read as a small JSON result (base/json.h, at most 16 MiB) and recognized by
 * its keys: "ranks" + "breakdown" (trace analyze), "layout" + "breakdown"
 * (predict). A result that holds "traceEvents" after all is a trace.
 *
 * Each source keeps its own definitions (docs/trace.md 3 for traces,
 * docs/step-model.md for predict): a metric a source does not define is
 * absent, never guessed. The one derived value is predict's comm_s =
 * exposed_comm_s + overlapped_comm_s, which is how a trace's comm splits
 * (docs/trace.md 3: exposed = comm - overlapped). Predict's collectives get
 * their group size from the layout the way the simulator places groups
 * (src/sim/groups.c: tp, cp, dp = the shard group, dp-replica = dp / shard
 * group, pp = 2) and a busbw of count x bytes x nccl-tests factor / time. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <plateau/alloc.h>

#include "base/json.h"
#include "trace_int.h"

#define SNIFF_BYTES (64u << 10)

static const char *const metric_names[PL_TM_N] = {
    "step_time_s", "compute_s", "exposed_comm_s", "overlapped_comm_s", "comm_s",
    "exposed_memory_s", "memory_s", "idle_s", "recompute_s", "bubble_s",
    "optimizer_s", "other_s", "tokens_per_s", "mfu", "idle_host_s", "idle_kernel_s",
    "idle_other_s", "kernel_s", "gemm_s", "attention_s", "elementwise_s", "reduction_s",
    "other_compute_s", "launch_delay_p50_s", "launch_delay_p90_s", "coll_wait_s",
};

const char *pl_trace_metric_name(enum pl_trace_metric m) {
  return (unsigned)m < PL_TM_N ? metric_names[m] : "?";
}

const char *pl_trace_source_name(enum pl_trace_source s) {
  static const char *const n[] = {"trace", "trace analyze result", "predict result"};
  return (unsigned)s <= PL_TSRC_PREDICT_JSON ? n[s] : "?";
}

void pl_trace_summary_free(struct pl_trace_summary *s) {
  if (s == NULL)
    return;
  pl_free(s->coll);
  s->coll = NULL;
  s->n_coll = 0;
  pl_free(s->ops);
  s->ops = NULL;
  s->n_ops = 0;
}

static void set_value(struct pl_trace_summary *s, enum pl_trace_metric m, double v) {
  s->value[m] = v;
  s->has[m] = true;
}

/* ---- what a path is ---- */

static bool has_key_text(const char *buf, size_t n, const char *key) {
  size_t k = strlen(key);
  for (size_t i = 0; i + k <= n; i++)
    if (buf[i] == key[0] && memcmp(buf + i, key, k) == 0)
      return true;
  return false;
}

static bool looks_like_trace(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return true;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return true; /* let the trace reader say why it cannot be opened */
  char *buf = pl_malloc(SNIFF_BYTES);
  size_t n = buf ? fread(buf, 1, SNIFF_BYTES, f) : 0;
  fclose(f);
  size_t i = 0;
  while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
    i++;
  bool gz = n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b;
  bool yes = buf == NULL || n == 0 || gz || (i < n && buf[i] == '[') ||
             has_key_text(buf, n, "\"traceEvents\"");
  pl_free(buf);
  return yes;
}

/* ---- from a trace set ---- */

static enum pl_status coll_alloc(struct pl_trace_summary *s, int n, struct pl_diag *diag) {
  s->n_coll = 0;
  s->coll = NULL;
  if (n == 0)
    return PL_OK;
  if (n > PL_TRACE_SUMMARY_MAX_COLL)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: more than %d collective kinds", s->origin,
                       PL_TRACE_SUMMARY_MAX_COLL);
  s->coll = pl_calloc((size_t)n, sizeof *s->coll);
  if (s->coll == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  return PL_OK;
}

enum pl_status pl_trace_summary_from_set(const struct pl_trace_set *t, const char *origin,
                                         struct pl_trace_summary *s, struct pl_diag *diag) {
  memset(s, 0, sizeof *s);
  snprintf(s->origin, sizeof s->origin, "%s", origin);
  s->source = PL_TSRC_TRACE;
  s->ranks = t->n_ranks;
  set_value(s, PL_TM_STEP_TIME_S, t->step_time_s.mean);
  if (!t->any_gpu) /* CPU-only: the CPU step time is all there is */
    return PL_OK;
  set_value(s, PL_TM_COMPUTE_S, t->compute_s.mean);
  set_value(s, PL_TM_EXPOSED_COMM_S, t->exposed_comm_s.mean);
  set_value(s, PL_TM_OVERLAPPED_COMM_S, t->overlapped_comm_s.mean);
  set_value(s, PL_TM_COMM_S, t->comm_s.mean);
  set_value(s, PL_TM_EXPOSED_MEMORY_S, t->exposed_memory_s.mean);
  set_value(s, PL_TM_MEMORY_S, t->memory_s.mean);
  set_value(s, PL_TM_IDLE_S, t->idle_s.mean);
  set_value(s, PL_TM_RECOMPUTE_S, t->recompute_s.mean);
  set_value(s, PL_TM_IDLE_HOST_S, t->idle_host_s.mean);
  set_value(s, PL_TM_IDLE_KERNEL_S, t->idle_kernel_s.mean);
  set_value(s, PL_TM_IDLE_OTHER_S, t->idle_other_s.mean);
  set_value(s, PL_TM_KERNEL_S, t->kernel_s.mean);
  for (int c = PL_TK_GEMM; c <= PL_TK_OTHER_COMPUTE; c++)
    set_value(s, (enum pl_trace_metric)(PL_TM_GEMM_S + c), t->kcat_s[c]);
  if (t->launch.events > 0) {
    set_value(s, PL_TM_LAUNCH_DELAY_P50_S, t->launch.delay_p50_s);
    set_value(s, PL_TM_LAUNCH_DELAY_P90_S, t->launch.delay_p90_s);
  }
  if (t->n_arrivals > 0)
    set_value(s, PL_TM_COLL_WAIT_S, t->coll_wait_s);
  enum pl_status st = coll_alloc(s, t->n_coll, diag);
  if (st != PL_OK)
    return st;
  for (int i = 0; i < t->n_coll; i++) {
    const struct pl_trace_coll *c = &t->coll[i];
    struct pl_trace_summary_coll *o = &s->coll[s->n_coll++];
    snprintf(o->op, sizeof o->op, "%s", c->op);
    o->group_size = c->group_size;
    o->count = c->count;
    o->bytes = c->sized_calls > 0 ? c->bytes : 0;
    o->time_s = c->time_s;
    o->busbw_bytes_per_s = c->busbw_bytes_per_s;
  }
  return PL_OK;
}

/* ---- from result files ---- */

/* An optional non-negative number: absent or null leaves *has false. */
static enum pl_status opt_num(yajl_val obj, const char *key, const char *origin, double *v,
                              bool *has, struct pl_diag *diag) {
  yajl_val x = base_json_get(obj, key);
  *has = x != NULL && !YAJL_IS_NULL(x);
  if (!*has)
    return PL_OK;
  enum pl_status st = base_json_double(obj, key, true, origin, v, diag);
  if (st == PL_OK && !(*v >= 0))
    st = pl_diag_set(diag, PL_ERR_RANGE, "%s: field '%s': %g is negative", origin, key, *v);
  return st;
}

static enum pl_status metric(struct pl_trace_summary *s, yajl_val obj, const char *key,
                             enum pl_trace_metric m, struct pl_diag *diag) {
  return opt_num(obj, key, s->origin, &s->value[m], &s->has[m], diag);
}

/* step_time_s, tokens_per_s and mfu at the top, the rest under "breakdown". */
static enum pl_status metrics(struct pl_trace_summary *s, yajl_val root, struct pl_diag *diag) {
  static const enum pl_trace_metric in_breakdown[] = {
      PL_TM_COMPUTE_S,   PL_TM_EXPOSED_COMM_S, PL_TM_OVERLAPPED_COMM_S, PL_TM_COMM_S,
      PL_TM_EXPOSED_MEMORY_S, PL_TM_MEMORY_S,  PL_TM_IDLE_S,            PL_TM_RECOMPUTE_S,
      PL_TM_BUBBLE_S,    PL_TM_OPTIMIZER_S,    PL_TM_OTHER_S,        PL_TM_IDLE_HOST_S,
      PL_TM_IDLE_KERNEL_S, PL_TM_IDLE_OTHER_S, PL_TM_KERNEL_S,       PL_TM_COLL_WAIT_S,
  };
  static const enum pl_trace_metric in_kernel_time[] = {
      PL_TM_GEMM_S, PL_TM_ATTENTION_S, PL_TM_ELEMENTWISE_S, PL_TM_REDUCTION_S,
      PL_TM_OTHER_COMPUTE_S};
  enum pl_status st = metric(s, root, "step_time_s", PL_TM_STEP_TIME_S, diag);
  if (st == PL_OK)
    st = metric(s, root, "tokens_per_s", PL_TM_TOKENS_PER_S, diag);
  if (st == PL_OK)
    st = metric(s, root, "mfu", PL_TM_MFU, diag);
  yajl_val b = base_json_get(root, "breakdown");
  for (size_t i = 0; st == PL_OK && i < sizeof in_breakdown / sizeof in_breakdown[0]; i++)
    st = metric(s, b, metric_names[in_breakdown[i]], in_breakdown[i], diag);
  yajl_val k = base_json_get(root, "kernel_time");
  for (size_t i = 0; st == PL_OK && i < sizeof in_kernel_time / sizeof in_kernel_time[0]; i++)
    st = metric(s, k, metric_names[in_kernel_time[i]], in_kernel_time[i], diag);
  yajl_val l = base_json_get(root, "launch");
  if (st == PL_OK)
    st = opt_num(l, "delay_p50_s", s->origin, &s->value[PL_TM_LAUNCH_DELAY_P50_S],
                 &s->has[PL_TM_LAUNCH_DELAY_P50_S], diag);
  if (st == PL_OK)
    st = opt_num(l, "delay_p90_s", s->origin, &s->value[PL_TM_LAUNCH_DELAY_P90_S],
                 &s->has[PL_TM_LAUNCH_DELAY_P90_S], diag);
  if (st == PL_OK && !s->has[PL_TM_STEP_TIME_S])
    st = pl_diag_set(diag, PL_ERR_MISSING,
                     "%s: no step_time_s (a prediction whose layout does not fit has no step)",
                     s->origin);
  return st;
}

/* Ranks of a predict group in a layout (as src/sim/groups.c places them). */
static int64_t predict_group_size(yajl_val layout, const char *group) {
  int64_t dp = 0, tp = 0, cp = 0, sg = 0;
  char shard[16] = "";
  base_json_int(layout, "dp", false, "", &dp, NULL);
  base_json_int(layout, "tp", false, "", &tp, NULL);
  base_json_int(layout, "cp", false, "", &cp, NULL);
  base_json_int(layout, "shard_group", false, "", &sg, NULL);
  base_json_str(layout, "shard", false, "", shard, sizeof shard, NULL);
  if (strcmp(shard, "ddp") == 0 || sg <= 0)
    sg = dp;
  if (strcmp(group, "tp") == 0)
    return tp;
  if (strcmp(group, "cp") == 0)
    return cp;
  if (strcmp(group, "dp") == 0)
    return sg;
  if (strcmp(group, "dp-replica") == 0)
    return sg > 0 ? dp / sg : 0;
  return strcmp(group, "pp") == 0 ? 2 : 0;
}

/* The row for (op, n), added if new. */
static struct pl_trace_summary_coll *coll_slot(struct pl_trace_summary *s, const char *op,
                                               int64_t n) {
  for (int i = 0; i < s->n_coll; i++)
    if (s->coll[i].group_size == n && strcmp(s->coll[i].op, op) == 0)
      return &s->coll[i];
  struct pl_trace_summary_coll *c = &s->coll[s->n_coll++];
  snprintf(c->op, sizeof c->op, "%s", op);
  c->group_size = n;
  return c;
}

static enum pl_status coll_row(struct pl_trace_summary *s, yajl_val c, yajl_val layout,
                               struct pl_diag *diag) {
  char op[24], group[24] = "";
  double count = 0, bytes = 0, time_s = 0, busbw = 0;
  bool has_b = false, has_bw = false, has_n = false;
  double n = 0;
  enum pl_status st = base_json_str(c, "op", true, s->origin, op, sizeof op, diag);
  if (st == PL_OK)
    st = base_json_str(c, "group", false, s->origin, group, sizeof group, diag);
  if (st == PL_OK)
    st = base_json_double(c, "count", true, s->origin, &count, diag);
  if (st == PL_OK)
    st = base_json_double(c, "time_s", true, s->origin, &time_s, diag);
  if (st == PL_OK)
    st = opt_num(c, "bytes", s->origin, &bytes, &has_b, diag);
  if (st == PL_OK)
    st = opt_num(c, "busbw_gbps", s->origin, &busbw, &has_bw, diag);
  if (st == PL_OK)
    st = opt_num(c, "group_size", s->origin, &n, &has_n, diag);
  if (st != PL_OK)
    return st;
  if (!(count >= 0 && time_s >= 0 && n <= 1e9))
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: collective '%s': count, time_s or group_size out of range",
                       s->origin, op);
  int64_t size = has_n ? (int64_t)n : layout != NULL ? predict_group_size(layout, group) : 0;
  struct pl_trace_summary_coll *o = coll_slot(s, op, size);
  if (group[0] != '\0' && strstr(o->group, group) == NULL)
    snprintf(o->group + strlen(o->group), sizeof o->group - strlen(o->group), "%s%s",
             o->group[0] ? "+" : "", group);
  /* bytes: the mean over calls of both rows; busbw as given (traces) */
  double calls = o->count + count;
  o->bytes = calls > 0 ? (o->bytes * o->count + (has_b ? bytes : 0) * count) / calls : 0;
  o->count = calls;
  o->time_s += time_s;
  o->busbw_bytes_per_s = has_bw ? busbw * 1e9 : o->busbw_bytes_per_s;
  return PL_OK;
}

/* nccl-tests busbw of predict's rows: count x bytes x factor / time. */
static void predict_busbw(struct pl_trace_summary *s) {
  for (int i = 0; i < s->n_coll; i++) {
    struct pl_trace_summary_coll *c = &s->coll[i];
    size_t n = strlen(c->op);
    double f = trace_bus_factor(trace_op_from_collective(c->op, n), c->group_size);
    if (c->time_s > 0 && c->bytes > 0 && f > 0)
      c->busbw_bytes_per_s = c->count * c->bytes * f / c->time_s;
  }
}

static enum pl_status colls(struct pl_trace_summary *s, yajl_val root, yajl_val layout,
                            struct pl_diag *diag) {
  yajl_val a = base_json_get(root, "collectives");
  if (a == NULL || YAJL_IS_NULL(a))
    return PL_OK;
  if (!YAJL_IS_ARRAY(a))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'collectives': expected an array",
                       s->origin);
  size_t n = a->u.array.len;
  if (n > PL_TRACE_SUMMARY_MAX_COLL)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: more than %d collectives", s->origin,
                       PL_TRACE_SUMMARY_MAX_COLL);
  enum pl_status st = coll_alloc(s, (int)n, diag);
  if (st != PL_OK)
    return st;
  for (size_t i = 0; i < n && st == PL_OK; i++)
    st = coll_row(s, a->u.array.values[i], layout, diag);
  if (st != PL_OK)
    return st;
  if (layout != NULL)
    predict_busbw(s);
  return PL_OK;
}

/* predict --ops --format json: the "ops" array (report.h), when present. */
static enum pl_status pred_ops(struct pl_trace_summary *s, yajl_val root, struct pl_diag *diag) {
  yajl_val a = base_json_get(root, "ops");
  if (a == NULL || YAJL_IS_NULL(a))
    return PL_OK;
  if (!YAJL_IS_ARRAY(a))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'ops': expected an array", s->origin);
  size_t n = a->u.array.len;
  if (n > PL_TRACE_SUMMARY_MAX_OPS)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: more than %d ops", s->origin,
                       PL_TRACE_SUMMARY_MAX_OPS);
  s->ops = pl_calloc(n ? n : 1, sizeof *s->ops);
  if (s->ops == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  enum pl_status st = PL_OK;
  for (size_t i = 0; i < n && st == PL_OK; i++) {
    yajl_val o = a->u.array.values[i];
    struct pl_trace_summary_op *r = &s->ops[s->n_ops++];
    bool has;
    st = base_json_str(o, "segment", true, s->origin, r->segment, sizeof r->segment, diag);
    if (st == PL_OK)
      st = base_json_str(o, "name", true, s->origin, r->name, sizeof r->name, diag);
    if (st == PL_OK)
      st = base_json_str(o, "kind", true, s->origin, r->kind, sizeof r->kind, diag);
    if (st == PL_OK)
      st = base_json_int(o, "m", true, s->origin, &r->m, diag);
    if (st == PL_OK)
      st = base_json_int(o, "n", true, s->origin, &r->n, diag);
    if (st == PL_OK)
      st = base_json_int(o, "k", true, s->origin, &r->k, diag);
    if (st == PL_OK)
      st = base_json_int(o, "count", true, s->origin, &r->count, diag);
    if (st == PL_OK)
      st = opt_num(o, "fwd_s", s->origin, &r->fwd_s, &has, diag);
    if (st == PL_OK)
      st = opt_num(o, "bwd_s", s->origin, &r->bwd_s, &has, diag);
    if (st == PL_OK)
      st = opt_num(o, "per_step_s", s->origin, &r->per_step_s, &has, diag);
  }
  return st;
}

static enum pl_status from_result(yajl_val root, struct pl_trace_summary *s,
                                  struct pl_diag *diag) {
  yajl_val layout = base_json_get(root, "layout");
  bool trace_json = base_json_get(root, "ranks") != NULL;
  if (!YAJL_IS_OBJECT(root) || base_json_get(root, "breakdown") == NULL ||
      (!trace_json && layout == NULL))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: neither a Kineto trace nor a plateau result (trace analyze or "
                       "predict --format json)",
                       s->origin);
  s->source = trace_json ? PL_TSRC_TRACE_JSON : PL_TSRC_PREDICT_JSON;
  if (trace_json)
    base_json_int(root, "files", false, s->origin, &s->ranks, NULL);
  else
    base_json_int(layout, "gpus", false, s->origin, &s->ranks, NULL);
  enum pl_status st = metrics(s, root, diag);
  if (st == PL_OK && !trace_json && s->has[PL_TM_EXPOSED_COMM_S] &&
      s->has[PL_TM_OVERLAPPED_COMM_S])
    set_value(s, PL_TM_COMM_S, s->value[PL_TM_EXPOSED_COMM_S] + s->value[PL_TM_OVERLAPPED_COMM_S]);
  if (st == PL_OK)
    st = colls(s, root, trace_json ? NULL : layout, diag);
  if (st == PL_OK && !trace_json)
    st = pred_ops(s, root, diag);
  return st;
}

static enum pl_status from_trace(const char *path, const struct pl_trace_opts *opts,
                                 struct pl_trace_summary *s, struct pl_diag *diag) {
  struct pl_trace_set *t;
  enum pl_status st = pl_trace_analyze(&path, 1, opts, &t, diag);
  if (st != PL_OK)
    return st;
  st = pl_trace_summary_from_set(t, path, s, diag);
  pl_trace_set_free(t);
  return st;
}

enum pl_status pl_trace_summary_load(const char *path, const struct pl_trace_opts *opts,
                                     struct pl_trace_summary *s, struct pl_diag *diag) {
  memset(s, 0, sizeof *s);
  if (looks_like_trace(path))
    return from_trace(path, opts, s, diag);
  yajl_val root = NULL;
  enum pl_status st = base_json_load(path, &root, diag);
  if (st == PL_ERR_LIMIT || (st == PL_OK && base_json_get(root, "traceEvents") != NULL)) {
    base_json_free(root);
    return from_trace(path, opts, s, diag);
  }
  if (st == PL_OK) {
    snprintf(s->origin, sizeof s->origin, "'%s'", path);
    st = from_result(root, s, diag);
    snprintf(s->origin, sizeof s->origin, "%s", path);
  }
  base_json_free(root);
  if (st != PL_OK)
    pl_trace_summary_free(s);
  return st;
}
