/* trace_int.h (internal to src/trace/): the flat arrays one Kineto trace is
 * reduced to while it streams past, and the analyzers that work on them.
 *
 * The reader keeps only what the metrics need (docs/trace.md section 2): GPU
 * activity intervals, CPU launch points (correlation -> time), ProfilerStep
 * spans, activation-recompute spans and record_param_comms collectives. Every
 * other event (CPU ops, Python frames, counters) is parsed and dropped, so
 * memory follows the number of GPU events (32 bytes each while reading: a
 * 24-byte trace_gpu and its 8-byte correlation, plus 32-byte launches; 24
 * bytes plus interval lists after trace_link), not the size of the JSON, and
 * is capped: launches beyond TRACE_SPILL_BUDGET_BYTES and GPU records beyond
 * TRACE_GPU_BUDGET_BYTES go to temporary files (spill.c, gspill.c), after
 * which linking and measuring work from there in fixed-size pieces and peak
 * memory no longer grows with the trace (docs/trace.md 11.1). Times are
 * integer nanoseconds on the
 * trace's own clock (Kineto "ts" in microseconds, read exactly from the text).
 * Ownership: a struct trace_data is filled by trace_read and released with
 * trace_data_free. */
#ifndef PL_TRACE_INT_H
#define PL_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <plateau/status.h>
#include <plateau/trace.h>

/* Caps on what input can grow, with their reasons (style.md section 5). */
#define TRACE_MAX_STRING (8u << 20) /* yajl token buffer: strings up to 4 MiB pass; Kineto names are < 64 KiB */
#define TRACE_MAX_DEPTH 64          /* Kineto nests 5 deep (args of args) */
#define TRACE_CHUNK (256u << 10)    /* bytes handed to yajl per call */
/* Times are int64 ns. Kineto's ts are epoch microseconds (1.7e15 us in 2024);
 * bounding |ts| by 4e18 ns (year 2096) and dur by 1e15 ns (11.6 days, longer
 * than any profiled window) keeps every end, difference and window sum
 * below INT64_MAX (9.2e18), so no arithmetic on input times can overflow. */
#define TRACE_MAX_TS_NS INT64_C(4000000000000000000)
#define TRACE_MAX_DUR_NS INT64_C(1000000000000000)
/* GPU devices (pid values of GPU events) told apart in one file; a Kineto
 * trace of one rank has one. More are counted as this many. */
#define TRACE_MAX_DEVICES 16
#define TRACE_DEV_NONE 255 /* trace_gpu.dev of an event without a pid */
/* CPU launch records (32 bytes each) held in memory per rank before they
 * spill, sorted, to a temporary file and are merged back at link time
 * (spill.c): 8 MiB is 262 144 launches, more than a 512 MB generated trace
 * holds (docs/trace.md 11.1), so ordinary traces never touch the disk and a
 * larger one costs 10 MiB for its launches instead of 40 bytes per launch
 * (10 MiB / 40 B = 262 144 launches, the count 8 MiB held at 32 B before the
 * runtime call's duration joined the record). */
#define TRACE_SPILL_BUDGET_BYTES (10u << 20)
/* GPU records (24-byte trace_gpu + 8-byte correlation) held in memory before
 * every GPU event of the file goes to a temporary file (gspill.c) and is
 * linked and measured from there in fixed-size pieces: 6 MiB is 131 072
 * events at 48 bytes (40-byte trace_gpu + correlation), more than a 256 MB
 * generated trace holds (docs/trace.md 11.1), so a larger trace costs this
 * much for its GPU events, not 48 bytes each. */
/* Distinct GPU event names told apart per file (trace_gpu.name is 16 bits)
 * and the bytes their text may take: a trace has hundreds to a few thousand
 * kernel names; beyond either cap, names share TRACE_NAME_OTHER. */
#define TRACE_MAX_NAMES 65535
#define TRACE_NAME_OTHER 65535
#define TRACE_MAX_NAME_BYTES (4u << 20)
/* CUDA streams told apart per file (trace_gpu.stream is 8 bits); a trace uses
 * a few dozen at most, later ones share the last index. */
#define TRACE_MAX_STREAMS 255
/* The launch statistics' histogram of launch delays: exact below 16 ns,
 * then 16 buckets per power of two (6.25% wide), up to 2^63 ns. */
