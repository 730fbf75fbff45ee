/* cmd_study.c: `plateau study`: the paper's experiments for any setup, as a
 * report (docs/study.md). Progress goes to stderr, the summary and findings
 * to stdout; Ctrl-C stops the run and leaves --out untouched. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <plateau/plateau.h>
#include <plateau/study.h>

#include "commands.h"
#include "opts.h"

static const struct cli_opt opts[] = {
    {"spec", "FILE", "JSON spec that overrides axes of the default grid (docs/study.md)"},
    {"out", "DIR", "report directory, replaced atomically (default plateau-study)"},
    {"measured", "DIR", "Kineto trace directory of a measured run; more may follow as arguments"},
    {"threads", "N", "worker threads (default: online CPUs)"},
    {"gnuplot", "PATH", "gnuplot binary (default $PLATEAU_GNUPLOT, else gnuplot on PATH)"},
    {"png-scale", "K", "PNG figures at K times the screen size, 1 to 4 (default 1; 3 for print)"},
    {"quiet", NULL, "no progress on stderr"},
    {"framework", "NAME", "framework preset or file for every run (default none: plateau's defaults)"},
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
  if (fw != NULL && pl_framework_load(fw, &spec->framework, &d) != PL_OK)
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
  catch_signals();
  if (pl_study_run(spec, &so, &st, &d) != PL_OK)
    return cli_fail("%s%s", d.msg, stop_flag ? "; nothing was written" : "");
  if (add_measured(args, st, threads) != 0) {
    pl_study_free(st);
    return 1;
  }
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
