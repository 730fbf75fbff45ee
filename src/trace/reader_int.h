/* reader_int.h (internal to the Kineto reader): what its parts share.
 *   reader.c         yajl's callbacks: where a value sits (root, event,
 *                    args, distributedInfo, deviceProperties), the parse
 *                    driven chunk by chunk, trace_read, trace_data_free
 *   reader_fields.c  one event assembled from its fields as they arrive
 *                    (category, name, times, args) and dropped early
 *   reader_commit.c  a closed event stored into the flat arrays
 *   reader_text.c    numbers from their JSON text (ids, microseconds to ns)
 *   reader_fail.c    errors: the first one wins, with file and byte offset
 * The callbacks reach the fields and the commit; those reach the text and
 * the errors; nothing calls back up (scripts/check-calls.sh). */
#ifndef PL_TRACE_READER_INT_H
#define PL_TRACE_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "trace_int.h"

enum cat { CAT_OTHER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_RUNTIME, CAT_FLOW, CAT_CPU, CAT_PY };
enum ekey { EK_OTHER, EK_PH, EK_CAT, EK_NAME, EK_TS, EK_DUR, EK_TID, EK_PID, EK_ID, EK_ARGS };
enum akey {
  AK_OTHER, AK_CORR, AK_EXT, AK_STREAM, AK_COLL, AK_IN, AK_OUT, AK_GROUP, AK_DTYPE, AK_PG_RANKS,
  AK_GSTART, AK_GSTRIDE, AK_IN_DIMS, AK_IN_TYPE
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
  /* "Input Dims" and "Input type" of a ProcessGroup's "nccl:<op>" annotation
   * (reader_shape.c): the first input tensor's elements and element size */
  uint8_t shape_arr;  /* AK_IN_DIMS or AK_IN_TYPE while that array is read, else 0 */
  uint8_t dims_state; /* 0 none, 1 the list is open, 2 the first tensor's dims, 3 read */
  bool type_seen;
  int32_t type_bytes; /* 0 unknown */
  int64_t dims_prod;  /* -1 unusable */
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

static inline bool key_is_n(const unsigned char *k, size_t n, const char *lit, size_t m) {
  return n == m && memcmp(k, lit, m) == 0;
}
/* lit must be a string literal: its length is a compile-time constant */
#define key_is(k, n, lit) key_is_n((k), (n), (lit), sizeof(lit) - 1)

/* reader_fail.c */
const char *trace_rd_vname(enum vtype t);
/* The JSON byte offset the parse has reached. */
int64_t trace_rd_here(const struct reader *r);
/* Record an error (first one wins) and stop the parse: returns 0. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int trace_rd_fail(struct reader *r, enum pl_status s, const char *fmt, ...);
int trace_rd_type_error(struct reader *r, const char *field, enum vtype t, const char *want);
int trace_rd_oom(struct reader *r);
/* A token above TRACE_MAX_STRING (see reader.c, ya_realloc). */
enum pl_status trace_rd_too_long(struct reader *r);
/* yajl refused the chunk b[0 .. n) (at_end: the text ended inside a value). */
enum pl_status trace_rd_yajl_failed(struct reader *r, const unsigned char *b, size_t n,
                                    bool at_end);

/* reader_text.c: numbers from their text. */
bool trace_text_i64(const char *s, size_t n, int64_t *out);
bool trace_text_us_to_ns(const char *s, size_t n, int64_t *out);
int64_t trace_text_digits(const char *s, size_t n);

/* reader_fields.c: the value of the current event's field r->ekey, or of
 * its args' field r->akey; 0 stops the parse. */
int trace_rd_event_num(struct reader *r, const char *s, size_t n);
int trace_rd_event_str(struct reader *r, const char *s, size_t n);
int trace_rd_arg_num(struct reader *r, const char *s, size_t n);
int trace_rd_arg_str(struct reader *r, const char *s, size_t n);
void trace_rd_event_reset(struct event *e);
bool trace_rd_is_title(const struct event *e);
void trace_rd_shape_open(struct reader *r);
int trace_rd_shape_value(struct reader *r, enum vtype t, const char *s, size_t n, int level);
void trace_rd_shape_close(struct reader *r);

/* reader_commit.c: the event r->e closed: keep what the metrics need. */
int trace_rd_commit(struct reader *r);

#endif
