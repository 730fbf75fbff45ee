/* trace.h: measure a training run from its PyTorch profiler (Kineto) traces,
 * one file per rank, with the metrics and names `predict` uses.
 *
 * Definitions of every metric: docs/trace.md. Times inside the library are
 * integer nanoseconds; they become seconds (double) here, at the API edge.
 * Ownership: pl_trace_analyze returns a struct pl_trace_set that belongs to
 * the caller and is released with pl_trace_set_free; every pointer inside it
 * borrows from the set. */
#ifndef PLATEAU_TRACE_H
#define PLATEAU_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "status.h"

struct pl_trace_opts {
  int64_t skip;      /* warm-up steps to drop; < 0 = default rule (docs/trace.md 2.3) */
  int threads;       /* parallel ranks; <= 0 = all online cores */
  bool whole_trace;  /* one window over the whole trace instead of per step */
};

/* One NCCL/RCCL kernel in a kept step (pl_trace_analyze_calls). */
struct pl_trace_call {
  char op[24];          /* as in struct pl_trace_coll */
  int64_t group_size;   /* ranks in the communicator, 0 unknown */
  int64_t group_start;  /* its global ranks are start + i x stride, i < group_size */
  int64_t group_stride; /* 0: the trace does not say where the ranks are */
  double bytes;         /* nccl-tests size, 0 unknown */
  double time_s;        /* kernel duration on this rank */
  double overlap_s;     /* of it, time with a compute kernel running on the same GPU (other
                           streams; union of compute kernels): 0 = the call ran alone */
};

/* One collective kind of one rank (or of the whole set), per kept step. */
struct pl_trace_coll {
  char op[24];              /* "all_reduce", "all_gather", ... or "unknown" */
  int64_t group_size;       /* ranks in the communicator, 0 when unknown */
  double count;             /* calls per step */
  double bytes;             /* mean bytes per call, nccl-tests size convention; 0 unknown */
  double time_s;            /* kernel time of all calls per step (sum, not union) */
  double algbw_bytes_per_s; /* sum(bytes) / sum(time) over calls with known size */
  double busbw_bytes_per_s; /* algbw x nccl-tests factor; 0 when size or n unknown */
  int64_t sized_calls;      /* calls whose bytes were known, over all kept steps */
  double sized_bytes;       /* their bytes, summed over all kept steps */
  double sized_time_s;      /* their kernel time, summed over all kept steps */
  double bus_bytes;         /* their bytes x busbw factor, summed */
  /* Across ranks (set-level rows of sets of 2+ ranks; 0 elsewhere): each call
   * matched on two or more ranks (docs/trace.md 4.1) is one collective, timed
   * as TraceLens's NcclAnalyser.build_df_nccl_implicit_sync_cat does (AMD-AGI/
   * TraceLens 171dd74, TraceLens/NcclAnalyser/nccl_analyser.py): its
   * comm_latency is the shortest kernel among its ranks (the last to arrive
   * waits least, so it is the closest to the transfer itself), skew in start
   * time the latest start minus the earliest, skew in end time the latest end
   * minus the earliest (docs/trace.md 4.2). */
  int64_t sync_matched;     /* collectives matched across ranks, all kept steps */
  double sync_count;        /* of them per step (over the set's most kept steps) */
  double sync_time_s;       /* per step: sum over them of their shortest kernel */
  double start_skew_s;      /* mean over them of latest start - earliest start */
  double end_skew_s;        /* mean over them of latest end - earliest end */
  double start_skew_max_s;  /* the largest start skew */
  double sync_algbw_bytes_per_s; /* sized ones: sum(bytes) / sum(shortest kernel) */
  double sync_busbw_bytes_per_s; /* the same x nccl-tests factor; 0 unknown */
  int64_t sync_sized;       /* matched collectives with a known size */
  double sync_sized_bytes, sync_sized_time_s, sync_bus_bytes; /* their sums */
};

/* One collective kind and message size of one rank, per kept step: TraceLens's
 * per-size table (NcclAnalyser.build_df_summary_long, AMD-AGI/TraceLens 171dd74,
 * TraceLens/NcclAnalyser/nccl_analyser.py; its coll_analysis.csv), docs/trace.md 3.4.1. */