#define TRACE_HIST_BUCKETS (16 + 60 * 16)
_Static_assert(TRACE_HIST_BUCKETS == PL_TRACE_HIST_BUCKETS, "histogram size");
#define TRACE_GPU_BUDGET_BYTES (6u << 20)

enum trace_kind { TRACE_COMPUTE, TRACE_COMM, TRACE_MEMCPY, TRACE_MEMSET, TRACE_N_KINDS };

/* Bits of trace_gpu.flags. */
#define TRACE_F_LINKED 1u    /* a CPU launch with its correlation id is in the trace */
#define TRACE_F_FLOW 2u      /* ... and the trace draws an ac2g/async flow for it */
#define TRACE_F_RECOMPUTE 4u /* launched inside torch.utils.checkpoint's recompute_fn */

/* Collective kinds as the trace names them; mapped to nccl-tests busbw
 * factors in collectives.c. */
enum trace_op {
  TRACE_OP_UNKNOWN,
  TRACE_OP_ALL_REDUCE,
  TRACE_OP_ALL_GATHER,
  TRACE_OP_REDUCE_SCATTER,
  TRACE_OP_ALL_TO_ALL,
  TRACE_OP_BROADCAST,
  TRACE_OP_SEND_RECV,
  TRACE_OP_REDUCE,
  TRACE_OP_GATHER,
  TRACE_OP_SCATTER,
  TRACE_OP_BARRIER,
  TRACE_OP_N
};

/* One GPU activity, 40 bytes: the reader keeps one per kernel, memcpy and
 * memset, so this record is most of a trace's memory (docs/trace.md 8). The
 * correlation id lives in trace_data.corr only until trace_link; what only
 * NCCL kernels need (External id, collective) lives in trace_data.comm. */
struct trace_gpu {
  int64_t ts_ns;
  int64_t dur_ns;
  int64_t launch_ns; /* start of its CPU launch (trace_link), INT64_MIN none */
  int32_t step;      /* index into trace_data.steps of its launch, -1 = none (trace_link) */
  int32_t rt_dur_ns; /* duration of the runtime call that launched it, -1 unknown;
                        saturates at INT32_MAX (2.1 s) */
  uint16_t name;     /* index into trace_data.names, TRACE_NAME_OTHER past the caps */
  uint8_t stream;    /* index into trace_data.streams */
  uint8_t kind;      /* enum trace_kind */
  uint8_t flags;     /* TRACE_F_* (set by trace_link) */
  uint8_t dev;       /* index into trace_data.devices (its pid), TRACE_DEV_NONE */
  uint8_t name_op;   /* enum trace_op: from the kernel name, replaced by the
                        collective's own op once trace_link has found it */
  uint8_t unused;    /* 0: the record has no padding (tests compare records byte for byte) */
};

/* What a communication kernel adds to its trace_gpu, one per TRACE_COMM
 * event, in trace order. */
struct trace_comm {
  int64_t ext_id; /* args "External id", -1 when absent */
  int32_t gpu;    /* index into trace_data.gpu */
  int32_t coll;   /* index into trace_data.colls, -1 when none */
};

/* A CPU-side launch: a runtime/driver call with args "correlation", or the
 * start of a launch flow (ph "s", cat ac2g/async) whose id is the correlation.
 * A flow start that follows its runtime call (Kineto writes them together)
 * is merged into it as it arrives. 40 bytes. */
struct trace_launch {
  int64_t corr;
  int64_t ts_ns;
  int64_t ext_id; /* args "External id" of the runtime call, -1 when absent */
  int64_t dur_ns; /* the runtime call's duration, -1 unknown (a flow alone) */
  int32_t tid;    /* the thread, folded to 32 bits (trace_tid32) */
  uint8_t flow;   /* 1 when a flow start for this correlation was seen */
  uint8_t runtime;/* 1 when the runtime call itself was seen */
};

/* A thread id folded to 32 bits for trace_launch.tid and trace_span.tid:
 * OS thread ids fit unchanged; two 64-bit ids that fold alike would be taken
 * for one thread (only recompute and collective attribution compare them). */
