/* cmd_study.c: `plateau study`: the paper's experiments for any setup, as a
 * report (docs/study.md). Progress goes to stderr, the summary and findings
 * to stdout; Ctrl-C stops the run and leaves --out untouched. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <plateau/plateau.h>
#include <plateau/study.h>
#include <plateau/validate.h>

#include "commands.h"
#include "opts.h"

static const struct cli_opt opts[] = {
    {"spec", "FILE", "JSON spec that overrides axes of the default grid (docs/study.md)"},
    {"out", "DIR", "report directory, replaced atomically (default plateau-study)"},
    {"measured", "DIR", "Kineto trace directory of a measured run; more may follow as arguments"},
    {"validation", "PATH", "validation CSV, or a directory of them (data/validation): published runs of the same model, GPU and sequence length drawn over the curves (default: the embedded NeMo 24.07 runs; none: no published runs)"},
    {"threads", "N", "worker threads (default: online CPUs)"},
    {"gnuplot", "PATH", "gnuplot binary (default $PLATEAU_GNUPLOT, else gnuplot on PATH)"},
    {"png-scale", "K", "PNG figures at K times the screen size, 1 to 4 (default 1; 3 for print)"},
    {"quiet", NULL, "no progress on stderr"},
    {"framework", "NAME", "framework preset or file for every run, or none (plateau's defaults); overrides the spec's framework (default " PL_STUDY_DEFAULT_FRAMEWORK ", the paper's PyTorch 2.3.1 FSDP2 + xFormers 0.27 stack)"},
};

static const struct cli_cmd cmd = {
    "study",
    "plateau study [--spec FILE.json] [--out DIR] [--measured TRACE_DIR...]",
    "Run the scaling study of arXiv 2411.13055 on any setup and write a report: results.csv,\n"
    "results.json, figures (SVG and PNG drawn by gnuplot, with their .gp scripts and .dat data)\n"
    "and a self-contained index.html. Default grid: Llama-2 7B/13B/70B on DGX V100/A100/H100,\n"
    "1 to 256 nodes, FSDP alone against tp/pp/cp and the searched best layout, 1, 2 and 4\n"
    "sequences of 4096 tokens per GPU and a fixed global batch of 1024 sequences.",
    opts,
    sizeof opts / sizeof opts[0],
    true,
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

static void catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = (int)SA_RESETHAND; /* a second Ctrl-C kills at once */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct progress {
  bool quiet, tty;
  double t0;
  int last_decile;
};

static void on_progress(void *ud, const char *phase, int64_t done, int64_t total) {
  struct progress *p = ud;
  if (p->quiet || total <= 0)
    return;
  int pct = (int)(100 * done / total);
  if (p->tty) {
    fprintf(stderr, "\rplateau study: %lld/%lld %s (%d%%), %.0f s", (long long)done,
            (long long)total, phase, pct, now_s() - p->t0);
    if (done == total)
      fputc('\n', stderr);
  } else if (pct / 10 > p->last_decile || done == total) {
    p->last_decile = pct / 10;
    fprintf(stderr, "plateau study: %lld/%lld %s (%d%%), %.0f s\n", (long long)done,
            (long long)total, phase, pct, now_s() - p->t0);
  }
  fflush(stderr);
}

