/* reader.c: one Kineto trace file streamed through yajl's event parser
 * (yajl_parse.h) into the flat arrays of trace_int.h. No document tree is
 * built: each traceEvents object is assembled in a fixed-size struct as its
 * members arrive and is either kept (GPU activity, launches, steps, recompute
 * frames, collectives) or dropped when it closes. Once its phase, category
 * and name show that an event cannot be kept (most events: CPU ops, Python
 * frames), its remaining fields are skipped without being looked at.
 *
 * Times: yajl hands every number over as its text (yajl_number callback), and
 * "ts"/"dur" in microseconds with up to three decimals (Kineto >= 2023 writes
 * ns resolution as fractional us) are converted to integer nanoseconds without
 * passing through a double. Digits past the third decimal are rounded half up.
 *
 * Schemas: current Kineto (cat kernel/gpu_memcpy/gpu_memset/cuda_runtime/
 * cuda_driver/ac2g/cpu_op/user_annotation/python_function) and the 2021
 * schema (Kernel/Memcpy/Memset/Runtime/async/Operator, string tids such as
 * "stream 7"), with either an object root holding "traceEvents" or a bare
 * array of events (Chrome trace format).
 *
 * Hostile input: a token (string or number) longer than TRACE_MAX_STRING / 2
 * is refused through yajl's allocator (see ya_realloc), nesting beyond
 * TRACE_MAX_DEPTH by the callbacks; a wrong type in a field we use (a "ts"
 * that is a string, an event that is a number) is an error, never a guess
 * (fields of an event already known to be dropped are not used).
 * Every error names the file and the JSON byte offset (after gunzip). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include <plateau/alloc.h>

#include "trace_int.h"

enum cat { CAT_OTHER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_RUNTIME, CAT_FLOW, CAT_CPU, CAT_PY };
enum ekey { EK_OTHER, EK_PH, EK_CAT, EK_NAME, EK_TS, EK_DUR, EK_TID, EK_PID, EK_ID, EK_ARGS };
enum akey {
  AK_OTHER, AK_CORR, AK_EXT, AK_STREAM, AK_COLL, AK_IN, AK_OUT, AK_GROUP, AK_DTYPE, AK_PG_RANKS,
  AK_GSTART, AK_GSTRIDE
};
enum rkey { RK_OTHER, RK_EVENTS, RK_DIST, RK_DEVPROPS, RK_BASE };
enum vtype { V_NUM, V_STR, V_BOOL, V_NULL, V_MAP, V_ARR };

#define NAME_KEEP 160 /* leading name bytes kept for classification */

struct event {
  char ph;
  enum cat cat;
  char name[NAME_KEEP];
  size_t name_len;
  bool has_ts, has_dur, has_id, has_pid, recompute, has_cat, has_name;
  bool drop; /* the event can no longer be kept: its remaining fields are skipped */
  int64_t ts, dur, tid, pid, id, corr, ext_id;
  struct trace_coll coll; /* from args */
  bool has_coll;
};

struct reader {
  struct trace_data *d;
  const char *path;
  yajl_handle h;
  struct pl_diag *diag;
  enum pl_status err;
  int64_t chunk_off;
  int depth;
  int ev;            /* depth at which event objects sit (0 = no events array yet) */
  int skip_above;    /* callbacks deeper than this have nothing to do (see dropped) */
  bool root_array, in_events, in_args, in_dist, dev_seen, saw_events;
  enum rkey rkey;
  enum ekey ekey;
  enum akey akey;
  int devprop_name;  /* 1 while the current devprops key is "name" */
  int dkey;          /* distributedInfo key: 1 rank, 2 world_size, 0 other */
  int64_t index;     /* events seen */
  struct event e;
  bool too_long;     /* yajl asked for a token buffer above the cap */
  size_t spill_cap;  /* launches held before they spill (trace_spill_cap) */
  size_t gpu_cap;    /* GPU records held before they spill (trace_gpu_cap) */
};

static const char *vname(enum vtype t) {
  static const char *n[] = {"a number", "a string", "a boolean", "null", "an object", "an array"};
  return n[t];
}