static inline int32_t trace_tid32(int64_t tid) {
  return (int32_t)(uint32_t)((uint64_t)tid ^ ((uint64_t)tid >> 32));
}

/* A CPU span: ProfilerStep#num, or a recompute_fn frame (num unused). */
struct trace_span {
  int64_t ts_ns;
  int64_t end_ns;
  int64_t tid;
  int64_t num;
};

/* What one collective call says about itself (kernel args or the
 * record_param_comms CPU op around its launch). */
struct trace_coll {
  int64_t ext_id;      /* External id (record_param_comms), -1 for kernel args */
  int64_t ts_ns, end_ns, tid; /* the CPU op's span (record_param_comms) */
  int64_t in_nelems;   /* -1 unknown */
  int64_t out_nelems;
  int64_t group_size;  /* ranks in the communicator, -1 unknown */
  int64_t group_start; /* its global ranks are start + i x stride ... */
  int64_t group_stride;/* ... (args "Global rank start/stride" or the rank list); 0 unknown */
  int32_t dtype_bytes; /* 0 unknown */
  uint8_t op;          /* enum trace_op */
  uint8_t title;       /* 1: a ProcessGroup's "nccl:<op>" annotation (sizes of the input only) */
};

/* A growable flat array; elements are stored back to back. */
struct trace_vec {
  void *data;
  size_t len;
  size_t cap;
};

struct trace_data {
  struct trace_vec gpu;      /* struct trace_gpu */
  struct trace_vec corr;     /* int64_t per GPU event: its correlation, -1 none; freed by trace_link */
  struct trace_vec comm;     /* struct trace_comm per communication kernel */
  struct trace_vec launches; /* struct trace_launch; freed by trace_link */
  struct trace_vec steps;    /* struct trace_span, ProfilerStep#N, sorted by ts */
  struct trace_vec recompute;/* struct trace_span */
  struct trace_vec colls;    /* struct trace_coll: kernel args first, then CPU ops */
  int64_t rank;              /* distributedInfo.rank, -1 unknown */
  int64_t world_size;        /* distributedInfo.world_size, -1 unknown */
  int64_t base_ns;           /* baseTimeNanoseconds, 0 when absent */
  char device[64];           /* deviceProperties[0].name, "" when absent */
  int64_t n_events;          /* objects seen in traceEvents */
  int64_t raw_bytes;         /* JSON bytes parsed (after gunzip) */
  bool has_dist;             /* distributedInfo present */
  int64_t devices[TRACE_MAX_DEVICES]; /* distinct "pid" of GPU events, first seen first;
                                         the 17th and later count as the 16th */
  int n_devices;
  /* Which GPU events the analyzers see: 0 all, k >= 1 only those of device
   * k - 1 (a file with several GPU pids is measured one device at a time). */
  int view_dev;
  bool linked; /* trace_link has run */
  int64_t spill_budget_bytes; /* bytes of launches held before spilling, 0 default;
                                 set before trace_read */
  void *spill;                /* FILE * of sorted runs of launches (tmpfile), NULL none */
  struct trace_vec spill_runs;/* int64_t records per run, in file order */
  int64_t gpu_budget_bytes;   /* bytes of GPU records held before they spill,
                                 0 default (TRACE_GPU_BUDGET_BYTES); set before trace_read */
  void *gspill;               /* FILE * of every GPU event (struct trace_grec) in trace
                                 order once they spilled; gpu, corr and comm are then empty */
  int64_t n_gspill;           /* records in gspill */
  void *gsorted;              /* FILE * of the linked trace_gpu records in runs sorted by
                                 start (made by trace_link when gspill is set) */
  struct trace_vec gsorted_runs; /* int64_t records per run */
  /* Names of GPU events (trace_gpu.name), interned as they arrive: the
   * first NAME_KEEP bytes of each (reader_int.h), NUL-terminated, back to back
   * in name_text; name_at[i] is name i's offset; name_hash an open-addressing
   * table of name ids + 1 (0 empty), 2^k slots, at most half full. */
  struct trace_vec name_text; /* char */
  struct trace_vec name_at;   /* uint32_t */
  uint32_t *name_hash;
  size_t name_slots;
  int64_t streams[TRACE_MAX_STREAMS]; /* trace_gpu.stream -> the event's tid (its stream) */
  int n_streams;
};