struct pl_trace_coll_size {
  char op[24];          /* as in struct pl_trace_coll */
  int64_t group_size;   /* 0 unknown */
  double bytes;         /* nccl-tests size of each call, 0 unknown, -1 "other sizes": the
                           calls of sizes past the table's 256 distinct rows */
  int dtype_bytes;      /* element size, 0 unknown */
  int64_t calls;        /* all kept steps */
  double count;         /* calls per step */
  double time_s;        /* kernel time per step */
  double sum_s;         /* kernel time, all kept steps (TraceLens dur_sum) */
  double mean_s, std_s; /* per call; std with n - 1 (pandas), 0 for one call */
  double min_s, max_s;  /* per call */
};

/* Kernel categories of the kernel breakdown (docs/trace.md 3.5): compute by
 * name pattern, communication by collective, then memory. */
enum pl_trace_kcat {
  PL_TK_GEMM,
  PL_TK_ATTENTION,
  PL_TK_ELEMENTWISE,
  PL_TK_REDUCTION,
  PL_TK_OTHER_COMPUTE,
  PL_TK_ALL_REDUCE,
  PL_TK_ALL_GATHER,
  PL_TK_REDUCE_SCATTER,
  PL_TK_ALL_TO_ALL,
  PL_TK_BROADCAST,
  PL_TK_SEND_RECV,
  PL_TK_OTHER_COMM, /* reduce, gather, scatter, barrier, or an unknown op */
  PL_TK_MEMCPY,
  PL_TK_MEMSET,
  PL_TK_N
};
/* The communication categories, PL_TK_ALL_REDUCE .. PL_TK_OTHER_COMM. */
#define PL_TRACE_COMM_CATS (PL_TK_OTHER_COMM - PL_TK_ALL_REDUCE + 1)
const char *pl_trace_kcat_name(enum pl_trace_kcat c); /* "gemm", "all_reduce", ... */

/* One GPU event name: kernel time per kept step (clipped to the windows, a
 * sum over kernels, so kernels on two streams at once both count). */
struct pl_trace_kernel {
  char *name;                /* the first 160 bytes of the name (owned by the set) */
  enum pl_trace_kcat category;
  double count;              /* kernels per step (those starting in a kept window) */
  double time_s;             /* kernel time per step */
  double min_s, max_s;       /* shortest and longest single kernel */
};

/* Idle time of one CUDA stream, per step, after HTA's
 * BreakdownAnalysis._analyze_idle_time_for_stream (docs/trace.md 3.6). */
struct pl_trace_stream {
  int64_t stream;        /* the stream id (the GPU event's tid) */
  double span_s;         /* its first kernel start to its last end, within the windows */
  double busy_s;         /* union of its kernels; busy + idle = span */
  double idle_s;
  double idle_host_s;    /* the next kernel was launched after the previous one ended */
  double idle_kernel_s;  /* otherwise, gaps under 30 ns (launch overhead) */
  double idle_other_s;   /* otherwise: waiting on another stream, an event, a sync */
};

/* CUDA launch statistics of the GPU events starting in kept windows that
 * have a CPU launch (docs/trace.md 3.7). */
#define PL_TRACE_HIST_BUCKETS 976
struct pl_trace_launch {
  int64_t events;              /* GPU events with a launch, all kept steps */
  double delay_mean_s;         /* launch delay = GPU start - runtime call start */
  double delay_p50_s, delay_p90_s, delay_p99_s; /* bucket midpoints, within 3.2% */
  double delay_max_s;
  int64_t delay_outliers;      /* delay > 100 us (HTA's launch_delay_cutoff) */
  int64_t runtime_outliers;    /* runtime call > 50 us (HTA's runtime_cutoff) */
  int64_t short_events;        /* runtime call <= 50 us and longer than the GPU event */
  double short_gpu_s;          /* their GPU time per step */
  double short_cpu_s;          /* their runtime calls' time per step */
  int64_t hist[PL_TRACE_HIST_BUCKETS]; /* launch delays, ns buckets (kernels.c) */
  double delay_sum_s;          /* sum over events, for merging */
  /* HTA's launch_delay (CudaKernelAnalysis.cuda_kernel_launch_stats, HTA f4d0062,
   * hta/analyzers/cuda_kernel_analysis.py): GPU start - the runtime call's end
   * (ts_gpu - ts_cpu - dur_cpu), clipped at 0, over the events whose runtime call
   * is in the trace (docs/trace.md 3.7) */
  int64_t hta_events;
  double hta_delay_mean_s, hta_delay_p50_s, hta_delay_p90_s, hta_delay_p99_s, hta_delay_max_s;
  int64_t hta_delay_outliers;  /* HTA's delay > 100 us (launch_delay_cutoff) */
  int64_t hta_hist[PL_TRACE_HIST_BUCKETS];
  double hta_delay_sum_s;
};