static int64_t here(const struct reader *r) {
  return r->chunk_off + (int64_t)yajl_get_bytes_consumed(r->h);
}

/* Record an error (first one wins) and stop the parse. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(struct reader *r, enum pl_status s, const char *fmt, ...) {
  if (r->err != PL_OK)
    return 0;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int64_t at = here(r);
  r->err = pl_diag_set(r->diag, s, "trace '%s': byte %lld: %s", r->path, (long long)at, what);
  if (r->diag != NULL)
    r->diag->offset = at;
  return 0;
}

static int type_error(struct reader *r, const char *field, enum vtype t, const char *want) {
  return fail(r, PL_ERR_PARSE, "field '%s' is %s, expected %s", field, vname(t), want);
}

/* ---- numbers from text ---- */

static bool text_i64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = n > 0 && s[0] == '-';
  i += neg;
  if (i == n)
    return false;
  int64_t v = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (v > (INT64_MAX - 9) / 10)
      return false;
    v = v * 10 + (s[i] - '0');
  }
  /* "8.0" is an integer; "8.5" or "1e3" is not */
  if (i < n && s[i] == '.') {
    for (i++; i < n && s[i] == '0'; i++)
      ;
  }
  if (i != n)
    return false;
  *out = neg ? -v : v;
  return true;
}

/* Microseconds as text ("3743411222862.936", "1623142623460111", "5e-3")
 * to integer nanoseconds. */
static bool text_us_to_ns(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = n > 0 && s[0] == '-';
  i += neg;
  int64_t us = 0;
  size_t digits = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
    if (us > (INT64_MAX / 1000 - 9) / 10)
      return false;
    us = us * 10 + (s[i] - '0');
  }
  int64_t frac = 0;
  int fd = 0;
  bool round_up = false;
  if (i < n && s[i] == '.') {
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
      if (fd < 3)
        frac = frac * 10 + (s[i] - '0');
      else if (fd == 3)
        round_up = s[i] >= '5';
      fd++;
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    /* exponent form: not written by Kineto; accepted, rounded to 1 ns */
    char buf[64];
    if (n >= sizeof buf)
      return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (*end != '\0' || !(v > -9e12 && v < 9e12))
      return false;
    double ns = v * 1000.0;
    *out = (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
    return true;
  }
  if (i != n || digits == 0)
    return false;
  for (; fd < 3; fd++)
    frac *= 10;
  int64_t v = us * 1000 + frac + (round_up ? 1 : 0);
  *out = neg ? -v : v;
  return true;
}

/* "stream 7", "25738", "[pid:tid]" -> the first run of digits, else 0. */
static int64_t text_digits(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (s[i] < '0' || s[i] > '9'))
    i++;
  int64_t v = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9' && v < INT64_MAX / 10 - 9; i++)
    v = v * 10 + (s[i] - '0');
  return v;
}

/* ---- keys ---- */

static bool key_is_n(const unsigned char *k, size_t n, const char *lit, size_t m) {
  return n == m && memcmp(k, lit, m) == 0;
}
/* lit must be a string literal: its length is a compile-time constant */
#define key_is(k, n, lit) key_is_n((k), (n), (lit), sizeof(lit) - 1)

static enum ekey event_key(const unsigned char *k, size_t n) {
  switch (n) {
  case 2:
    return key_is(k, n, "ph") ? EK_PH : key_is(k, n, "ts") ? EK_TS : key_is(k, n, "id") ? EK_ID
                                                                                       : EK_OTHER;
  case 3:
    return key_is(k, n, "cat")   ? EK_CAT
           : key_is(k, n, "dur") ? EK_DUR
           : key_is(k, n, "tid") ? EK_TID
           : key_is(k, n, "pid") ? EK_PID
                                 : EK_OTHER;
  case 4:
    return key_is(k, n, "name") ? EK_NAME : key_is(k, n, "args") ? EK_ARGS : EK_OTHER;
  default:
    return EK_OTHER;
  }
}