/* Is g one of the GPU events d's analyzers see now? Events without a pid
 * go with the first device. */
static inline bool trace_in_view(const struct trace_data *d, const struct trace_gpu *g) {
  return d->view_dev == 0 || g->dev == d->view_dev - 1 ||
         (g->dev == TRACE_DEV_NONE && d->view_dev == 1);
}

/* vec.c */
void *trace_vec_push(struct trace_vec *v, size_t elem);
void trace_vec_free(struct trace_vec *v);
#define TRACE_AT(vec, type, i) (((type *)(vec).data)[i])

/* input.c: a file (plain or gzip) read in chunks. */
struct trace_input;
enum pl_status trace_input_open(const char *path, struct trace_input **out, struct pl_diag *diag);
/* The same over bytes in memory (borrowed until close), named `name` in
 * messages; chunk is the read size (0 = TRACE_CHUNK; smaller only for tests). */
enum pl_status trace_input_open_mem(const void *data, size_t len, const char *name, size_t chunk,
                                    struct trace_input **out, struct pl_diag *diag);
/* Next chunk of JSON text; *len 0 at end. *offset is the JSON byte offset of
 * the chunk's first byte. */
enum pl_status trace_input_read(struct trace_input *in, const unsigned char **buf, size_t *len,
                                int64_t *offset, struct pl_diag *diag);
void trace_input_close(struct trace_input *in);

/* reader.c: stream one file into d (zeroed by the caller). On failure the
 * message names the file and the byte offset. */
enum pl_status trace_read(const char *path, struct trace_data *d, struct pl_diag *diag);
/* The same from memory (see trace_input_open_mem). */
enum pl_status trace_read_mem(const void *data, size_t len, const char *name, size_t chunk,
                              struct trace_data *d, struct pl_diag *diag);
void trace_data_free(struct trace_data *d);

/* names.c: classification of names and argument strings. */
enum trace_op trace_op_from_kernel(const char *s, size_t n);
enum trace_op trace_op_from_collective(const char *s, size_t n);
int32_t trace_dtype_bytes(const char *s, size_t n);
bool trace_is_comm_kernel(const char *s, size_t n);
const char *trace_op_name(enum trace_op op);
double trace_bus_factor(enum trace_op op, int64_t n);
/* Rank from a file name ("rank-3.json.gz", "rank3_trace.json"), -1 if none. */
int64_t trace_rank_from_path(const char *path);

/* link.c: attach GPU events to launches, steps and recompute spans, then
 * free what only linking needed (launches, correlations). Idempotent. */
enum pl_status trace_link(struct trace_data *d, struct pl_diag *diag);

/* spill.c: launches beyond the budget go to a temporary file in sorted runs,
 * read back merged and deduplicated by correlation (external merge sort). */
size_t trace_spill_cap(const struct trace_data *d); /* launch records in memory */
/* Sort d->launches, append them to the file as one run and empty the vector. */
enum pl_status trace_spill_launches(struct trace_data *d, struct pl_diag *diag);
struct trace_merge;
/* Open a merge of every run, reading through buf (buf_records, borrowed;
 * with more runs than that, one record per run is allocated). */
enum pl_status trace_merge_open(struct trace_data *d, struct trace_launch *buf, size_t buf_records,
                                struct trace_merge **out, struct pl_diag *diag);
/* The next launch in trace_cmp_launch order, one per correlation (flow
 * flags merged, the first record's other fields): 1, 0 at end, -1 read error. */
int trace_merge_next(struct trace_merge *m, struct trace_launch *out);
void trace_merge_close(struct trace_merge *m);
/* gspill.c: GPU events beyond their budget. Once the reader holds
 * trace_gpu_cap records, they and every later one go to a temporary file in
 * trace order, with their correlation and NCCL fields (struct trace_grec);
 * trace_link links them there and writes them again sorted by start in runs,
 * which trace_gmerge_* read back merged for the breakdown's sweep. */
