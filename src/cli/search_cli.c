/* search_cli.c: threads, MPI ranks, the progress bar and the search options
 * shared by search and sweep.
 *
 * MPI is optional (CMake defines PL_HAVE_MPI when it finds Open MPI). It is
 * initialised only when the process was started by mpirun (Open MPI sets
 * OMPI_COMM_WORLD_SIZE, PMIx sets PMIX_RANK), so a plain `plateau search`
 * never pays MPI's start-up. Under MPI every rank runs the same command; the
 * library splits the work and gathers it on every rank (MPI_Allgatherv), and
 * only rank 0 writes output: the others' stdout goes to /dev/null. */
#define _POSIX_C_SOURCE 200809L
#include "search_cli.h"

#include "run_opts.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <plateau/alloc.h>
#include <plateau/emit.h>
#include <plateau/report.h>

#ifdef PL_HAVE_MPI
#include <limits.h>
#include <mpi.h>

static enum pl_status mpi_allgather(void *ud, const void *mine, size_t len, void **all,
                                    size_t *lens, struct pl_diag *diag) {
  (void)ud;
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  unsigned long long my_len = len;
  unsigned long long *all_lens = pl_calloc((size_t)n, sizeof *all_lens);
  int *counts = pl_calloc((size_t)n, sizeof *counts), *displs = pl_calloc((size_t)n, sizeof *displs);
  enum pl_status st = PL_OK;
  if (all_lens == NULL || counts == NULL || displs == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1); /* the other ranks would wait in the gather forever */
  MPI_Allgather(&my_len, 1, MPI_UNSIGNED_LONG_LONG, all_lens, 1, MPI_UNSIGNED_LONG_LONG,
                MPI_COMM_WORLD);
  unsigned long long total = 0;
  for (int r = 0; r < n; r++) {
    lens[r] = (size_t)all_lens[r];
    counts[r] = (int)all_lens[r];
    displs[r] = (int)total;
    total += all_lens[r];
  }
  /* Every rank sees the same lengths, so all take this exit together. */
  if (total > INT_MAX) {
    st = pl_diag_set(diag, PL_ERR_LIMIT, "mpi: %llu bytes to gather exceed MPI's int counts", total);
    goto out_free;
  }
  *all = pl_malloc((size_t)total);
  if (*all == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Allgatherv(mine, (int)len, MPI_BYTE, *all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
out_free:
  pl_free(displs);
  pl_free(counts);
  pl_free(all_lens);
  return st;
}

static bool under_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL;
}

static void mpi_begin(struct cli_par *cp, struct pl_par_dist *dist) {
  if (!under_mpirun())
    return;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &cp->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &cp->nranks);
  cp->mpi = true;
  dist->rank = cp->rank;
  dist->nranks = cp->nranks;
  dist->allgather = mpi_allgather;
  if (cp->rank != 0 && freopen("/dev/null", "w", stdout) == NULL)
    fclose(stdout);
}

static void mpi_end(struct cli_par *cp) {
  if (cp->mpi)
    MPI_Finalize();
}
#else
static void mpi_begin(struct cli_par *cp, struct pl_par_dist *dist) {
  (void)cp;
  (void)dist;
}
static void mpi_end(struct cli_par *cp) { (void)cp; }
#endif

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Cores of this machine, shared by the ranks mpirun put on it. */
static int64_t default_threads(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  long per = local != NULL ? strtol(local, NULL, 10) : 1;
  if (per < 1)
    per = 1;
  long t = cores / per;
  return t >= 1 ? t : 1;
}

int cli_par_begin(const struct cli_args *args, const char *label, struct cli_par *cp) {
  memset(cp, 0, sizeof *cp);
  cp->nranks = 1;
  cp->label = label;
  int64_t threads = 0;
  if (cli_get_int(args, "threads", &threads) != 0)
    return 1;
  if (threads > 1024)
    return cli_fail("--threads: %lld is more than 1024", (long long)threads);
  if (threads == 0)
    threads = default_threads();
  struct pl_par_dist dist = {0, 1, NULL, NULL};
  mpi_begin(cp, &dist);
  cp->bar = cp->rank == 0 && !cli_flag(args, "quiet") && isatty(STDERR_FILENO) &&
            cli_err() == stderr; /* never from the C API */
  cp->start_s = now_s();
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_par_new((int)threads, &dist, &cp->par, &d) != PL_OK) {
    mpi_end(cp);
    return cli_fail("%s", d.msg);
  }
  return 0;
}

void cli_par_end(struct cli_par *cp) {
  cli_progress_clear(cp);
  pl_par_free(cp->par);
  cp->par = NULL;
  mpi_end(cp);
}

void cli_progress(void *ud, int64_t done, int64_t total) {
  struct cli_par *cp = ud;
  if (!cp->bar || total <= 0 || now_s() - cp->start_s < 1.0)
    return;
  enum { WIDTH = 30 };
  double f = (double)done / (double)total;
  f = f < 0 ? 0 : (f > 1 ? 1 : f);
  int pct = (int)(100 * f);
  if (cp->drawn && pct == cp->shown)
    return;
  cp->shown = pct;
  char bar[WIDTH + 1];
  int full = (int)(f * WIDTH);
  for (int i = 0; i < WIDTH; i++)
    bar[i] = i < full ? '#' : '.';
  bar[WIDTH] = '\0';
  fprintf(stderr, "\rplateau %s: [%s] %3d%%", cp->label, bar, pct);
  fflush(stderr);
  cp->drawn = true;
}

void cli_progress_clear(struct cli_par *cp) {
  if (!cp->drawn)
    return;
  fprintf(stderr, "\r%60s\r", "");
  fflush(stderr);
  cp->drawn = false;
}