static enum akey arg_key(const unsigned char *k, size_t n) {
  switch (n) {
  case 5:
    return key_is(k, n, "dtype") ? AK_DTYPE : AK_OTHER;
  case 6:
    return key_is(k, n, "stream") ? AK_STREAM : AK_OTHER;
  case 10:
    return key_is(k, n, "Group size") ? AK_GROUP : AK_OTHER;
  case 11:
    return key_is(k, n, "correlation") ? AK_CORR
           : (key_is(k, n, "External id") || key_is(k, n, "external id")) ? AK_EXT
                                                                           : AK_OTHER;
  case 13:
    return key_is(k, n, "In msg nelems") ? AK_IN : AK_OTHER;
  case 14:
    return key_is(k, n, "Out msg nelems") ? AK_OUT : AK_OTHER;
  case 15:
    return key_is(k, n, "Collective name") ? AK_COLL : AK_OTHER;
  case 17:
    return key_is(k, n, "Global rank start") ? AK_GSTART : AK_OTHER;
  case 18:
    return key_is(k, n, "Global rank stride") ? AK_GSTRIDE : AK_OTHER;
  case 19:
    return key_is(k, n, "Process Group Ranks") ? AK_PG_RANKS : AK_OTHER;
  default:
    return AK_OTHER;
  }
}

static enum rkey root_key(const unsigned char *k, size_t n) {
  if (key_is(k, n, "traceEvents"))
    return RK_EVENTS;
  if (key_is(k, n, "distributedInfo"))
    return RK_DIST;
  if (key_is(k, n, "deviceProperties"))
    return RK_DEVPROPS;
  if (key_is(k, n, "baseTimeNanoseconds"))
    return RK_BASE;
  return RK_OTHER;
}

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

/* ---- event fields ---- */

static int event_num(struct reader *r, const char *s, size_t n) {
  struct event *e = &r->e;
  switch (r->ekey) {
  case EK_TS:
    if (!text_us_to_ns(s, n, &e->ts))
      return fail(r, PL_ERR_RANGE, "field 'ts' value %.*s is not a time in microseconds",
                  (int)(n < 40 ? n : 40), s);
    if (e->ts > TRACE_MAX_TS_NS || e->ts < -TRACE_MAX_TS_NS)
      return fail(r, PL_ERR_RANGE, "field 'ts' value %.*s is out of range (|ts| > 4e15 us)",
                  (int)(n < 40 ? n : 40), s);
    e->has_ts = true;
    return 1;
  case EK_DUR:
    if (!text_us_to_ns(s, n, &e->dur) || e->dur < 0)
      return fail(r, PL_ERR_RANGE, "field 'dur' value %.*s is negative or not a duration",
                  (int)(n < 40 ? n : 40), s);
    if (e->dur > TRACE_MAX_DUR_NS)
      return fail(r, PL_ERR_RANGE, "field 'dur' value %.*s is out of range (> 1e12 us, 11.6 days)",
                  (int)(n < 40 ? n : 40), s);
    e->has_dur = true;
    return 1;
  case EK_TID:
    text_i64(s, n, &e->tid);
    return 1;
  case EK_PID:
    e->has_pid = text_i64(s, n, &e->pid);
    return 1;
  case EK_ID:
    e->has_id = text_i64(s, n, &e->id);
    return 1;
  default:
    return 1;
  }
}

static bool has_prefix(const char *s, size_t n, const char *p, size_t m) {
  return n >= m && memcmp(s, p, m) == 0;
}

/* Once its category and name are known, most events (CPU ops, Python frames,
 * counters) cannot be kept (see commit): the rest of their fields are skipped
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
              !(kn == sizeof rpc - 1 && memcmp(e->name, rpc, kn) == 0);
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

static int event_str(struct reader *r, const char *s, size_t n) {
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
    e->tid = text_digits(s, n);
    return 1;
  case EK_ID:
    e->has_id = text_i64(s, n, &e->id); /* some writers quote flow ids */
    return 1;
  case EK_TS:
  case EK_DUR:
    return type_error(r, r->ekey == EK_TS ? "ts" : "dur", V_STR, "a number");
  default:
    return 1;
  }
}