/* Per-step means over the kept steps of one rank (docs/trace.md section 3). */
struct pl_trace_rank {
  int64_t rank;             /* distributedInfo.rank, else from the file name, else -1 */
  const char *file;         /* the path as given */
  int64_t world_size;       /* distributedInfo.world_size, -1 unknown */
  char device[64];          /* deviceProperties[0].name */
  bool rank_from_name;      /* rank was taken from the file name */
  bool has_gpu;             /* false: CPU-only trace, GPU metrics are 0 */
  bool has_steps;           /* ProfilerStep annotations found */
  int64_t steps_total;      /* complete steps in the trace */
  int64_t steps_skipped;    /* warm-up steps dropped */
  int64_t steps;            /* steps kept (the means are over these) */
  bool last_dropped;        /* a last step cut short by the profiler was dropped */
  int64_t first_step;       /* ProfilerStep number of the first kept step, -1 none */
  double span_s;            /* step time (GPU window), or CPU step time if CPU-only */
  double compute_s;         /* union of compute kernels */
  double comm_s;            /* union of NCCL/RCCL kernels */
  double overlapped_comm_s; /* comm intersect compute */
  double exposed_comm_s;    /* comm minus compute */
  double memory_s;          /* union of memcpy/memset */
  double exposed_memory_s;  /* memory minus compute minus comm */
  double idle_s;            /* span minus union of all GPU activity */
  double recompute_s;       /* compute launched by activation recomputation */
  double cpu_step_s;        /* mean ProfilerStep CPU duration of kept steps, 0 none */
  int64_t gpu_events;       /* kernels + memcpy + memset in the trace (of gpu_pid if split) */
  int gpu_devices;          /* distinct pid values of GPU events of the file (capped at
                               16); a rank's trace has 1, more are split per pid */
  int64_t gpu_pid;          /* -1, or when a file holds GPU events of several pids (one
                               pid per stage in a predicted pp trace): this rank is the
                               file's GPU events of this pid alone (docs/trace.md 8) */
  int64_t unlinked_events;  /* of which no CPU launch was found */
  int64_t json_bytes;       /* JSON bytes parsed (after gunzip) */
  struct pl_trace_coll *coll;
  int n_coll;
  struct pl_trace_call *calls; /* pl_trace_analyze_calls: in trace order; else NULL */
  int64_t n_calls;
  struct pl_trace_coll_size *coll_sizes; /* per (op, group, size), longest total first */
  int n_coll_sizes;
  int64_t duplicate_comm_events; /* communication kernels identical to an earlier one (same
                                    pid, tid, ts, dur and name: a file merged twice), counted
                                    once in coll and calls (docs/trace.md) */
  /* Why the GPU is idle: idle_s split by the GPU event that ends each idle
   * gap (docs/trace.md 3.6); idle_host_s + idle_kernel_s + idle_other_s = idle_s. */
  double idle_host_s, idle_kernel_s, idle_other_s;
  double kernel_s;                /* sum of all GPU event times per step (not a union) */
  double kcat_s[PL_TK_N];         /* kernel_s by category; they add up to kernel_s */
  /* Communication per collective kind (docs/trace.md 3.4.2), per step, index
   * k = category - PL_TK_ALL_REDUCE: |M_k| the union of that kind's kernels and
   * |M_k and C| its part under compute; exposed = the difference. */
  double comm_cat_s[PL_TRACE_COMM_CATS], overlapped_cat_s[PL_TRACE_COMM_CATS];
  struct pl_trace_kernel *kernels;/* every name, by time per step, longest first */
  int n_kernels;
  struct pl_trace_stream *streams;/* by stream id */
  int n_streams;
  struct pl_trace_launch launch;
  /* Collective arrival (multi-rank sets, docs/trace.md 4.1): per step, the
   * time this rank's collective kernels started before the last rank's
   * (its wait for the others), and at how many it arrived last. */
  double coll_wait_s;
  double coll_last;
  double coll_first;              /* per step, collectives it arrived at first (the earliest
                                     start; the highest rank on ties): TraceLens's
                                     times_arrived_first (build_df_straggler_summary) */
  int64_t coll_matched;           /* its calls matched with other ranks, all steps */
  void *arrivals_;                /* private: its calls' start times (set.c) */
  int64_t n_arrivals_;
};

