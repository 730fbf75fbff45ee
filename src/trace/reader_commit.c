/* reader_commit.c: a traceEvents object closed: what the metrics need of
 * it goes into the flat arrays of trace_int.h (GPU activity and its
 * collectives' args, launches, ProfilerStep and recompute spans,
 * record_param_comms collectives); the rest is dropped. Launches and GPU
 * records beyond their budgets spill to temporary files (spill.c,
 * gspill.c). */
#include <limits.h>
#include <string.h>

#include "reader_int.h"

static int need_times(struct reader *r, bool dur) {
  struct event *e = &r->e;
  if (!e->has_ts)
    return trace_rd_fail(r, PL_ERR_MISSING, "traceEvents[%lld] has no 'ts'",
                         (long long)(r->index - 1));
  if (dur && !e->has_dur)
    return trace_rd_fail(r, PL_ERR_MISSING, "traceEvents[%lld] has no 'dur'",
                         (long long)(r->index - 1));
  return 1;
}

/* The device index of a GPU event: its pid among the distinct pids of the
 * file (first seen first); past TRACE_MAX_DEVICES the last index is shared.
 * An event without a pid is TRACE_DEV_NONE. */
static uint8_t device_of(struct trace_data *d, const struct event *e) {
  if (!e->has_pid)
    return TRACE_DEV_NONE;
  for (int i = d->n_devices - 1; i >= 0; i--)
    if (d->devices[i] == e->pid)
      return (uint8_t)i;
  if (d->n_devices < TRACE_MAX_DEVICES)
    d->devices[d->n_devices++] = e->pid;
  return (uint8_t)(d->n_devices - 1);
}

/* The stream index of a GPU event: its tid (Kineto writes the CUDA stream
 * there; "stream 7" in the 2021 schema) among the file's streams, the last
 * one seen first; past TRACE_MAX_STREAMS the last index is shared. */
static uint8_t stream_of(struct trace_data *d, int64_t tid) {
  for (int i = d->n_streams - 1; i >= 0; i--)
    if (d->streams[i] == tid)
      return (uint8_t)i;
  if (d->n_streams < TRACE_MAX_STREAMS)
    d->streams[d->n_streams++] = tid;
  return (uint8_t)(d->n_streams - 1);
}

static int commit_comm(struct reader *r, const struct event *e) {
  struct trace_comm *c = trace_vec_push(&r->d->comm, sizeof *c);
  if (c == NULL)
    return trace_rd_oom(r);
  c->ext_id = e->ext_id;
  c->gpu = (int32_t)(r->d->gpu.len - 1);
  c->coll = -1;
  if (e->has_coll) {
    struct trace_coll *k = trace_vec_push(&r->d->colls, sizeof *k);
    if (k == NULL)
      return trace_rd_oom(r);
    *k = e->coll;
    c->coll = (int32_t)(r->d->colls.len - 1);
  }
  return 1;
}

static int commit_gpu(struct reader *r) {
  struct event *e = &r->e;
  if (!need_times(r, true))
    return 0;
  if (r->d->gpu.len >= INT32_MAX)
    return trace_rd_fail(r, PL_ERR_LIMIT, "more than %d GPU events", INT32_MAX);
  if (r->d->gpu.len >= r->gpu_cap) {
    enum pl_status s = trace_spill_gpu(r->d, NULL);
    if (s != PL_OK)
      return s == PL_ERR_NOMEM ? trace_rd_oom(r)
                               : trace_rd_fail(r, s, "cannot write GPU events to a temporary file");
  }
  struct trace_gpu *g = trace_vec_push(&r->d->gpu, sizeof *g);
  int64_t *corr = g ? trace_vec_push(&r->d->corr, sizeof *corr) : NULL;
  if (corr == NULL)
    return trace_rd_oom(r);
  size_t kn = e->name_len < NAME_KEEP ? e->name_len : NAME_KEEP;
  *corr = e->corr;
  g->ts_ns = e->ts;
  g->dur_ns = e->dur;
  g->launch_ns = INT64_MIN;
  g->rt_dur_ns = -1;
  g->step = -1;
  g->flags = 0;
  g->name_op = 0;
  g->dev = device_of(r->d, e);
  g->stream = stream_of(r->d, e->tid);
  int32_t name = trace_name_intern(r->d, e->name, kn);
  if (name < 0)
    return trace_rd_oom(r);
  g->name = (uint16_t)name;
  g->kind = e->cat == CAT_MEMCPY ? TRACE_MEMCPY : e->cat == CAT_MEMSET ? TRACE_MEMSET
                                                                      : TRACE_COMPUTE;
  if (e->cat == CAT_KERNEL && trace_is_comm_kernel(e->name, kn)) {
    g->kind = TRACE_COMM;
    g->name_op = (uint8_t)trace_op_from_kernel(e->name, kn);
    return commit_comm(r, e);
  }
  return 1;
}