static int arg_num(struct reader *r, const char *s, size_t n) {
  struct event *e = &r->e;
  int64_t v;
  if (r->akey == AK_OTHER)
    return 1;
  if (!text_i64(s, n, &v)) {
    if (r->akey == AK_CORR || r->akey == AK_EXT)
      return fail(r, PL_ERR_RANGE, "args field '%s' value %.*s is not an integer id",
                  r->akey == AK_CORR ? "correlation" : "External id", (int)(n < 40 ? n : 40), s);
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

static int arg_str(struct reader *r, const char *s, size_t n) {
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
    return type_error(r, r->akey == AK_CORR ? "correlation" : "External id", V_STR, "a number");
  default:
    return 1;
  }
}

static void event_reset(struct event *e) {
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
}

/* ---- committing one event ---- */

static int oom(struct reader *r) {
  return fail(r, PL_ERR_NOMEM, "out of memory");
}

static int need_times(struct reader *r, bool dur) {
  struct event *e = &r->e;
  if (!e->has_ts)
    return fail(r, PL_ERR_MISSING, "traceEvents[%lld] has no 'ts'", (long long)(r->index - 1));
  if (dur && !e->has_dur)
    return fail(r, PL_ERR_MISSING, "traceEvents[%lld] has no 'dur'", (long long)(r->index - 1));
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
    return oom(r);
  c->ext_id = e->ext_id;
  c->gpu = (int32_t)(r->d->gpu.len - 1);
  c->coll = -1;
  if (e->has_coll) {
    struct trace_coll *k = trace_vec_push(&r->d->colls, sizeof *k);
    if (k == NULL)
      return oom(r);
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
    return fail(r, PL_ERR_LIMIT, "more than %d GPU events", INT32_MAX);
  if (r->d->gpu.len >= r->gpu_cap) {
    enum pl_status s = trace_spill_gpu(r->d, NULL);
    if (s != PL_OK)
      return s == PL_ERR_NOMEM ? oom(r) : fail(r, s, "cannot write GPU events to a temporary file");
  }
  struct trace_gpu *g = trace_vec_push(&r->d->gpu, sizeof *g);
  int64_t *corr = g ? trace_vec_push(&r->d->corr, sizeof *corr) : NULL;
  if (corr == NULL)
    return oom(r);
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
    return oom(r);
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
      return s == PL_ERR_NOMEM ? oom(r) : fail(r, s, "cannot write launches to a temporary file");
  }
  struct trace_launch *l = trace_vec_push(&r->d->launches, sizeof *l);
  if (l == NULL)
    return oom(r);
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
    return oom(r);
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
    if (text_i64(e->name + sizeof ps - 1, kn - (sizeof ps - 1), &num))
      return commit_span(r, &r->d->steps, num);
    return 1;
  }
  if (e->has_coll && key_is((const unsigned char *)e->name, kn, "record_param_comms")) {
    if (!need_times(r, true))
      return 0;
    struct trace_coll *c = trace_vec_push(&r->d->colls, sizeof *c);
    if (c == NULL)
      return oom(r);
    *c = e->coll;
    c->ext_id = e->ext_id;
    c->ts_ns = e->ts;
    c->end_ns = e->ts + e->dur;
    c->tid = e->tid;
  }
  return 1;
}