/* One kept step of a multi-rank set: who arrived last at its collectives. */
struct pl_trace_step_arrival {
  int64_t step;         /* ProfilerStep number (0 with one window over the trace) */
  int64_t collectives;  /* calls matched across two or more ranks */
  int64_t last_rank;    /* the rank that arrived last most often, -1 none */
  int64_t last_count;   /* at how many of them */
  double wait_s;        /* the other ranks' wait for the last one, summed over ranks and calls */
  double max_wait_s;    /* the longest single wait */
};

struct pl_trace_stat {
  double mean, min, max;
  int64_t min_rank, max_rank; /* rank ids where min / max occur */
};

struct pl_trace_set {
  struct pl_trace_rank *ranks; /* sorted by rank, then file name */
  int n_ranks;
  int64_t world_size;          /* largest world size any file states, -1 unknown */
  int64_t *missing;            /* ranks in [0, world_size) with no file (sets of 2+ files) */
  int n_missing;
  bool world_mismatch;         /* files disagree on world_size */
  int64_t duplicate_rank;      /* a rank claimed by two files, -1 none */
  bool any_gpu;                /* at least one rank has GPU events */
  /* Across ranks, over ranks with GPU events (CPU step time when none). */
  struct pl_trace_stat step_time_s, compute_s, comm_s, overlapped_comm_s, exposed_comm_s,
      memory_s, exposed_memory_s, idle_s, recompute_s;
  /* The straggler: the rank with the most non-communication time per step
   * (span - exposed_comm), which the others wait for (docs/trace.md 4). */
  int64_t straggler_rank;
  const char *straggler_file;
  int64_t straggler_gpu_pid; /* its GPU pid when its file was split per pid, else -1 */
  double straggler_busy_s;
  double straggler_spread_s; /* its busy time minus the smallest rank's */
  struct pl_trace_coll *coll; /* all ranks merged: means over ranks */
  int n_coll;
  struct pl_trace_stat idle_host_s, idle_kernel_s, idle_other_s, kernel_s;
  double kcat_s[PL_TK_N];          /* means over ranks with GPU events */
  double comm_cat_s[PL_TRACE_COMM_CATS], overlapped_cat_s[PL_TRACE_COMM_CATS]; /* the same */
  struct pl_trace_kernel *kernels; /* names merged over ranks (means), longest first */
  int n_kernels;
  struct pl_trace_launch launch;   /* all ranks' launches together */
  struct pl_trace_step_arrival *arrivals; /* per kept step, sets of 2+ ranks with collectives */
  int n_arrivals;
  double coll_wait_s;              /* mean over ranks of their coll_wait_s */
  char **files_;              /* private: the expanded paths the ranks borrow */
  int n_files_;
};

/* Analyze trace files (paths may name directories: their *.json and
 * *.json.gz files, sorted). Ranks are parsed in parallel; the result does
 * not depend on the thread count. */
enum pl_status pl_trace_analyze(const char *const *paths, int n_paths,
                                const struct pl_trace_opts *opts, struct pl_trace_set **out,
                                struct pl_diag *diag);
/* The same, and also list every collective call of the kept steps in
 * ranks[].calls (for calibration from traces). */
enum pl_status pl_trace_analyze_calls(const char *const *paths, int n_paths,
                                      const struct pl_trace_opts *opts,
                                      struct pl_trace_set **out, struct pl_diag *diag);
/* The same as pl_trace_analyze for one trace already in memory (plain or gzip, as in a file);
 * name stands for the file in messages and in ranks[0].file. data is
 * borrowed for the call only. */
enum pl_status pl_trace_analyze_mem(const void *data, size_t len, const char *name,
                                    const struct pl_trace_opts *opts, struct pl_trace_set **out,
                                    struct pl_diag *diag);
void pl_trace_set_free(struct pl_trace_set *s);

/* The default warm-up rule: min(10, steps / 6) (the study drops 10 of 60). */
int64_t pl_trace_default_skip(int64_t steps);

/* ---- summaries and comparison (`plateau trace compare`, docs/trace.md 9) ----
 * A summary holds one run's per-step numbers under the names predict and
 * trace analyze share, from a trace set or from a result file written by
 * `plateau trace analyze --format json` or `plateau predict --format json`.
 * Ownership: a summary is the caller's storage; pl_trace_summary_free
 * releases its collectives. */