struct trace_grec {
  struct trace_gpu g;
  int64_t corr;   /* as trace_data.corr */
  int64_t ext_id; /* as trace_comm (TRACE_COMM records only) */
  int32_t coll;   /* as trace_comm, -1 none */
  int32_t unused;
};
size_t trace_gpu_cap(const struct trace_data *d); /* GPU records in memory */
/* Append the GPU records held (gpu, corr, comm) to the file and empty them. */
enum pl_status trace_spill_gpu(struct trace_data *d, struct pl_diag *diag);
/* Call fn on the spilled records in trace order, n at a time; with write,
 * each piece is written back after fn (which may change it). */
typedef void trace_grec_fn(void *ctx, struct trace_grec *r, size_t n);
enum pl_status trace_gspill_each(const struct trace_data *d, bool write, trace_grec_fn *fn,
                                 void *ctx, struct pl_diag *diag);
/* Write the linked records again, in runs sorted by start (d->gsorted). */
enum pl_status trace_gspill_sort(struct trace_data *d, struct pl_diag *diag);
struct trace_runs; /* runs.c */
/* The sorted runs merged back by start (trace_runs_pop gives struct
 * trace_gpu records; close with trace_runs_close). */
enum pl_status trace_gmerge_open(const struct trace_data *d, struct trace_runs **out,
                                 struct pl_diag *diag);

/* runs.c: k-way merge of sorted runs of fixed-size records in a file (the
 * read-back of spill.c and gspill.c). file: a FILE *. lens: int64_t records per run, back to
 * back from offset 0. buf (buf_records, borrowed) may be NULL: one is
 * allocated; with more runs than buf_records, one record per run is. Open
 * returns PL_ERR_NOMEM without a message (the caller names what it merged);
 * *out is to be closed either way. pop: 1, 0 at the end, -1 read error. */
typedef bool trace_before_fn(const void *x, const void *y);
enum pl_status trace_runs_open(void *file, const struct trace_vec *lens, size_t size,
                               trace_before_fn *before, void *buf, size_t buf_records,
                               struct trace_runs **out);
int trace_runs_pop(struct trace_runs *m, void *out);
void trace_runs_close(struct trace_runs *m);

/* link.c */
int trace_cmp_launch(const struct trace_launch *x, const struct trace_launch *y);
void trace_sort_launches(struct trace_launch *l, size_t n);

/* intervals.c: sorted, disjoint interval lists. */
struct trace_iv {
  int64_t a, b; /* [a, b) */
};
struct trace_ivs {
  struct trace_iv *v;
  size_t n;
};
/* Union of the intervals of GPU events of kinds in kind_mask whose flags
 * match (flags & flag_mask) == flag_want. */
enum pl_status trace_ivs_union(const struct trace_data *d, unsigned kind_mask, unsigned flag_mask,
                               unsigned flag_want, struct trace_ivs *out);
/* The union of the communication kernels of category k (trace_comm_cat). */
enum pl_status trace_ivs_union_comm(const struct trace_data *d, int k, unsigned flag_mask,
                                    unsigned flag_want, struct trace_ivs *out);
enum pl_status trace_ivs_and(const struct trace_ivs *x, const struct trace_ivs *y,
                             struct trace_ivs *out);
enum pl_status trace_ivs_minus(const struct trace_ivs *x, const struct trace_ivs *y,
                               struct trace_ivs *out);
enum pl_status trace_ivs_or(const struct trace_ivs *x, const struct trace_ivs *y,
                            struct trace_ivs *out);
/* Length of x inside each window [w[i].a, w[i].b) (windows sorted, disjoint). */
void trace_ivs_measure(const struct trace_ivs *x, const struct trace_iv *w, size_t nw,
                       int64_t *len_ns);
int64_t trace_ivs_total(const struct trace_ivs *x);
/* Sort x by start and merge overlapping intervals in place (a list built by hand). */
void trace_ivs_normalize(struct trace_ivs *x);
/* Length of x inside [a, b), by binary search (x sorted, disjoint). */
int64_t trace_ivs_inside(const struct trace_ivs *x, int64_t a, int64_t b);
void trace_ivs_free(struct trace_ivs *x);

/* breakdown.c: the GPU timeline metrics of docs/trace.md section 3 for a
 * set of windows, over GPU events whose flags match. */
