/* reader_fields.c: one traceEvents object assembled in a fixed-size struct
 * as its members arrive (reader.c hands each value over with its key).
 * Once its phase, category and name show that the event cannot be kept
 * (decide_drop), reader.c skips its remaining fields unparsed. A wrong type
 * in a field we use is an error, never a guess. */
#include <limits.h>
#include <string.h>

#include "reader_int.h"

/* Kineto's categories (current and 2021 schema): the length and a byte or
 * two pick the one candidate, one memcmp confirms it. This runs once per
 * event, so it is a switch rather than a walk over a table. */
static enum cat cat_is(const char *s, size_t n, const char *lit, enum cat c) {
  return memcmp(s, lit, n) == 0 ? c : CAT_OTHER;
}

static enum cat cat_of(const char *s, size_t n) {
  switch (n) {
  case 4:
    return cat_is(s, n, "ac2g", CAT_FLOW);
  case 5:
    return cat_is(s, n, "async", CAT_FLOW);
  case 6:
    switch (s[0]) {
    case 'k':
      return cat_is(s, n, "kernel", CAT_KERNEL);
    case 'K':
      return cat_is(s, n, "Kernel", CAT_KERNEL);
    case 'M':
      return s[4] == 'p' ? cat_is(s, n, "Memcpy", CAT_MEMCPY) : cat_is(s, n, "Memset", CAT_MEMSET);
    case 'D':
      return cat_is(s, n, "Driver", CAT_RUNTIME);
    case 'c':
      return cat_is(s, n, "cpu_op", CAT_CPU);
    default:
      return CAT_OTHER;
    }
  case 7:
    return cat_is(s, n, "Runtime", CAT_RUNTIME);
  case 8:
    return cat_is(s, n, "Operator", CAT_CPU);
  case 10:
    return s[7] == 'c' ? cat_is(s, n, "gpu_memcpy", CAT_MEMCPY)
                       : cat_is(s, n, "gpu_memset", CAT_MEMSET);
  case 11:
    return cat_is(s, n, "cuda_driver", CAT_RUNTIME);
  case 12:
    return cat_is(s, n, "cuda_runtime", CAT_RUNTIME);
  case 15:
    return s[0] == 'p' ? cat_is(s, n, "python_function", CAT_PY)
           : s[0] == 'u' ? cat_is(s, n, "user_annotation", CAT_CPU)
                         : cat_is(s, n, "User Annotation", CAT_CPU);
  default:
    return CAT_OTHER;
  }
}

int trace_rd_event_num(struct reader *r, const char *s, size_t n) {
  struct event *e = &r->e;
  switch (r->ekey) {
  case EK_TS:
    if (!trace_text_us_to_ns(s, n, &e->ts))
      return trace_rd_fail(r, PL_ERR_RANGE, "field 'ts' value %.*s is not a time in microseconds",
                           (int)(n < 40 ? n : 40), s);
    if (e->ts > TRACE_MAX_TS_NS || e->ts < -TRACE_MAX_TS_NS)
      return trace_rd_fail(r, PL_ERR_RANGE,
                           "field 'ts' value %.*s is out of range (|ts| > 4e15 us)",
                           (int)(n < 40 ? n : 40), s);
    e->has_ts = true;
    return 1;
  case EK_DUR:
    if (!trace_text_us_to_ns(s, n, &e->dur) || e->dur < 0)
      return trace_rd_fail(r, PL_ERR_RANGE, "field 'dur' value %.*s is negative or not a duration",
                           (int)(n < 40 ? n : 40), s);
    if (e->dur > TRACE_MAX_DUR_NS)
      return trace_rd_fail(r, PL_ERR_RANGE,
                           "field 'dur' value %.*s is out of range (> 1e12 us, 11.6 days)",
                           (int)(n < 40 ? n : 40), s);
    e->has_dur = true;
    return 1;
  case EK_TID:
    trace_text_i64(s, n, &e->tid);
    return 1;
  case EK_PID:
    e->has_pid = trace_text_i64(s, n, &e->pid);
    return 1;
  case EK_ID:
    e->has_id = trace_text_i64(s, n, &e->id);
    return 1;
  default:
    return 1;
  }
}

static bool has_prefix(const char *s, size_t n, const char *p, size_t m) {
  return n >= m && memcmp(s, p, m) == 0;
}

/* Once its category and name are known, most events (CPU ops, Python frames,
 * counters) cannot be kept (see reader_commit.c): the rest of their fields are skipped
 * unparsed, which is most of the callbacks of a trace. The prefix tests match
 * commit_cpu's. */
static void decide_drop(struct event *e) {
  static const char ps[] = "ProfilerStep#", rpc[] = "record_param_comms";
  if (!e->has_cat)
    return;
  if (e->cat == CAT_OTHER) {
    e->drop = true;
    return;
  }
  if (!e->has_name)
    return;
  size_t kn = e->name_len < NAME_KEEP ? e->name_len : NAME_KEEP;
  if (e->cat == CAT_PY)
    e->drop = !e->recompute;
  else if (e->cat == CAT_CPU)
    e->drop = !has_prefix(e->name, kn, ps, sizeof ps - 1) &&
              !(kn == sizeof rpc - 1 && memcmp(e->name, rpc, kn) == 0) && !trace_rd_is_title(e);
}