enum pl_trace_metric {
  PL_TM_STEP_TIME_S,
  PL_TM_COMPUTE_S,
  PL_TM_EXPOSED_COMM_S,
  PL_TM_OVERLAPPED_COMM_S,
  PL_TM_COMM_S,
  PL_TM_EXPOSED_MEMORY_S,
  PL_TM_MEMORY_S,
  PL_TM_IDLE_S,
  PL_TM_RECOMPUTE_S,
  PL_TM_BUBBLE_S,
  PL_TM_OPTIMIZER_S,
  PL_TM_OTHER_S,
  PL_TM_TOKENS_PER_S,
  PL_TM_MFU,
  /* traces only (docs/trace.md 3.5-3.7, 4.1) */
  PL_TM_IDLE_HOST_S,
  PL_TM_IDLE_KERNEL_S,
  PL_TM_IDLE_OTHER_S,
  PL_TM_KERNEL_S,
  PL_TM_GEMM_S,
  PL_TM_ATTENTION_S,
  PL_TM_ELEMENTWISE_S,
  PL_TM_REDUCTION_S,
  PL_TM_OTHER_COMPUTE_S,
  PL_TM_LAUNCH_DELAY_P50_S,
  PL_TM_LAUNCH_DELAY_P90_S,
  PL_TM_COLL_WAIT_S,
  PL_TM_N
};
const char *pl_trace_metric_name(enum pl_trace_metric m); /* "step_time_s" */

enum pl_trace_source {
  PL_TSRC_TRACE,       /* Kineto trace files, analyzed here */
  PL_TSRC_TRACE_JSON,  /* a `trace analyze --format json` result */
  PL_TSRC_PREDICT_JSON /* a `predict --format json` result */
};
const char *pl_trace_source_name(enum pl_trace_source s); /* "trace", ... */

/* One collective kind per step; ops and sizes as in struct pl_trace_coll. */
struct pl_trace_summary_coll {
  char op[24];              /* "all_reduce", ... */
  int64_t group_size;       /* ranks in the communicator, 0 unknown */
  char group[24];           /* predict's group names ("dp", "tp+cp"), "" for traces */
  double count;             /* calls per step */
  double bytes;             /* mean bytes per call (nccl-tests size), 0 unknown */
  double time_s;            /* kernel time of all calls per step */
  double busbw_bytes_per_s; /* 0 unknown */
};

#define PL_TRACE_SUMMARY_MAX_COLL 256 /* collective rows; more is an error */

/* One op of a prediction made with `predict --ops --format json` (its "ops"
 * array, report.h): times for one micro-batch, per_step_s on one GPU. */
struct pl_trace_summary_op {
  char segment[8];          /* "embed", "layer", "head" */
  char name[24];            /* "qkv", "attn", ... */
  char kind[12];            /* "gemm", "attention", "memory" */
  int64_t m, n, k, count;
  double fwd_s, bwd_s, per_step_s;
};
#define PL_TRACE_SUMMARY_MAX_OPS 256

struct pl_trace_summary {
  char origin[256];           /* the path as given */
  enum pl_trace_source source;
  int64_t ranks;              /* trace files, or GPUs of a prediction; 0 unknown */
  double value[PL_TM_N];
  bool has[PL_TM_N];          /* false: this source does not define the metric */
  struct pl_trace_summary_coll *coll; /* at most PL_TRACE_SUMMARY_MAX_COLL */
  int n_coll;
  struct pl_trace_summary_op *ops; /* predict --ops results only; at most PL_TRACE_SUMMARY_MAX_OPS */
  int n_ops;
};

/* Load path as a trace (file or directory, analyzed with opts) or a result
 * file, whichever it is (docs/trace.md 9.1). */
enum pl_status pl_trace_summary_load(const char *path, const struct pl_trace_opts *opts,
                                     struct pl_trace_summary *out, struct pl_diag *diag);
enum pl_status pl_trace_summary_from_set(const struct pl_trace_set *s, const char *origin,
                                         struct pl_trace_summary *out, struct pl_diag *diag);
void pl_trace_summary_free(struct pl_trace_summary *s);

/* b minus a, and relative to a; has_* false when a side lacks the value
 * (or, for rel, when a is 0). */
struct pl_trace_delta {
  double diff, rel;
  bool has_diff, has_rel;
};
struct pl_trace_delta pl_trace_delta(double a, bool has_a, double b, bool has_b);

/* Pair the collectives of a and b: same op and group size, then a lone
 * unknown size with the lone unpaired row of the same op. Writes up to
 * a->n_coll + b->n_coll pairs (index into a->coll / b->coll, -1 absent), in
 * a's order then b's leftovers, and returns their number. */
struct pl_trace_coll_pair {
  int a, b;
};
int pl_trace_coll_pairs(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                        struct pl_trace_coll_pair *out);

#endif
