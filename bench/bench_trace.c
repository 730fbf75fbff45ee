/* bench_trace.c: speed (MB/s of raw JSON, after gunzip) and peak RSS of
 * `trace analyze` on one thread, on the largest shipped trace and on a
 * generated trace of about 1 GB (written to /tmp at bench time, then removed).
 * Each measurement runs in its own child process so peak RSS is its own.
 * With --ceiling, each file is also parsed by yajl alone (all callbacks empty,
 * the same 256 KiB chunks, zlib's gzread for .gz): the speed the reader could
 * reach if its own work cost nothing (docs/trace.md 8).
 *
 *   bench_trace [--ceiling] [--gen-mb N | --gen-sizes MB,MB...] [--budget BYTES]
 *               [--gpu-budget BYTES] [FILE...]
 *                (default: shipped traces, then generated 256 MB and 1024 MB)
 *   bench_trace --gen PATH MB    only write a generated trace (for callgrind)
 *
 * Launch records beyond a budget spill to a temporary file (src/trace/spill.c,
 * default 8 MiB, TRACE_SPILL_BUDGET_BYTES); --budget sets it for the files
 * after it (1e12: never spill, the in-memory path), so one binary compares.
 * GPU records beyond their own budget spill too (src/trace/gspill.c, default
 * 4 MiB, TRACE_GPU_BUDGET_BYTES); --gpu-budget sets that one the same way.
 * --gen-sizes generates and measures each listed size in turn (e.g.
 * 256,1024,2048), deleting the file after each.
 *
 * The generated trace repeats one step of a Kineto-like mix: per step 400
 * python_function frames, 200 cpu_ops, 100 launches with flows and 100 GPU
 * events (compute, NCCL, memcpy), so GPU events are ~12% of the events, close to
 * the shipped MI300 trace (2995 kernels in 56451 events). Memory grows with
 * GPU events (docs/trace.md 8), so it is reported per GPU event as well. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include <plateau/plateau.h>

#include "trace/trace_int.h" /* trace_analyze_budgets (internal) */

static int64_t budget;     /* --budget: trace_data.spill_budget_bytes, 0 = default */
static int64_t gpu_budget; /* --gpu-budget: trace_data.gpu_budget_bytes, 0 = default */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void gen_step(FILE *f, long step, long *corr, double *t) {
  fprintf(f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%ld\", "
             "\"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": 1}},\n",
          step, *t, 4000.0);
  for (int i = 0; i < 400; i++)
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/modules/"
               "module.py(1520): _call_impl\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"dur\": 1.5, "
               "\"args\": {\"Python parent id\": %d, \"Python id\": %d, \"Ev Idx\": %d}},\n",
            *t + i * 10.0, i, i + 1, i);
  for (int i = 0; i < 200; i++)
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, "
               "\"tid\": 1, \"ts\": %.3f, \"dur\": 3.25, \"args\": {\"External id\": %d, "
               "\"Input Dims\": [[8, 4096], [4096, 4096], []], \"Input type\": [\"c10::BFloat16\", "
               "\"c10::BFloat16\", \"\"], \"Ev Idx\": %d}},\n",
            *t + i * 20.0, i, i);
  for (int i = 0; i < 100; i++, (*corr)++) {
    double lt = *t + i * 40.0, gt = *t + 100.0 + i * 38.0;
    const char *name = i % 10 == 9 ? "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                       : i % 10 == 8 ? "Memcpy DtoD (Device -> Device)"
                                     : "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm>(Params)";
    const char *cat = i % 10 == 8 ? "gpu_memcpy" : "kernel";
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
               "\"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"dur\": 4.1, \"args\": {\"External id\": %d, "
               "\"cbid\": 211, \"correlation\": %ld}},\n",
            lt, i, *corr);
    fprintf(f, "{\"ph\": \"s\", \"id\": %ld, \"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"cat\": \"ac2g\", "
               "\"name\": \"ac2g\"},\n", *corr, lt);
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
               "\"ts\": %.3f, \"dur\": 30.125, \"args\": {\"External id\": %d, \"device\": 0, "
               "\"stream\": %d, \"correlation\": %ld, \"grid\": [132, 1, 1], \"block\": [384, 1, 1]}},\n",
            cat, name, i % 10 == 9 ? 20 : 7, gt, i, i % 10 == 9 ? 20 : 7, *corr);
  }
  *t += 4000.0;
}

static int generate(const char *path, double mb) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return 1;
  fprintf(f, "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0, \"world_size\": 8},\n"
             "\"traceEvents\": [\n");
  long corr = 1;
  double t = 1e12;
  for (long step = 1; ftell(f) < (long)(mb * 1e6); step++)
    gen_step(f, step, &corr, &t);
  fprintf(f, "{\"ph\": \"i\", \"name\": \"end\", \"ts\": %.3f}\n]}\n", t);
  return fclose(f) != 0;
}