static int commit(struct reader *r) {
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

/* ---- where a value sits ---- */

static int root_value(struct reader *r, enum vtype t) {
  if (t == V_MAP)
    return 1;
  if (t == V_ARR) { /* Chrome trace array format: the root is the event list */
    r->root_array = r->in_events = r->saw_events = true;
    r->ev = 1;
    r->skip_above = r->ev + 2;
    return 1;
  }
  return fail(r, PL_ERR_PARSE, "not a Kineto trace: the top-level value is %s", vname(t));
}

static int member_value(struct reader *r, enum vtype t, const char *s, size_t n) {
  switch (r->rkey) {
  case RK_EVENTS:
    if (t != V_ARR)
      return type_error(r, "traceEvents", t, "an array");
    r->in_events = r->saw_events = true;
    r->ev = 2;
    r->skip_above = r->ev + 2;
    return 1;
  case RK_DIST:
    r->in_dist = t == V_MAP;
    return 1;
  case RK_BASE:
    if ((t == V_NUM || t == V_STR) && !text_i64(s, n, &r->d->base_ns))
      return fail(r, PL_ERR_RANGE, "baseTimeNanoseconds is not an integer");
    return 1;
  default:
    return 1;
  }
}

static int dist_value(struct reader *r, enum vtype t, const char *s, size_t n) {
  int64_t v;
  if (t != V_NUM || !text_i64(s, n, &v))
    return 1;
  if (r->dkey == 1)
    r->d->rank = v;
  else if (r->dkey == 2)
    r->d->world_size = v;
  return 1;
}

/* A value or key inside an event that cannot be kept, or nested deeper than
 * an event's args (grid, block, Input Dims: never used): nothing to do. Tested
 * in the callbacks themselves, before the call to on_value. */
static inline bool dropped(const struct reader *r) {
  return r->depth > r->skip_above; /* ev inside a dropped event, else ev + 2 */
}

static int on_value(struct reader *r, enum vtype t, const char *s, size_t n) {
  int d = r->depth;
  if (r->err != PL_OK)
    return 0;
  if (d == 0)
    return root_value(r, t);
  if (r->in_events && d == r->ev) {
    if (t != V_MAP) {
      char f[48];
      snprintf(f, sizeof f, "traceEvents[%lld]", (long long)r->index);
      return type_error(r, f, t, "an object");
    }
    r->index++;
    event_reset(&r->e);
    r->skip_above = r->ev + 2;
    return 1;
  }
  if (r->in_events && d == r->ev + 1) {
    if (r->ekey == EK_ARGS) {
      r->in_args = t == V_MAP;
      return 1;
    }
    if (t == V_NUM)
      return event_num(r, s, n);
    if (t == V_STR) {
      int ok = event_str(r, s, n);
      if (r->e.drop)
        r->skip_above = r->ev;
      return ok;
    }
    if (r->ekey == EK_TS || r->ekey == EK_DUR)
      return type_error(r, r->ekey == EK_TS ? "ts" : "dur", t, "a number");
    return 1;
  }
  if (r->in_events && r->in_args && d == r->ev + 2) {
    if (t == V_NUM)
      return arg_num(r, s, n);
    if (t == V_STR)
      return arg_str(r, s, n);
    if (r->akey == AK_CORR)
      return type_error(r, "correlation", t, "a number");
    return 1;
  }
  if (!r->root_array && d == 1)
    return member_value(r, t, s, n);
  if (r->in_dist && d == 2)
    return dist_value(r, t, s, n);
  if (r->rkey == RK_DEVPROPS && d == 3 && r->devprop_name && t == V_STR && !r->dev_seen) {
    size_t k = n < sizeof r->d->device - 1 ? n : sizeof r->d->device - 1;
    memcpy(r->d->device, s, k);
    r->d->device[k] = '\0';
    r->dev_seen = true;
  }
  return 1;
}

/* ---- yajl callbacks ---- */

static int cb_null(void *ctx) { return dropped(ctx) || on_value(ctx, V_NULL, NULL, 0); }
static int cb_bool(void *ctx, int b) {
  (void)b;
  return dropped(ctx) || on_value(ctx, V_BOOL, NULL, 0);
}
static int cb_number(void *ctx, const char *s, size_t n) {
  return dropped(ctx) || on_value(ctx, V_NUM, s, n);
}
static int cb_string(void *ctx, const unsigned char *s, size_t n) {
  return dropped(ctx) || on_value(ctx, V_STR, (const char *)s, n);
}

static int open_container(struct reader *r, enum vtype t) {
  if (!dropped(r) && !on_value(r, t, NULL, 0))
    return 0;
  if (++r->depth > TRACE_MAX_DEPTH) {
    return fail(r, PL_ERR_LIMIT, "nesting deeper than %d levels", TRACE_MAX_DEPTH);
  }
  return 1;
}

static int close_container(struct reader *r) {
  r->depth--;
  if (r->in_events && r->depth == r->ev)
    return commit(r); /* an event object closed */
  if (r->in_events && r->depth == r->ev + 1)
    r->in_args = false;
  else if (r->in_events && r->depth == r->ev - 1)
    r->in_events = false, r->skip_above = INT_MAX;
  else if (r->depth == 1)
    r->in_dist = false;
  return r->err == PL_OK;
}

static int cb_start_map(void *ctx) { return open_container(ctx, V_MAP); }
static int cb_start_array(void *ctx) { return open_container(ctx, V_ARR); }
static int cb_end(void *ctx) { return close_container(ctx); }

static int cb_key(void *ctx, const unsigned char *k, size_t n) {
  struct reader *r = ctx;
  int d = r->depth;
  if (dropped(r))
    return 1;
  if (r->in_events && d == r->ev + 1)
    r->ekey = event_key(k, n);
  else if (r->in_events && r->in_args && d == r->ev + 2)
    r->akey = arg_key(k, n);
  else if (!r->root_array && d == 1)
    r->rkey = root_key(k, n);
  else if (r->in_dist && d == 2)
    r->dkey = key_is(k, n, "rank") ? 1 : key_is(k, n, "world_size") ? 2 : 0;
  else if (r->rkey == RK_DEVPROPS && d == 3)
    r->devprop_name = key_is(k, n, "name");
  if (r->in_dist && d == 2 && key_is(k, n, "rank"))
    r->d->has_dist = true;
  return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_key, cb_end, cb_start_array, cb_end,
};

/* ---- yajl through the pl_alloc hook, with the token cap ----
 * yajl copies a token into its lexer buffer only when the token spans two
 * chunks, and grows that buffer by doubling. A request above the cap can only
 * come from one string (or number) longer than half the cap: the request is
 * still served (so yajl never sees NULL, which it does not check), the reader
 * is flagged, and pump() stops after this chunk. Memory stays below twice the
 * cap, and strings inside one chunk cost nothing to check.
 * yajl 2.1 dereferences what its allocator returns without a NULL check
 * (yajl_alloc, yajl_buf_alloc, yajl_bs_push), so its few small allocations
 * bypass the pl_alloc hook: a failure injected there (tests/unit/
 * test_alloc_fail.c) would crash inside yajl instead of testing our paths,
 * as yajl_tree's allocations in src/base/json.c bypass it too. */

static void *ya_malloc(void *ctx, size_t n) {
  struct reader *r = ctx;
  if (n > TRACE_MAX_STRING)
    r->too_long = true;
  return malloc(n);
}
static void *ya_realloc(void *ctx, void *p, size_t n) {
  struct reader *r = ctx;
  if (n > TRACE_MAX_STRING)
    r->too_long = true;
  return realloc(p, n);
}
static void ya_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static enum pl_status too_long(struct reader *r) {
  int64_t at = here(r);
  if (r->diag != NULL)
    r->diag->offset = at;
  return pl_diag_set(r->diag, PL_ERR_LIMIT,
                     "trace '%s': byte %lld: a string or number longer than %u MiB", r->path,
                     (long long)at, TRACE_MAX_STRING >> 21);
}

/* ---- driving the parse ---- */

static enum pl_status yajl_failed(struct reader *r, const unsigned char *b, size_t n,
                                  bool at_end) {
  if (r->err != PL_OK)
    return r->err;
  int64_t at = here(r);
  unsigned char *msg = yajl_get_error(r->h, 0, b, n);
  char why[160];
  snprintf(why, sizeof why, "%s", msg ? (const char *)msg : "parse error");
  if (msg != NULL)
    yajl_free_error(r->h, msg);
  for (char *p = why; *p; p++)
    if (*p == '\n')
      *p = ' ';
  size_t len = strlen(why);
  while (len > 0 && (why[len - 1] == ' ' || why[len - 1] == '.'))
    why[--len] = '\0';
  if (r->diag != NULL)
    r->diag->offset = at;
  return pl_diag_set(r->diag, PL_ERR_PARSE, "trace '%s': byte %lld: %s (%s)", r->path,
                     (long long)at, at_end ? "truncated JSON" : "malformed JSON", why);
}

static enum pl_status pump(struct reader *r, struct trace_input *in) {
  for (;;) {
    const unsigned char *buf;
    size_t n;
    enum pl_status s = trace_input_read(in, &buf, &n, &r->chunk_off, r->diag);
    if (s != PL_OK)
      return s;
    if (n == 0)
      break;
    yajl_status ys = yajl_parse(r->h, buf, n);
    if (r->too_long)
      return too_long(r);
    if (ys != yajl_status_ok)
      return yajl_failed(r, buf, n, false);
    r->d->raw_bytes = r->chunk_off + (int64_t)n;
  }
  if (r->d->raw_bytes == 0)
    return pl_diag_set(r->diag, PL_ERR_PARSE, "trace '%s': empty file", r->path);
  r->chunk_off = r->d->raw_bytes;
  if (yajl_complete_parse(r->h) != yajl_status_ok)
    return yajl_failed(r, NULL, 0, true);
  if (!r->saw_events)
    return pl_diag_set(r->diag, PL_ERR_PARSE,
                       "trace '%s': not a Kineto trace (no traceEvents array)", r->path);
  if (r->index == 0) /* a profiler stopped before its first step writes this */
    return pl_diag_set(r->diag, PL_ERR_MISSING, "trace '%s': traceEvents is empty, nothing to analyze",
                       r->path);
  return PL_OK;
}

/* Parse everything `in` yields into d. */
static enum pl_status read_input(struct trace_input *in, const char *path, struct trace_data *d,
                                 struct pl_diag *diag) {
  struct reader r;
  memset(&r, 0, sizeof r);
  yajl_alloc_funcs afs = {ya_malloc, ya_realloc, ya_free, &r};
  r.d = d;
  r.path = path;
  r.diag = diag;
  r.skip_above = INT_MAX;
  r.spill_cap = trace_spill_cap(d);
  r.gpu_cap = trace_gpu_cap(d);
  d->rank = d->world_size = -1;
  r.h = yajl_alloc(&callbacks, &afs, &r);
  if (r.h == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", path);
  yajl_config(r.h, yajl_dont_validate_strings, 1);
  enum pl_status s = pump(&r, in);
  yajl_free(r.h);
  return s;
}

enum pl_status trace_read(const char *path, struct trace_data *d, struct pl_diag *diag) {
  struct trace_input *in;
  d->rank = d->world_size = -1;
  enum pl_status s = trace_input_open(path, &in, diag);
  if (s != PL_OK)
    return s;
  s = read_input(in, path, d, diag);
  trace_input_close(in);
  return s;
}

enum pl_status trace_read_mem(const void *data, size_t len, const char *name, size_t chunk,
                              struct trace_data *d, struct pl_diag *diag) {
  struct trace_input *in;
  d->rank = d->world_size = -1;
  enum pl_status s = trace_input_open_mem(data, len, name, chunk, &in, diag);
  if (s != PL_OK)
    return s;
  s = read_input(in, name, d, diag);
  trace_input_close(in);
  return s;
}

void trace_data_free(struct trace_data *d) {
  trace_vec_free(&d->gpu);
  trace_vec_free(&d->corr);
  trace_vec_free(&d->comm);
  trace_vec_free(&d->launches);
  trace_vec_free(&d->steps);
  trace_vec_free(&d->recompute);
  trace_vec_free(&d->colls);
  trace_vec_free(&d->spill_runs);
  trace_vec_free(&d->gsorted_runs);
  trace_vec_free(&d->name_text);
  trace_vec_free(&d->name_at);
  pl_free(d->name_hash);
  d->name_hash = NULL;
  d->name_slots = 0;
  if (d->spill != NULL)
    fclose(d->spill); /* tmpfile: removed on close */
  d->spill = NULL;
  if (d->gspill != NULL)
    fclose(d->gspill);
  d->gspill = NULL;
  if (d->gsorted != NULL)
    fclose(d->gsorted);
  d->gsorted = NULL;
}