/* A flow start right after its runtime call (or the reverse) joins that
 * record, so a launch costs one record, not two; other repeats are merged
 * by trace_link (the runtime call's time, thread and External id win). */
static bool merge_launch(struct trace_data *d, const struct event *e, bool flow) {
  if (d->launches.len == 0)
    return false;
  struct trace_launch *l = &TRACE_AT(d->launches, struct trace_launch, d->launches.len - 1);
  if (l->corr != (flow ? e->id : e->corr) || (flow ? l->flow : l->runtime))
    return false;
  if (flow) {
    l->flow = 1;
    return true;
  }
  l->ts_ns = e->ts;
  l->tid = trace_tid32(e->tid);
  l->ext_id = e->ext_id;
  l->dur_ns = e->has_dur ? e->dur : -1;
  l->runtime = 1;
  return true;
}

static int commit_launch(struct reader *r, bool flow) {
  struct event *e = &r->e;
  if (!need_times(r, false))
    return 0;
  if (merge_launch(r->d, e, flow))
    return 1;
  if (r->d->launches.len >= r->spill_cap) {
    enum pl_status s = trace_spill_launches(r->d, NULL);
    if (s != PL_OK)
      return s == PL_ERR_NOMEM ? trace_rd_oom(r)
                               : trace_rd_fail(r, s, "cannot write launches to a temporary file");
  }
  struct trace_launch *l = trace_vec_push(&r->d->launches, sizeof *l);
  if (l == NULL)
    return trace_rd_oom(r);
  l->corr = flow ? e->id : e->corr;
  l->ts_ns = e->ts;
  l->tid = trace_tid32(e->tid);
  l->ext_id = flow ? -1 : e->ext_id;
  l->dur_ns = !flow && e->has_dur ? e->dur : -1;
  l->flow = flow;
  l->runtime = !flow;
  return 1;
}

static int commit_span(struct reader *r, struct trace_vec *v, int64_t num) {
  struct event *e = &r->e;
  if (!need_times(r, true))
    return 0;
  struct trace_span *s = trace_vec_push(v, sizeof *s);
  if (s == NULL)
    return trace_rd_oom(r);
  s->ts_ns = e->ts;
  s->end_ns = e->ts + e->dur;
  s->tid = e->tid;
  s->num = num;
  return 1;
}

static int commit_cpu(struct reader *r) {
  struct event *e = &r->e;
  static const char ps[] = "ProfilerStep#";
  size_t kn = e->name_len < NAME_KEEP ? e->name_len : NAME_KEEP;
  if (kn > sizeof ps - 1 && memcmp(e->name, ps, sizeof ps - 1) == 0) {
    int64_t num;
    if (trace_text_i64(e->name + sizeof ps - 1, kn - (sizeof ps - 1), &num))
      return commit_span(r, &r->d->steps, num);
    return 1;
  }
  if (trace_rd_is_title(e)) { /* "nccl:<op>" (reader_shape.c) */
    if (!need_times(r, true))
      return 0;
    struct trace_coll *c = trace_vec_push(&r->d->colls, sizeof *c);
    if (c == NULL)
      return trace_rd_oom(r);
    memset(c, 0, sizeof *c);
    c->op = (uint8_t)trace_op_from_collective(e->name + 5, kn - 5);
    c->in_nelems = e->dims_state == 3 ? e->dims_prod : -1;
    c->out_nelems = c->group_size = -1;
    c->dtype_bytes = e->type_bytes;
    c->title = 1;
    c->ext_id = e->ext_id;
    c->ts_ns = e->ts;
    c->end_ns = e->ts + e->dur;
    c->tid = e->tid;
    return 1;
  }
  if (e->has_coll && key_is((const unsigned char *)e->name, kn, "record_param_comms")) {
    if (!need_times(r, true))
      return 0;
    struct trace_coll *c = trace_vec_push(&r->d->colls, sizeof *c);
    if (c == NULL)
      return trace_rd_oom(r);
    *c = e->coll;
    c->ext_id = e->ext_id;
    c->ts_ns = e->ts;
    c->end_ns = e->ts + e->dur;
    c->tid = e->tid;
  }
  return 1;
}

int trace_rd_commit(struct reader *r) {
  struct event *e = &r->e;
  r->d->n_events++;
  switch (e->cat) {
  case CAT_KERNEL:
  case CAT_MEMCPY:
  case CAT_MEMSET:
    return e->ph == 'X' ? commit_gpu(r) : 1;
  case CAT_RUNTIME:
    return e->ph == 'X' && e->corr >= 0 ? commit_launch(r, false) : 1;
  case CAT_FLOW:
    return e->ph == 's' && e->has_id ? commit_launch(r, true) : 1;
  case CAT_CPU:
    return e->ph == 'X' ? commit_cpu(r) : 1;
  case CAT_PY:
    return e->ph == 'X' && e->recompute ? commit_span(r, &r->d->recompute, 0) : 1;
  default:
    return 1;
  }
}