struct trace_breakdown {
  int64_t span_ns, compute_ns, comm_ns, overlapped_ns, exposed_comm_ns;
  int64_t memory_ns, exposed_memory_ns, busy_ns, idle_ns, recompute_ns;
  /* per communication category k (pl_trace_kcat - PL_TK_ALL_REDUCE): |M_k|, |M_k and C| */
  int64_t comm_cat_ns[PL_TRACE_COMM_CATS], overlapped_cat_ns[PL_TRACE_COMM_CATS];
};
/* The communication category index (0 .. PL_TRACE_COMM_CATS - 1) of a
 * communication kernel whose collective is op (kcat.c). */
int trace_comm_cat(enum trace_op op);
enum pl_status trace_breakdown(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                               unsigned flag_mask, unsigned flag_want,
                               struct trace_breakdown *out, struct pl_diag *diag);
/* The window from the first GPU event start to the last end (matching flags);
 * false when there is none. */
bool trace_whole_window(const struct trace_data *d, unsigned flag_mask, unsigned flag_want,
                        struct trace_iv *w);

/* kernels.c: GPU event names, and the analyses that follow each GPU event
 * in start order (docs/trace.md 3.5-3.7). */
/* The id of name s[0, n) in d's table, added if new; TRACE_NAME_OTHER past
 * the caps; -1 out of memory. */
int32_t trace_name_intern(struct trace_data *d, const char *s, size_t n);
const char *trace_name_str(const struct trace_data *d, uint16_t id); /* "(other names)" */
enum pl_trace_kcat trace_kcat_of(const char *name, enum trace_kind kind, enum trace_op op);
/* Kernel breakdown, idle split, streams and launch statistics of the GPU
 * events in view over the windows w (sorted, disjoint), into r (per step:
 * divided by nw). */
enum pl_status trace_kernels(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                             struct pl_trace_rank *r, struct pl_diag *diag);
/* Bucket of a launch delay and the midpoint of a bucket, in ns. */
int trace_hist_bucket(int64_t ns);
double trace_hist_mid_ns(int b);
void trace_launch_finish(struct pl_trace_launch *l);

/* steps.c: choose windows per step and fill one rank's result. */
/* keep_calls: also fill r->calls (pl_trace_analyze_calls). Links d first and
 * measures the GPU events in view (all by default). */
enum pl_status trace_rank_analyze(struct trace_data *d, const char *path,
                                  const struct pl_trace_opts *o, bool keep_calls,
                                  struct pl_trace_rank *r, struct pl_diag *diag);

/* set.c: pl_trace_analyze(_calls) with trace_data.spill_budget_bytes and
 * gpu_budget_bytes set for every file (0 = TRACE_SPILL_BUDGET_BYTES,
 * TRACE_GPU_BUDGET_BYTES); tests and the benchmark force other budgets. */
enum pl_status trace_analyze_budgets(const char *const *paths, int n_paths,
                                     const struct pl_trace_opts *opts, bool calls,
                                     int64_t spill_budget_bytes, int64_t gpu_budget_bytes,
                                     struct pl_trace_set **out, struct pl_diag *diag);

/* One collective call's arrival (collectives.c), matched across ranks by
 * set.c: the same step, op, group and ordinal among such calls of the step. */
struct trace_arrival {
  int64_t step;        /* ProfilerStep number of its window (window index without steps) */
  int64_t ts_ns;       /* kernel start on the common clock (ts + baseTimeNanoseconds) */
  int64_t dur_ns;      /* kernel duration */
  double bytes;        /* nccl-tests size, 0 unknown */
  int64_t group_size;  /* 0 unknown */
  int64_t group_start; /* first global rank when known, else -1 */
  int32_t rank_i;      /* index into the set's ranks (set.c) */
  int32_t ord;         /* ordinal among the rank's calls of this key in the step (set.c) */
  uint8_t op;          /* enum trace_op */
};

/* across.c: what a set adds over its ranks (kernel names, launches,
 * collective arrival); a rank's own allocations freed. */
enum pl_status trace_set_extras(struct pl_trace_set *s);
void trace_rank_free(struct pl_trace_rank *r);

/* collectives.c: per-op summaries of the comm kernels launched in kept steps. */
enum pl_status trace_collectives(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                                 bool keep_calls, struct pl_trace_rank *r, struct pl_diag *diag);

#endif