/* In a child: analyze one file on one thread and print a line. */
static int measure(const char *path) {
  pid_t pid = fork();
  if (pid == 0) {
    struct pl_trace_opts o = {-1, 1, false};
    struct pl_trace_set *s;
    struct pl_diag d;
    pl_diag_clear(&d);
    double t0 = now_s();
    enum pl_status st = trace_analyze_budgets(&path, 1, &o, false, budget, gpu_budget, &s, &d);
    double dt = now_s() - t0;
    if (st != PL_OK) {
      fprintf(stderr, "bench_trace: %s\n", d.msg);
      _exit(1);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mb = (double)s->ranks[0].json_bytes / 1e6;
    double cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    printf("%-60s %9.1f MB JSON %7.3f s (CPU %7.3f s) %7.1f MB/s  peak RSS %7.1f MiB  %9lld GPU events  %.0f B/GPU event\n",
           path, mb, dt, cpu, mb / dt, (double)ru.ru_maxrss / 1024.0,
           (long long)s->ranks[0].gpu_events,
           s->ranks[0].gpu_events ? (double)ru.ru_maxrss * 1024.0 / (double)s->ranks[0].gpu_events : 0);
    fflush(stdout);
    pl_trace_set_free(s);
    _exit(0);
  }
  int status = 1;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ---- the yajl ceiling ---- */

static int cb_none(void *ctx) {
  (void)ctx;
  return 1;
}
static int cb_b(void *ctx, int b) {
  (void)ctx, (void)b;
  return 1;
}
static int cb_n(void *ctx, const char *s, size_t n) {
  (void)ctx, (void)s, (void)n;
  return 1;
}
static int cb_s(void *ctx, const unsigned char *s, size_t n) {
  (void)ctx, (void)s, (void)n;
  return 1;
}

/* In a child: parse path with yajl and empty callbacks, as the reader's chunks. */
static int ceiling(const char *path) {
  pid_t pid = fork();
  if (pid == 0) {
    static const yajl_callbacks cbs = {cb_none, cb_b, NULL, NULL, cb_n, cb_s,
                                       cb_none, cb_s, cb_none, cb_none, cb_none};
    static unsigned char buf[256u << 10];
    gzFile f = gzopen(path, "rb"); /* reads plain files as they are */
    yajl_handle h = yajl_alloc(&cbs, NULL, buf);
    if (f == NULL || h == NULL)
      _exit(1);
    yajl_config(h, yajl_dont_validate_strings, 1);
    gzbuffer(f, 256u << 10);
    double t0 = now_s(), bytes = 0;
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) {
      if (yajl_parse(h, buf, (size_t)n) != yajl_status_ok)
        _exit(1);
      bytes += n;
    }
    double dt = now_s() - t0;
    printf("%-60s %9.1f MB JSON %7.3f s %7.1f MB/s  (yajl with empty callbacks: the ceiling)\n",
           path, bytes / 1e6, dt, bytes / 1e6 / dt);
    fflush(stdout);
    _exit(yajl_complete_parse(h) == yajl_status_ok ? 0 : 1);
  }
  int status = 1;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* tests/data/traces/NAME, found from this source file's path (CMake passes
 * absolute paths to the compiler). */
static const char *shipped(const char *name) {
  static char buf[2][1024];
  static int k;
  char *b = buf[k++ % 2];
  snprintf(b, sizeof buf[0], "%s", __FILE__);
  char *slash = strstr(b, "bench/bench_trace.c");
  if (slash == NULL)
    slash = b;
  snprintf(slash, sizeof buf[0] - (size_t)(slash - b), "tests/data/traces/%s", name);
  return b;
}

static int both(const char *path, bool ceil) {
  int rc = measure(path);
  return ceil ? rc | ceiling(path) : rc;
}

/* --gen-sizes: each size generated, measured and deleted in turn. */
static int gen_list(const char *sizes, bool ceil) {
  const char *big = "/tmp/plateau_bench_trace.json";
  int rc = 0;
  for (const char *p = sizes; *p != '\0';) {
    char *end;
    double mb = strtod(p, &end);
    if (end == p || mb <= 0) {
      fprintf(stderr, "bench_trace: --gen-sizes '%s': expected sizes in MB like 256,1024\n", sizes);
      return 2;
    }
    if (generate(big, mb) != 0) {
      fprintf(stderr, "bench_trace: cannot write %s\n", big);
      unlink(big);
      return 1;
    }
    rc |= both(big, ceil);
    unlink(big);
    p = *end == ',' ? end + 1 : end;
  }
  return rc;
}

int main(int argc, char **argv) {
  double gen_mb = 1024;
  int rc = 0, files = 0;
  bool ceil = false;
  const char *sizes = NULL;
  if (argc == 4 && strcmp(argv[1], "--gen") == 0)
    return generate(argv[2], atof(argv[3]));
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--gen-mb") == 0 && i + 1 < argc) {
      gen_mb = atof(argv[++i]);
      continue;
    }
    if (strcmp(argv[i], "--gen-sizes") == 0 && i + 1 < argc) {
      sizes = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--gpu-budget") == 0 && i + 1 < argc) {
      gpu_budget = (int64_t)atof(argv[++i]);
      continue;
    }
    if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
      budget = (int64_t)atof(argv[++i]);
      continue;
    }
    if (strcmp(argv[i], "--ceiling") == 0) {
      ceil = true;
      continue;
    }
    rc |= both(argv[i], ceil);
    files++;
  }
  if (files == 0) {
    rc |= both(shipped("kineto2021_resnet50_worker0.json.gz"), ceil);
    rc |= both(shipped("tracelens_mi300_resnet_act_checkpoint.json.gz"), ceil);
  }
  if (sizes != NULL)
    return rc | gen_list(sizes, ceil);
  if (gen_mb > 0) {
    const char *big = "/tmp/plateau_bench_trace.json";
    for (double mb = gen_mb / 4; mb <= gen_mb; mb *= 4) {
      if (generate(big, mb) != 0) {
        fprintf(stderr, "bench_trace: cannot write %s\n", big);
        return 1;
      }
      rc |= both(big, ceil);
    }
    unlink(big);
  }
  return rc;
}