static int load_spec(const struct cli_args *args, struct pl_study_spec *spec) {
  const char *path = cli_get(args, "spec");
  const char *fw = cli_get(args, "framework");
  struct pl_diag d;
  pl_diag_clear(&d);
  if (path == NULL)
    pl_study_spec_default(spec);
  else if (pl_study_spec_load(path, spec, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (fw != NULL && pl_study_spec_set_framework(spec, fw, &d) != PL_OK)
    return cli_fail("--framework: %s", d.msg);
  return 0;
}

static int get_threads(const struct cli_args *args, int *threads) {
  int64_t n = 0;
  if (cli_get_int(args, "threads", &n) != 0)
    return 1;
  if (cli_get(args, "threads") == NULL) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    n = c > 0 ? c : 1;
  }
  if (n < 1 || n > 256)
    return cli_fail("--threads: %lld is not from 1 to 256", (long long)n);
  *threads = (int)n;
  return 0;
}

static int add_measured(const struct cli_args *args, struct pl_study *st, int threads) {
  const char *first = cli_get(args, "measured");
  if (first == NULL)
    return 0;
  const char *dirs[PL_STUDY_MAX_MEASURED + 1];
  int n = 0;
  dirs[n++] = first;
  for (int i = 0; i < args->n_pos; i++) {
    if (n > PL_STUDY_MAX_MEASURED)
      return cli_fail("--measured: more than %d trace directories", PL_STUDY_MAX_MEASURED);
    dirs[n++] = args->pos[i];
  }
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_study_add_measured(st, dirs, n, threads, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

/* --validation PATH: a validation CSV or every *.csv of a directory (name
 * order), predicted by the validate code (include/plateau/validate.h); the
 * predicted rows go to the study, which keeps those of its setups. */
#define STUDY_MAX_CSV 256
static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The path exists (checked before the study runs, and again when read). */
static int validation_path(const char *path, struct stat *sb) {
  if (path[0] == '\0')
    return cli_fail("--validation: empty path");
  if (stat(path, sb) != 0)
    return cli_fail("--validation '%s': %s", path, strerror(errno));
  return 0;
}

static int read_validation(struct pl_validation *v, const char *path) {
  struct stat sb;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (validation_path(path, &sb) != 0)
    return 1;
  if (!S_ISDIR(sb.st_mode))
    return pl_validation_add_file(v, path, &d) == PL_OK ? 0 : cli_fail("%s", d.msg);
  DIR *dir = opendir(path);
  if (dir == NULL)
    return cli_fail("--validation '%s': %s", path, strerror(errno));
  static char names[STUDY_MAX_CSV][256];
  char *order[STUDY_MAX_CSV];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || len >= sizeof names[0] || strcmp(e->d_name + len - 4, ".csv") != 0)
      continue;
    if (n == STUDY_MAX_CSV) {
      closedir(dir);
      return cli_fail("--validation '%s': more than %d CSV files", path, STUDY_MAX_CSV);
    }
    memcpy(names[n], e->d_name, len + 1);
    order[n] = names[n];
    n++;
  }
  closedir(dir);
  if (n == 0)
    return cli_fail("--validation '%s': no .csv file in the directory", path);
  qsort(order, (size_t)n, sizeof order[0], by_name);
  for (int i = 0; i < n; i++) {
    char file[4096];
    snprintf(file, sizeof file, "%s/%s", path, order[i]);
    if (pl_validation_add_file(v, file, &d) != PL_OK)
      return cli_fail("%s", d.msg);
  }
  return 0;
}

/* Without --validation: the validation CSVs embedded in the binary
 * (CMakeLists.txt PL_EMBED_VALIDATION: those whose rows the default grid
 * matches), read as the files themselves would be. */
static int read_embedded(struct pl_validation *v) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *name;
  for (size_t i = 0; (name = pl_data_name("validation", i)) != NULL; i++) {
    size_t len = 0;
    const char *text = pl_data_find("validation", name, &len);
    if (text != NULL && pl_validation_add_csv(v, name, text, len, &d) != PL_OK)
      return cli_fail("embedded validation data '%s': %s", name, d.msg);
  }
  return 0;
}

/* path NULL: the embedded runs; "none": no published runs. Read before the
 * grid runs, so a bad CSV (empty, not the validation layout) fails at once,
 * not after minutes of study (v is initialised either way). */
static int load_validation(struct pl_validation *v, const char *path) {
  pl_validation_init(v);
  if (path != NULL && strcmp(path, "none") == 0)
    return 0;
  return path != NULL ? read_validation(v, path) : read_embedded(v);
}

/* The published runs of v, read by load_validation, onto the study's curves. */
static int add_validation(struct pl_study *st, const struct pl_validation *v) {
  int rc = 0;
  struct pl_study_published_run *runs = NULL;
  size_t n = 0;
  if (v->n_rows > 0 && (runs = calloc(v->n_rows, sizeof *runs)) == NULL)
    rc = cli_fail("--validation: out of memory");
  for (size_t i = 0; rc == 0 && i < v->n_rows; i++) {
    const struct pl_vrow *r = &v->rows[i];
    if (r->skipped || strcmp(r->quantity, "step_time_s") != 0)
      continue;
    struct pl_study_published_run *p = &runs[n++];
    snprintf(p->dataset, sizeof p->dataset, "%s", r->dataset);
    p->row = r->row;
    snprintf(p->label, sizeof p->label, "%s", r->label);
    snprintf(p->model, sizeof p->model, "%s", r->model);
    snprintf(p->gpu, sizeof p->gpu, "%s", r->gpu);
    p->layout = r->layout;
    p->measured_step_time_s = r->measured;
    p->predicted_step_time_s = r->predicted;
    p->predicted_mfu = r->mfu;
  }
  struct pl_diag d;
  pl_diag_clear(&d);
  if (rc == 0 && pl_study_add_published(st, runs, n, &d) != PL_OK)
    rc = cli_fail("%s", d.msg);
  free(runs);
  return rc;
}

