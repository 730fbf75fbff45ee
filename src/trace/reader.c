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
 * passing through a double (reader_text.c). Digits past the third decimal are
 * rounded half up.
 *
 * Schemas: current Kineto (cat kernel/gpu_memcpy/gpu_memset/cuda_runtime/
 * cuda_driver/ac2g/cpu_op/user_annotation/python_function) and the 2021
 * schema (Kernel/Memcpy/Memset/Runtime/async/Operator, string tids such as
 * "stream 7"), with either an object root holding "traceEvents" or a bare
 * array of events (Chrome trace format).
 *
 * Parts (reader_int.h): the fields of one event (reader_fields.c), storing
 * it (reader_commit.c), numbers from text (reader_text.c), errors
 * (reader_fail.c).
 *
 * Hostile input: a token (string or number) longer than TRACE_MAX_STRING / 2
 * is refused through yajl's allocator (see ya_realloc), nesting beyond
 * TRACE_MAX_DEPTH by the callbacks; a wrong type in a field we use (a "ts"
 * that is a string, an event that is a number) is an error, never a guess
 * (fields of an event already known to be dropped are not used).
 * Every error names the file and the JSON byte offset (after gunzip). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include <plateau/alloc.h>

#include "reader_int.h"

/* ---- keys ---- */

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
    return key_is(k, n, "Group size")   ? AK_GROUP
           : key_is(k, n, "Input Dims") ? AK_IN_DIMS
           : key_is(k, n, "Input type") ? AK_IN_TYPE
                                        : AK_OTHER;
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
  return trace_rd_fail(r, PL_ERR_PARSE, "not a Kineto trace: the top-level value is %s",
                       trace_rd_vname(t));
}

static int member_value(struct reader *r, enum vtype t, const char *s, size_t n) {
  switch (r->rkey) {
  case RK_EVENTS:
    if (t != V_ARR)
      return trace_rd_type_error(r, "traceEvents", t, "an array");
    r->in_events = r->saw_events = true;
    r->ev = 2;
    r->skip_above = r->ev + 2;
    return 1;
  case RK_DIST:
    r->in_dist = t == V_MAP;
    return 1;
  case RK_BASE:
    if ((t == V_NUM || t == V_STR) && !trace_text_i64(s, n, &r->d->base_ns))
      return trace_rd_fail(r, PL_ERR_RANGE, "baseTimeNanoseconds is not an integer");
    return 1;
  default:
    return 1;
  }
}

static int dist_value(struct reader *r, enum vtype t, const char *s, size_t n) {
  int64_t v;
  if (t != V_NUM || !trace_text_i64(s, n, &v))
    return 1;
  if (r->dkey == 1)
    r->d->rank = v;
  else if (r->dkey == 2)
    r->d->world_size = v;
  return 1;
}

/* A value or key inside an event that cannot be kept, or nested deeper than
 * an event's args (grid, block, Input Dims: unused but for the "nccl:"
 * annotations, reader_shape.c, which raise the bound): nothing to do. Tested
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
      return trace_rd_type_error(r, f, t, "an object");
    }
    r->index++;
    trace_rd_event_reset(&r->e);
    r->skip_above = r->ev + 2;
    return 1;
  }
  if (r->in_events && d == r->ev + 1) {
    if (r->ekey == EK_ARGS) {
      r->in_args = t == V_MAP;
      return 1;
    }
    if (t == V_NUM)
      return trace_rd_event_num(r, s, n);
    if (t == V_STR) {
      int ok = trace_rd_event_str(r, s, n);
      if (r->e.drop)
        r->skip_above = r->ev;
      return ok;
    }
    if (r->ekey == EK_TS || r->ekey == EK_DUR)
      return trace_rd_type_error(r, r->ekey == EK_TS ? "ts" : "dur", t, "a number");
    return 1;
  }
  if (r->in_events && r->in_args && d == r->ev + 2) {
    if (t == V_NUM)
      return trace_rd_arg_num(r, s, n);
    if (t == V_STR)
      return trace_rd_arg_str(r, s, n);
    if (r->akey == AK_CORR)
      return trace_rd_type_error(r, "correlation", t, "a number");
    if (t == V_ARR)
      trace_rd_shape_open(r);
    return 1;
  }
  if (r->in_events && r->in_args && r->e.shape_arr != 0 && (d == r->ev + 3 || d == r->ev + 4))
    return trace_rd_shape_value(r, t, s, n, d - r->ev);
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
    return trace_rd_fail(r, PL_ERR_LIMIT, "nesting deeper than %d levels", TRACE_MAX_DEPTH);
  }
  return 1;
}

static int close_container(struct reader *r) {
  r->depth--;
  if (r->in_events && r->depth == r->ev)
    return trace_rd_commit(r); /* an event object closed */
  if (r->in_events && r->in_args && r->depth >= r->ev + 2)
    trace_rd_shape_close(r);
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

/* ---- driving the parse ---- */

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
      return trace_rd_too_long(r);
    if (ys != yajl_status_ok)
      return trace_rd_yajl_failed(r, buf, n, false);
    r->d->raw_bytes = r->chunk_off + (int64_t)n;
  }
  if (r->d->raw_bytes == 0)
    return pl_diag_set(r->diag, PL_ERR_PARSE, "trace '%s': empty file", r->path);
  r->chunk_off = r->d->raw_bytes;
  if (yajl_complete_parse(r->h) != yajl_status_ok)
    return trace_rd_yajl_failed(r, NULL, 0, true);
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