static int parse_objective(const struct cli_args *args, struct pl_search_opts *so) {
  const char *v = cli_get(args, "objective");
  so->objective = PL_OBJECTIVE_THROUGHPUT;
  if (v == NULL || strcmp(v, "throughput") == 0)
    return 0;
  if (strcmp(v, "tokens-per-joule") == 0)
    so->objective = PL_OBJECTIVE_TOKENS_PER_J;
  else if (strcmp(v, "cost") == 0)
    so->objective = PL_OBJECTIVE_COST;
  else
    return cli_fail("--objective: unknown objective '%s' (expected throughput|tokens-per-joule|cost)",
                    v);
  return 0;
}

/* One degree given twice, as --NAME and in --fix, must agree: taking either
 * silently would answer a question the user did not ask. */
static int merge_degree(const char *name, int64_t *flag, int64_t fixed) {
  if (fixed == 0)
    return 0;
  if (*flag != 0 && *flag != fixed)
    return cli_fail("--%s %lld conflicts with --fix %s=%lld: give one", name, (long long)*flag,
                    name, (long long)fixed);
  *flag = fixed;
  return 0;
}

static int merge_mask(const char *name, unsigned *flag, unsigned fixed) {
  if (fixed == 0)
    return 0;
  if (*flag != 0 && (*flag & fixed) == 0)
    return cli_fail("--%s conflicts with --fix %s=...: give one", name, name);
  *flag = *flag != 0 ? *flag & fixed : fixed;
  return 0;
}

static int merge_fix(struct pl_search_space *s, const struct pl_search_space *f) {
  if (merge_degree("tp", &s->tp, f->tp) || merge_degree("pp", &s->pp, f->pp) ||
      merge_degree("cp", &s->cp, f->cp) || merge_degree("dp", &s->dp, f->dp) ||
      merge_degree("vp", &s->vp, f->vp) || merge_degree("mbs", &s->mbs, f->mbs) ||
      merge_degree("shard-group", &s->shard_group, f->shard_group))
    return 1;
  if (merge_mask("shard", &s->shard_mask, f->shard_mask) ||
      merge_mask("recompute", &s->recompute_mask, f->recompute_mask) ||
      merge_mask("schedule", &s->schedule_mask, f->schedule_mask))
    return 1;
  return 0;
}

/* Layout options given with the run options become constraints. */
int cli_search_space(const struct cli_args *args, const struct pl_layout *l,
                     struct pl_search_space *s) {
  if (cli_get(args, "tp"))
    s->tp = l->tp;
  if (cli_get(args, "pp"))
    s->pp = l->pp;
  if (cli_get(args, "cp"))
    s->cp = l->cp;
  if (cli_get(args, "vp"))
    s->vp = l->vp;
  if (cli_get(args, "mbs"))
    s->mbs = l->mbs;
  if (cli_get(args, "shard-group"))
    s->shard_group = l->shard_group;
  if (cli_get(args, "shard"))
    s->shard_mask = 1u << l->shard;
  if (cli_get(args, "recompute"))
    s->recompute_mask = 1u << l->recompute;
  if (cli_get(args, "schedule"))
    s->schedule_mask = 1u << l->schedule;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *fix = cli_get(args, "fix");
  struct pl_search_space f;
  memset(&f, 0, sizeof f);
  if (fix != NULL && pl_search_space_parse(fix, &f, &d) != PL_OK)
    return cli_fail("--fix: %s", d.msg);
  return fix != NULL ? merge_fix(s, &f) : 0;
}

int cli_search_setup(const struct cli_args *args, struct pl_run *run, struct pl_search_opts *so,
                     bool *has_price) {
  memset(so, 0, sizeof *so);
  so->top_k = 10;
  if (run != NULL && (run_opts_search_refused(args) != 0 || run_from_args(args, run) != 0))
    return 1;
  if (parse_objective(args, so) != 0 || cli_get_int(args, "top", &so->top_k) != 0 ||
      run_opts_price(args, "gpu-hour-price", &so->gpu_hour_usd) != 0)
    return 1;
  *has_price = cli_get(args, "gpu-hour-price") != NULL;
  if (so->objective == PL_OBJECTIVE_COST && !*has_price)
    return cli_fail("--objective cost needs --gpu-hour-price USD (the price of one GPU-hour)");
  so->exhaustive = cli_flag(args, "exhaustive");
  return run != NULL ? cli_search_space(args, &run->layout, &so->space) : 0;
}

const char *cli_objective_name(enum pl_objective o) {
  return o == PL_OBJECTIVE_COST ? "cost" : (o == PL_OBJECTIVE_TOKENS_PER_J ? "tokens-per-joule"
                                                                           : "throughput");
}

/* Write predict's header or row to memory and copy it out without the newline. */
static int csv_without_newline(FILE *out, const struct pl_prediction *p) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (mem == NULL)
    return cli_fail("out of memory writing CSV");
  if (p == NULL)
    pl_report_predict_csv_header(mem);
  else
    pl_report_predict_csv_row(mem, p);
  fclose(mem);
  if (len > 0 && buf[len - 1] == '\n')
    len--;
  fwrite(buf, 1, len, out);
  free(buf); /* open_memstream's buffer comes from malloc */
  return 0;
}

int cli_csv_predict_header(FILE *out) { return csv_without_newline(out, NULL); }

int cli_csv_predict_row(FILE *out, const struct pl_prediction *p) {
  return csv_without_newline(out, p);
}

void cli_csv_num(FILE *out, double v, bool valid) {
  fputc(',', out);
  if (valid) {
    char buf[40];
    pl_fmt_csv(buf, sizeof buf, v);
    fputs(buf, out);
  }
}