static void summary(const struct pl_study *st, const char *out, double elapsed, int threads,
                    const struct pl_study_report_info *info) {
  int64_t n[3] = {0, 0, 0}, total = pl_study_count(st);
  for (int64_t i = 0; i < total; i++)
    n[pl_study_get(st, i)->status]++;
  printf("plateau study: %lld points in %.1f s on %d thread%s (%lld simulated, %lld do not fit, "
         "%lld cannot be laid out)\n",
         (long long)total, elapsed, threads, threads == 1 ? "" : "s", (long long)n[0],
         (long long)n[1], (long long)n[2]);
  printf("wrote %s/index.html, results.csv, results.json and %d figure%s (%s)\n", out,
         info->n_figures, info->n_figures == 1 ? "" : "s",
         info->figures_drawn ? "SVG, PNG, gnuplot scripts and data"
                             : "gnuplot scripts and data only");
  static struct pl_study_finding f[PL_STUDY_MAX_FINDINGS];
  int k = pl_study_findings(st, f, PL_STUDY_MAX_FINDINGS);
  printf("findings:\n");
  for (int i = 0; i < k; i++)
    printf("  %s: %s\n", f[i].figure, f[i].text);
}

static int run(const struct cli_args *args, const struct pl_study_spec *spec, int threads) {
  const char *out = cli_get(args, "out") ? cli_get(args, "out") : "plateau-study";
  const char *gp = cli_get(args, "gnuplot") ? cli_get(args, "gnuplot") : getenv("PLATEAU_GNUPLOT");
  struct progress pr = {cli_flag(args, "quiet"), isatty(2) != 0, now_s(), 0};
  struct pl_study_opts so = {threads, on_progress, &pr, &stop_flag};
  struct pl_study *st = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  /* gnuplot runs inside the report's directory: a relative path given here
   * (bin/gnuplot) must mean this directory's. A missing one is not an error:
   * the report then has scripts and data, and a note says so. */
  char gp_abs[4096], cwd[2048];
  if (gp != NULL && gp[0] != '/' && strchr(gp, '/') != NULL) {
    if (getcwd(cwd, sizeof cwd) == NULL)
      return cli_fail("--gnuplot '%s': cannot resolve a relative path: %s", gp, strerror(errno));
    snprintf(gp_abs, sizeof gp_abs, "%s/%s", cwd, gp);
    gp = gp_abs;
  }
  int64_t png_scale = 1;
  if (cli_get_int(args, "png-scale", &png_scale))
    return 1;
  if (png_scale > 4)
    return cli_fail("--png-scale: %lld is more than 4", (long long)png_scale);
  if (pl_study_out_check(out, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  /* A missing or unreadable --validation fails now, not after the whole grid ran. */
  const char *vpath = cli_get(args, "validation");
  bool vnone = vpath != NULL && strcmp(vpath, "none") == 0; /* no published runs at all */
  struct pl_validation v;
  if (load_validation(&v, vpath) != 0) {
    pl_validation_free(&v);
    return 1;
  }
  catch_signals();
  if (pl_study_run(spec, &so, &st, &d) != PL_OK) {
    pl_validation_free(&v);
    return cli_fail("%s%s", d.msg, stop_flag ? "; nothing was written" : "");
  }
  if (add_measured(args, st, threads) != 0 || (!vnone && add_validation(st, &v) != 0)) {
    pl_validation_free(&v);
    pl_study_free(st);
    return 1;
  }
  pl_validation_free(&v);
  double elapsed = now_s() - pr.t0;
  struct pl_study_report_opts ro = {gp, elapsed, threads, &stop_flag, (int)png_scale};
  struct pl_study_report_info info;
  int rc = 0;
  if (pl_study_write(st, out, &ro, &info, &d) != PL_OK)
    rc = cli_fail("%s; '%s' was left as it was", d.msg, out);
  if (rc == 0 && !info.figures_drawn)
    fprintf(stderr, "plateau: %s\n", info.note);
  if (rc == 0)
    summary(st, out, elapsed, threads, &info);
  pl_study_free(st);
  return rc;
}

int cmd_study(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  if (args.n_pos > 0 && cli_get(&args, "measured") == NULL)
    return cli_usage(&cmd, "unexpected argument '%s'", args.pos[0]);
  static struct pl_study_spec spec; /* large: keep off the stack */
  int threads = 1;
  if (load_spec(&args, &spec) != 0 || get_threads(&args, &threads) != 0)
    return 1;
  return run(&args, &spec, threads);
}
