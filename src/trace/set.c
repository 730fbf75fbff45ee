/* set.c: a set of trace files, one per rank, analyzed in parallel.
 *
 * Each worker thread takes the next file index, streams it (reader.c),
 * reduces it to per-step means (steps.c) and frees its events, so at most
 * `threads` files are in memory at once. A file with GPU events of several
 * pids (devices) gives one rank per pid. Results land in a slot per file and
 * are sorted by rank then file name afterwards, so the output is the same for
 * any thread count. Across ranks (docs/trace.md 4): mean/min/max of each
 * metric, the straggler, missing ranks, and the collectives merged. */
#define _DEFAULT_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN) (glibc) */
#define _POSIX_C_SOURCE 200809L /* opendir, stat */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <plateau/alloc.h>

#include <plateau/outfile.h>
#include "trace_int.h"

struct job {
  char **files;
  int n;
  bool calls;      /* pl_trace_analyze_calls */
  const void *mem; /* pl_trace_analyze_mem: the one trace's bytes, else NULL */
  size_t mem_len;
  const struct pl_trace_opts *opts;
  int64_t spill_budget_bytes; /* trace_data.spill_budget_bytes of every file */
  int64_t gpu_budget_bytes;   /* trace_data.gpu_budget_bytes of every file */
  struct pl_trace_rank **ranks; /* per file: one rank, or one per GPU pid */
  int *n_ranks;
  enum pl_status *status;
  struct pl_diag *diags;
  int next;
  pthread_mutex_t lock;
};

/* A file whose GPU events carry several pids (devices) is one rank per pid:
 * a Kineto trace of one rank has one GPU pid, plateau's predicted pp traces
 * one per stage. The CPU side (launches, steps) is shared. */
static enum pl_status analyze_file(struct job *j, int i, struct trace_data *d) {
  struct pl_diag *diag = &j->diags[i];
  enum pl_status s = trace_link(d, diag);
  int n = d->n_devices > 1 ? d->n_devices : 1;
  if (s == PL_OK && (j->ranks[i] = pl_calloc((size_t)n, sizeof *j->ranks[i])) == NULL)
    s = pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", j->files[i]);
  for (int k = 0; s == PL_OK && k < n; k++) {
    d->view_dev = n > 1 ? k + 1 : 0;
    s = trace_rank_analyze(d, j->files[i], j->opts, j->calls, &j->ranks[i][k], diag);
    j->n_ranks[i] = k + 1; /* freed by the caller, also on failure */
  }
  return s;
}

static void run_one(struct job *j, int i) {
  struct trace_data d;
  memset(&d, 0, sizeof d);
  d.spill_budget_bytes = j->spill_budget_bytes;
  d.gpu_budget_bytes = j->gpu_budget_bytes;
  pl_diag_clear(&j->diags[i]);
  enum pl_status s = j->mem != NULL
                         ? trace_read_mem(j->mem, j->mem_len, j->files[i], 0, &d, &j->diags[i])
                         : trace_read(j->files[i], &d, &j->diags[i]);
  if (s == PL_OK)
    s = analyze_file(j, i, &d);
  j->status[i] = s;
  trace_data_free(&d);
}

static void *worker(void *arg) {
  struct job *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    int i = j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= j->n)
      return NULL;
    run_one(j, i);
  }
}

static int threads_for(const struct pl_trace_opts *o, int n) {
  long t = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (t < 1)
    t = 1;
  if (t > n)
    t = n;
  return t > 256 ? 256 : (int)t;
}