static void event_name(struct event *e, const char *s, size_t n) {
  size_t k = n < NAME_KEEP ? n : NAME_KEEP;
  memcpy(e->name, s, k);
  e->name_len = n;
  e->has_name = true;
  static const char rc[] = "recompute_fn";
  e->recompute = n >= sizeof rc - 1 && memcmp(s + n - (sizeof rc - 1), rc, sizeof rc - 1) == 0;
  decide_drop(e);
}

int trace_rd_event_str(struct reader *r, const char *s, size_t n) {
  struct event *e = &r->e;
  switch (r->ekey) {
  case EK_PH:
    e->ph = n > 0 ? s[0] : 0;
    e->drop |= e->ph != 'X' && e->ph != 's'; /* commit keeps no other phase */
    return 1;
  case EK_CAT:
    e->cat = cat_of(s, n);
    e->has_cat = true;
    decide_drop(e);
    return 1;
  case EK_NAME:
    event_name(e, s, n);
    return 1;
  case EK_TID:
    e->tid = trace_text_digits(s, n);
    return 1;
  case EK_ID:
    e->has_id = trace_text_i64(s, n, &e->id); /* some writers quote flow ids */
    return 1;
  case EK_TS:
  case EK_DUR:
    return trace_rd_type_error(r, r->ekey == EK_TS ? "ts" : "dur", V_STR, "a number");
  default:
    return 1;
  }
}

int trace_rd_arg_num(struct reader *r, const char *s, size_t n) {
  struct event *e = &r->e;
  int64_t v;
  if (r->akey == AK_OTHER)
    return 1;
  if (!trace_text_i64(s, n, &v)) {
    if (r->akey == AK_CORR || r->akey == AK_EXT)
      return trace_rd_fail(r, PL_ERR_RANGE, "args field '%s' value %.*s is not an integer id",
                           r->akey == AK_CORR ? "correlation" : "External id",
                           (int)(n < 40 ? n : 40), s);
    return 1; /* other numeric args may be fractional; not ours */
  }
  switch (r->akey) {
  case AK_CORR:
    e->corr = v;
    break;
  case AK_EXT:
    e->ext_id = v;
    break;
  case AK_IN:
    e->coll.in_nelems = v;
    break;
  case AK_OUT:
    e->coll.out_nelems = v;
    break;
  case AK_GROUP:
    e->coll.group_size = v;
    break;
  case AK_GSTART:
    e->coll.group_start = v;
    break;
  case AK_GSTRIDE:
    e->coll.group_stride = v > 0 ? v : 0;
    break;
  default:
    break;
  }
  return 1;
}

/* "[0, 1, 2, 3]": the number of ranks, and the first and the stride when
 * they are evenly spaced (stride 0 otherwise). */
static void rank_list(const char *s, size_t n, struct trace_coll *c) {
  int64_t k = 0, v = 0, prev = 0, first = 0, stride = 0;
  bool digit = false, even = true;
  for (size_t i = 0; i <= n; i++) {
    bool d = i < n && s[i] >= '0' && s[i] <= '9';
    if (d) {
      v = v < INT64_MAX / 10 - 9 ? v * 10 + (s[i] - '0') : v;
    } else if (digit) { /* a number ended */
      if (k == 0)
        first = v;
      else if (k == 1)
        stride = v - first;
      else if (v - prev != stride)
        even = false;
      prev = v;
      k++;
      v = 0;
    }
    digit = d;
  }
  if (c->group_size < 0)
    c->group_size = k;
  if (c->group_stride == 0 && k > 0 && even) {
    c->group_start = first;
    c->group_stride = k == 1 ? 1 : stride > 0 ? stride : 0;
  }
}

int trace_rd_arg_str(struct reader *r, const char *s, size_t n) {
  struct event *e = &r->e;
  switch (r->akey) {
  case AK_COLL:
    e->coll.op = (uint8_t)trace_op_from_collective(s, n);
    e->has_coll = true;
    return 1;
  case AK_DTYPE:
    e->coll.dtype_bytes = trace_dtype_bytes(s, n);
    return 1;
  case AK_PG_RANKS:
    rank_list(s, n, &e->coll);
    return 1;
  case AK_CORR:
  case AK_EXT:
    return trace_rd_type_error(r, r->akey == AK_CORR ? "correlation" : "External id", V_STR,
                               "a number");
  default:
    return 1;
  }
}

void trace_rd_event_reset(struct event *e) {
  e->ph = 0;
  e->cat = CAT_OTHER;
  e->name_len = 0;
  e->has_ts = e->has_dur = e->has_id = e->has_pid = e->recompute = e->has_coll = false;
  e->has_cat = e->has_name = e->drop = false;
  e->ts = e->dur = e->tid = e->pid = e->id = 0;
  e->corr = e->ext_id = -1;
  memset(&e->coll, 0, sizeof e->coll);
  e->coll.in_nelems = e->coll.out_nelems = e->coll.group_size = -1;
  e->coll.ext_id = -1;
  e->shape_arr = e->dims_state = 0;
  e->type_seen = false;
  e->type_bytes = 0;
  e->dims_prod = -1;
}