static void run_all(struct job *j) {
  int nt = threads_for(j->opts, j->n);
  pthread_t tid[256];
  int started = 0;
  for (int t = 1; t < nt; t++)
    if (pthread_create(&tid[started], NULL, worker, j) == 0)
      started++;
  worker(j); /* the calling thread works too */
  for (int t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
}

/* ---- paths ---- */

static bool trace_name(const char *s) {
  size_t n = strlen(s);
  return (n > 5 && strcmp(s + n - 5, ".json") == 0) ||
         (n > 8 && strcmp(s + n - 8, ".json.gz") == 0);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

struct list {
  char **v;
  int n, cap;
};

static void free_list(struct list *l) {
  for (int i = 0; i < l->n; i++)
    pl_free(l->v[i]);
  pl_free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

/* Trace files (ranks) in one analysis (docs/limits.md): 2^16, far above
 * the 2^13-rank traces HTA analyses, and keeps the int counts safe. */
#define TRACE_MAX_FILES 65536

static enum pl_status list_add(struct list *l, const char *dir, const char *name) {
  if (l->n >= TRACE_MAX_FILES)
    return PL_ERR_LIMIT;
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    char **v = pl_reallocarray(l->v, (size_t)cap, sizeof *v);
    if (v == NULL)
      return PL_ERR_NOMEM;
    l->v = v;
    l->cap = cap;
  }
  size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
  char *p = pl_malloc(n);
  if (p == NULL)
    return PL_ERR_NOMEM;
  if (dir)
    snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
  else
    snprintf(p, n, "%s", name);
  l->v[l->n++] = p;
  return PL_OK;
}

/* A directory entry is read only when it is a regular file (after symlinks):
 * opening a FIFO or a device named rank0.json would block or read forever. */
static bool regular_entry(const char *dir, const char *name) {
  char p[4096];
  int n = snprintf(p, sizeof p, "%s/%s", dir, name);
  struct stat st;
  return n > 0 && (size_t)n < sizeof p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static enum pl_status add_dir(struct list *l, const char *dir, struct pl_diag *diag) {
  DIR *dp = opendir(dir);
  if (dp == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot read directory '%s': %s", dir, strerror(errno));
  int before = l->n, skipped = 0;
  char skipped_name[256] = "";
  struct dirent *e;
  enum pl_status s = PL_OK;
  while (s == PL_OK && (e = readdir(dp)) != NULL) {
    if (!trace_name(e->d_name))
      continue;
    if (regular_entry(dir, e->d_name)) {
      s = list_add(l, dir, e->d_name);
    } else if (skipped++ == 0) {
      snprintf(skipped_name, sizeof skipped_name, "%s", e->d_name);
    }
  }
  closedir(dp);
  if (s == PL_OK && l->n == before && skipped > 0)
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "directory '%s' has no regular trace files ('%s' and %d other "
                       "entries are not regular files)",
                       dir, skipped_name, skipped - 1);
  if (s == PL_ERR_LIMIT)
    return pl_diag_set(diag, s, "'%s': more than %d trace files in one analysis", dir,
                       TRACE_MAX_FILES);
  if (s != PL_OK)
    return pl_diag_set(diag, s, "out of memory listing '%s'", dir);
  if (l->n == before)
    return pl_diag_set(diag, PL_ERR_MISSING, "directory '%s' has no *.json or *.json.gz traces",
                       dir);
  qsort(l->v + before, (size_t)(l->n - before), sizeof *l->v, cmp_str);
  return PL_OK;
}

static enum pl_status expand(const char *const *paths, int n, struct list *l,
                             struct pl_diag *diag) {
  for (int i = 0; i < n; i++) {
    struct stat st;
    enum pl_status s;
    if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
      s = add_dir(l, paths[i], diag);
    else if ((s = list_add(l, NULL, paths[i])) == PL_ERR_LIMIT)
      s = pl_diag_set(diag, s, "more than %d trace files in one analysis", TRACE_MAX_FILES);
    else if (s != PL_OK)
      s = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
    if (s != PL_OK)
      return s;
  }
  /* one file named twice (r0.json r0.json, a directory and a file in it, a link)
   * was read as two ranks and averaged (src/base/samefile.c) */
  int a, b;
  if (pl_paths_same_file((const char *const *)l->v, l->n, &a, &b))
    return strcmp(l->v[a], l->v[b]) == 0
               ? pl_diag_set(diag, PL_ERR_RANGE,
                             "trace '%s' given twice: each rank's trace is read once", l->v[a])
               : pl_diag_set(diag, PL_ERR_RANGE,
                             "traces '%s' and '%s' are one file: each rank's trace is read once",
                             l->v[a], l->v[b]);
  return PL_OK;
}

/* ---- across ranks ---- */

static int cmp_rank(const void *a, const void *b) {
  const struct pl_trace_rank *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  int c = strcmp(x->file, y->file);
  if (c != 0)
    return c;
  return (x->gpu_pid > y->gpu_pid) - (x->gpu_pid < y->gpu_pid);
}

typedef double (*getter)(const struct pl_trace_rank *);
#define GETTER(f) \
  static double get_##f(const struct pl_trace_rank *r) { return r->f; }
GETTER(span_s)
GETTER(compute_s)
GETTER(comm_s)
GETTER(overlapped_comm_s)
GETTER(exposed_comm_s)
GETTER(memory_s)
GETTER(exposed_memory_s)
GETTER(idle_s)
GETTER(recompute_s)
GETTER(idle_host_s)
GETTER(idle_kernel_s)
GETTER(idle_other_s)
GETTER(kernel_s)

static struct pl_trace_stat stat_of(const struct pl_trace_set *s, getter get, bool gpu) {
  struct pl_trace_stat st = {0, 0, 0, -1, -1};
  int k = 0;
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_rank *r = &s->ranks[i];
    if (r->has_gpu != gpu)
      continue;
    double v = get(r);
    if (k == 0 || v < st.min)
      st.min = v, st.min_rank = r->rank;
    if (k == 0 || v > st.max)
      st.max = v, st.max_rank = r->rank;
    st.mean += v;
    k++;
  }
  if (k > 0)
    st.mean /= k;
  return st;
}

static void straggler(struct pl_trace_set *s) {
  double lo = 0, hi = 0;
  int k = 0;
  s->straggler_rank = -1;
  s->straggler_gpu_pid = -1;
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_rank *r = &s->ranks[i];
    if (!r->has_gpu)
      continue;
    double busy = r->span_s - r->exposed_comm_s;
    if (k == 0 || busy > hi) {
      hi = busy;
      s->straggler_rank = r->rank;
      s->straggler_file = r->file;
      s->straggler_gpu_pid = r->gpu_pid;
    }
    if (k == 0 || busy < lo)
      lo = busy;
    k++;
  }
  s->straggler_busy_s = hi;
  s->straggler_spread_s = hi - lo;
}

static void stats(struct pl_trace_set *s) {
  bool g = s->any_gpu;
  s->step_time_s = stat_of(s, get_span_s, g);
  s->compute_s = stat_of(s, get_compute_s, g);
  s->comm_s = stat_of(s, get_comm_s, g);
  s->overlapped_comm_s = stat_of(s, get_overlapped_comm_s, g);
  s->exposed_comm_s = stat_of(s, get_exposed_comm_s, g);
  s->memory_s = stat_of(s, get_memory_s, g);
  s->exposed_memory_s = stat_of(s, get_exposed_memory_s, g);
  s->idle_s = stat_of(s, get_idle_s, g);
  s->recompute_s = stat_of(s, get_recompute_s, g);
  s->idle_host_s = stat_of(s, get_idle_host_s, g);
  s->idle_kernel_s = stat_of(s, get_idle_kernel_s, g);
  s->idle_other_s = stat_of(s, get_idle_other_s, g);
  s->kernel_s = stat_of(s, get_kernel_s, g);
  straggler(s);
}

static enum pl_status ranks_present(struct pl_trace_set *s) {
  s->duplicate_rank = -1;
  s->world_size = -1;
  for (int i = 0; i < s->n_ranks; i++) {
    int64_t w = s->ranks[i].world_size;
    if (w > 0 && s->world_size > 0 && w != s->world_size)
      s->world_mismatch = true;
    if (w > s->world_size)
      s->world_size = w;
    if (i > 0 && s->ranks[i].rank >= 0 && s->ranks[i].rank == s->ranks[i - 1].rank &&
        s->ranks[i].file != s->ranks[i - 1].file && s->duplicate_rank < 0)
      s->duplicate_rank = s->ranks[i].rank;
    s->any_gpu |= s->ranks[i].has_gpu;
  }
  if (s->n_files_ < 2 || s->world_size <= 0 || s->world_size > 1000000)
    return PL_OK;
  s->missing = pl_calloc((size_t)s->world_size, sizeof *s->missing);
  if (s->missing == NULL)
    return PL_ERR_NOMEM;
  int j = 0;
  for (int64_t r = 0; r < s->world_size; r++) {
    while (j < s->n_ranks && s->ranks[j].rank < r)
      j++;
    if (j == s->n_ranks || s->ranks[j].rank != r)
      s->missing[s->n_missing++] = r;
  }
  return PL_OK;
}

/* ---- collectives merged over ranks ---- */

static enum pl_status merge_coll(struct pl_trace_set *s) {
  int cap = 0;
  for (int i = 0; i < s->n_ranks; i++)
    cap += s->ranks[i].n_coll;
  if (cap == 0)
    return PL_OK;
  s->coll = pl_calloc((size_t)cap, sizeof *s->coll);
  if (s->coll == NULL)
    return PL_ERR_NOMEM;
  for (int i = 0; i < s->n_ranks; i++) {
    for (int c = 0; c < s->ranks[i].n_coll; c++) {
      const struct pl_trace_coll *x = &s->ranks[i].coll[c];
      int k = 0;
      while (k < s->n_coll && (strcmp(s->coll[k].op, x->op) != 0 ||
                               s->coll[k].group_size != x->group_size))
        k++;
      struct pl_trace_coll *y = &s->coll[k];
      if (k == s->n_coll) {
        s->n_coll++;
        memcpy(y->op, x->op, sizeof y->op);
        y->group_size = x->group_size;
      }
      y->count += x->count;
      y->time_s += x->time_s;
      y->sized_calls += x->sized_calls;
      y->sized_bytes += x->sized_bytes;
      y->sized_time_s += x->sized_time_s;
      y->bus_bytes += x->bus_bytes;
    }
  }
  int gpu_ranks = 0;
  for (int i = 0; i < s->n_ranks; i++)
    gpu_ranks += s->ranks[i].has_gpu;
  for (int k = 0; k < s->n_coll; k++) {
    struct pl_trace_coll *y = &s->coll[k];
    y->count /= gpu_ranks;
    y->time_s /= gpu_ranks;
    if (y->sized_calls > 0) {
      y->bytes = y->sized_bytes / (double)y->sized_calls;
      y->algbw_bytes_per_s = y->sized_bytes / y->sized_time_s;
      y->busbw_bytes_per_s = y->bus_bytes / y->sized_time_s;
    }
  }
  return PL_OK;
}

/* ---- entry ---- */

static enum pl_status first_error(const struct job *j, struct pl_diag *diag) {
  for (int i = 0; i < j->n; i++) {
    if (j->status[i] == PL_OK)
      continue;
    if (diag != NULL)
      *diag = j->diags[i];
    return j->status[i];
  }
  return PL_OK;
}

static enum pl_status assemble(struct job *j, struct pl_trace_set *s, struct pl_diag *diag) {
  enum pl_status st = first_error(j, diag);
  if (st != PL_OK)
    return st;
  int n = 0;
  for (int i = 0; i < j->n; i++)
    n += j->n_ranks[i];
  s->ranks = pl_calloc((size_t)n, sizeof *s->ranks);
  if (s->ranks == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  for (int i = 0; i < j->n; i++) { /* the ranks' coll and calls move to the set */
    memcpy(s->ranks + s->n_ranks, j->ranks[i], (size_t)j->n_ranks[i] * sizeof *s->ranks);
    s->n_ranks += j->n_ranks[i];
    j->n_ranks[i] = 0;
  }
  s->n_files_ = j->n;
  qsort(s->ranks, (size_t)s->n_ranks, sizeof *s->ranks, cmp_rank);
  if (ranks_present(s) != PL_OK || merge_coll(s) != PL_OK || trace_set_extras(s) != PL_OK)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  stats(s);
  return PL_OK;
}

/* Analyze the files of l (taken over by the set, freed on failure too). */
static enum pl_status analyze_list(struct list *l, const struct pl_trace_opts *opts,
                                   bool calls, const int64_t budget[2], const void *mem,
                                   size_t mem_len, struct pl_trace_set **out,
                                   struct pl_diag *diag) {
  struct pl_trace_set *s = pl_calloc(1, sizeof *s);
  struct job j;
  memset(&j, 0, sizeof j);
  j.files = l->v;
  j.n = l->n;
  j.opts = opts;
  j.calls = calls;
  j.spill_budget_bytes = budget[0];
  j.gpu_budget_bytes = budget[1];
  j.mem = mem;
  j.mem_len = mem_len;
  j.ranks = pl_calloc((size_t)j.n, sizeof *j.ranks);
  j.n_ranks = pl_calloc((size_t)j.n, sizeof *j.n_ranks);
  j.status = pl_calloc((size_t)j.n, sizeof *j.status);
  j.diags = pl_calloc((size_t)j.n, sizeof *j.diags);
  enum pl_status st = s && j.ranks && j.n_ranks && j.status && j.diags
                          ? PL_OK
                          : pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  if (st == PL_OK) {
    pthread_mutex_init(&j.lock, NULL);
    run_all(&j);
    pthread_mutex_destroy(&j.lock);
    st = assemble(&j, s, diag);
  }
  if (s != NULL) { /* the set owns the file names; ranks point into them */
    s->files_ = l->v;
    s->n_files_ = l->n;
  } else {
    free_list(l);
  }
  if (j.ranks != NULL && j.n_ranks != NULL)
    for (int i = 0; i < j.n; i++) {
      for (int k = 0; k < j.n_ranks[i]; k++)
        trace_rank_free(&j.ranks[i][k]);
      pl_free(j.ranks[i]);
    }
  pl_free(j.ranks);
  pl_free(j.n_ranks);
  pl_free(j.status);
  pl_free(j.diags);
  if (st != PL_OK) {
    pl_trace_set_free(s);
    return st;
  }
  *out = s;
  return PL_OK;
}

enum pl_status trace_analyze_budgets(const char *const *paths, int n_paths,
                                     const struct pl_trace_opts *opts, bool calls,
                                     int64_t spill_budget_bytes, int64_t gpu_budget_bytes,
                                     struct pl_trace_set **out, struct pl_diag *diag) {
  const int64_t budget[2] = {spill_budget_bytes, gpu_budget_bytes};
  *out = NULL;
  if (n_paths <= 0)
    return pl_diag_set(diag, PL_ERR_MISSING, "no trace files given");
  struct list l = {0};
  enum pl_status st = expand(paths, n_paths, &l, diag);
  if (st != PL_OK) {
    free_list(&l);
    return st;
  }
  return analyze_list(&l, opts, calls, budget, NULL, 0, out, diag);
}

enum pl_status pl_trace_analyze(const char *const *paths, int n_paths,
                                const struct pl_trace_opts *opts, struct pl_trace_set **out,
                                struct pl_diag *diag) {
  return trace_analyze_budgets(paths, n_paths, opts, false, 0, 0, out, diag);
}

enum pl_status pl_trace_analyze_calls(const char *const *paths, int n_paths,
                                      const struct pl_trace_opts *opts,
                                      struct pl_trace_set **out, struct pl_diag *diag) {
  return trace_analyze_budgets(paths, n_paths, opts, true, 0, 0, out, diag);
}

enum pl_status pl_trace_analyze_mem(const void *data, size_t len, const char *name,
                                    const struct pl_trace_opts *opts, struct pl_trace_set **out,
                                    struct pl_diag *diag) {
  *out = NULL;
  struct list l = {0};
  if (list_add(&l, NULL, name != NULL ? name : "(memory)") != PL_OK) {
    free_list(&l);
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  }
  /* a NULL buffer reads as empty (an error naming the trace), not as "a file" */
  static const unsigned char none[1];
  static const int64_t defaults[2] = {0, 0};
  return analyze_list(&l, opts, false, defaults, data != NULL ? data : none,
                      data != NULL ? len : 0, out, diag);
}

void pl_trace_set_free(struct pl_trace_set *s) {
  if (s == NULL)
    return;
  for (int i = 0; i < s->n_ranks; i++)
    trace_rank_free(&s->ranks[i]);
  pl_free(s->ranks);
  for (int i = 0; i < s->n_kernels; i++)
    pl_free(s->kernels[i].name);
  pl_free(s->kernels);
  pl_free(s->arrivals);
  pl_free(s->missing);
  pl_free(s->coll);
  for (int i = 0; i < s->n_files_; i++)
    pl_free(s->files_[i]);
  pl_free(s->files_);
  pl_free(s);
}
