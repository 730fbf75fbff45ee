/* cmd_validate.c: `plateau validate FILE.csv...`: predict published training
 * runs and report how far the predicted step times are from the published
 * ones, per dataset and overall (docs/accuracy.md). Optionally draws the
 * scatter plot with gnuplot, checks the regression baseline, or rewrites it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"
#include "run_opts.h"

static const struct cli_opt opts[] = {
    {"format", "F", "text|json|csv (default text)"},
    {"summary", NULL, "text: print the summary table only, not every row"},
    {"by", "KEY",
     "group the summary by dataset|gpu|framework|dtype: count, mean |error| and mean signed error "
     "per group (text and json: with the rows; csv: the groups only)"},
    {"plot", "DIR",
     "also write DIR/accuracy.gp and draw DIR/accuracy.svg and .png with gnuplot (with --scaling: "
     "DIR/scaling.gp, .svg, .png)"},
    {"baseline", "FILE", "fail (exit 1) when a dataset's mean error exceeds FILE's by > 1 pp"},
    {"write-baseline", "FILE", "write this run's per-dataset errors to FILE as the new baseline"},
    {"explain", "ROW", "one file: show row ROW's whole prediction and compute per operation"},
    {"framework", "NAME",
     "predict every row with this framework preset or file instead of its source's behaviours"},
    {"scaling", NULL,
     "instead of the rows: weak scaling, per-GPU throughput measured and predicted as a "
     "configuration is run on more GPUs"},
    {"quantity", "Q",
     "step|memory (default step): compare step times, or plateau's peak memory per GPU (total "
     "with buffers and allowance) with the published figure where a source prints one"},
    /* the hardware what-if (include/plateau/validate.h struct pl_vhardware) */
    {"cluster", "C",
     "hardware what-if: every row runs on this cluster preset or file (e.g. from calibrate "
     "nccl) instead of its source's; rows on another GPU than the cluster's are skipped"},
    {"gpu", "G",
     "hardware what-if: rows on this GPU run with this GPU preset or file's figures (e.g. from "
     "calibrate compute; a calibrated file keeps its base GPU's name); rows on another GPU are "
     "skipped"},
    RUN_HARDWARE_OPTS,
    CLI_NCCL_VERSION_OPT,
};

static const struct cli_cmd cmd = {
    "validate",
    "plateau validate [options] FILE.csv...",
    "Predict every published run of the validation CSVs (data/validation/, layout in its\n"
    "README.md) and compare step times: each source's metric is converted with that source's\n"
    "own FLOP convention. A row whose source is none of the built-in sources is read as your\n"
    "own run (the README's \"Your own runs\": framework, model, gpu and layout columns and one\n"
    "of step_time_s, tokens_per_s_per_gpu, tokens_per_s, mfu, tflops_per_gpu). Prints per row\n"
    "the measured and predicted step time and the error, the rows that cannot be expressed\n"
    "with the reason, and per dataset the mean, median and worst absolute error (percent).",
    opts,
    sizeof opts / sizeof opts[0],
    true,
};

/* The first hardware what-if option given (--cluster, --gpu, a hardware flag
 * of predict, --nccl-version), or NULL. Every flag of the library's hardware
 * table must be an option here (as run_opts.c checks for predict). */
static const char *whatif_given(const struct cli_args *args, bool *missing) {
  static const char *const own[] = {"cluster", "gpu", "nccl-version"};
  const char *name, *given = NULL;
  *missing = false;
  for (size_t i = 0; (name = pl_cluster_flag_name(i)) != NULL; i++) {
    if (!cli_has_opt(args->cmd, name)) {
      cli_fail("internal: hardware flag --%s is missing from validate's options", name);
      *missing = true;
      return name;
    }
    if (given == NULL && cli_get(args, name) != NULL)
      given = name;
  }
  for (size_t i = 0; i < sizeof own / sizeof own[0] && given == NULL; i++)
    if (cli_get(args, own[i]) != NULL)
      given = own[i];
  return given;
}

/* --scaling: the rows that ran one configuration at several GPU counts. */
static int print_scaling(const struct pl_vscaling_set *s, enum cli_format format) {
  if (format == CLI_FORMAT_TEXT) {
    pl_report_scaling_text(stdout, s);
    return 0;
  }
  if (format == CLI_FORMAT_CSV) {
    pl_report_scaling_csv(stdout, s);
    return 0;
  }
  struct pl_emit *e = cli_emit_open();
  if (e != NULL)
    pl_report_scaling_json(e, s);
  return cli_emit_done(e);
}

static int print(const struct pl_validation *v, enum cli_format format, bool summary) {
  if (format == CLI_FORMAT_TEXT) {
    pl_report_validate_text(stdout, v, !summary);
    return 0;
  }
  if (format == CLI_FORMAT_CSV) {
    pl_report_validate_csv(stdout, v);
    return 0;
  }
  struct pl_emit *e = cli_emit_open();
  if (e != NULL)
    pl_report_validate_json(e, v);
  return cli_emit_done(e);
}

/* --by KEY: the summary grouped by KEY instead of by dataset. */
static int print_groups(const struct pl_validation *v, const char *by, enum cli_format format,
                        bool summary) {
  enum pl_vgroup key;
  struct pl_vgroups g;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_vgroup_parse(by, &key, &d) != PL_OK)
    return cli_fail("--by: %s", d.msg);
  if (pl_validation_group(v, key, &g, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  int rc = 0;
  if (format == CLI_FORMAT_TEXT) {
    pl_report_validate_groups_text(stdout, v, &g, !summary);
  } else if (format == CLI_FORMAT_CSV) {
    pl_report_validate_groups_csv(stdout, &g);
  } else {
    struct pl_emit *e = cli_emit_open();
    if (e != NULL)
      pl_report_validate_groups_json(e, v, &g);
    rc = cli_emit_done(e);
  }
  pl_vgroups_free(&g);
  return rc;
}

/* Draw dir/script with gnuplot (pl_gnuplot_run), in the command's words. */
static int run_gnuplot(const char *dir, const char *script) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status rc = pl_gnuplot_run("gnuplot", dir, script, NULL, &d);
  if (rc == PL_ERR_UNSUPPORTED)
    return cli_fail("gnuplot not found (scripts/install-deps.sh installs it); the script is "
                    "'%s/%s'",
                    dir, script);
  if (rc != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

/* DIR/NAME.gp, drawing NAME.svg and NAME.png: the accuracy figure, or with
 * --scaling (scaling not NULL) the weak-scaling one. */
static int plot(const struct pl_validation *v, const char *dir,
                const struct pl_vscaling_set *scaling) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return cli_fail("--plot: cannot create '%s': %s", dir, strerror(errno));
  char path[4200];
  if (strlen(dir) > 4000)
    return cli_fail("--plot: directory name too long");
  const char *name = scaling != NULL ? "scaling" : "accuracy";
  snprintf(path, sizeof path, "%s/%s.gp", dir, name);
  struct pl_outfile o;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_outfile_open(&o, path, &d) != PL_OK)
    return cli_fail("--plot: %s", d.msg);
  if (scaling != NULL)
    pl_report_scaling_gnuplot(o.f, scaling, "scaling.svg", "scaling.png");
  else
    pl_report_validate_gnuplot(o.f, v, "accuracy.svg", "accuracy.png");
  if (pl_outfile_commit(&o, PL_OK, &d) != PL_OK)
    return cli_fail("--plot: %s", d.msg);
  snprintf(path, sizeof path, "%s.gp", name);
  return run_gnuplot(dir, path);
}

static int check_baseline(const struct pl_validation *v, const char *path) {
  struct pl_vcheck c;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_validation_check_baseline(v, path, &c, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  /* Through cli_err(): under the C API these lines stay in the call, and a
   * failed call's message is the first line, so the regressions go first. */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < c.n_findings; i++)
      if (c.findings[i].failed == (pass == 0))
        fprintf(cli_err(), "plateau: %s: %s: %s\n", pass == 0 ? "regression" : "note",
                c.findings[i].dataset, c.findings[i].msg);
  if (c.n_failed > 0)
    return cli_fail("accuracy regressed in %d finding(s) against '%s' (tolerance %.2f pp)",
                    c.n_failed, path, c.tolerance_pct);
  fprintf(cli_err(), "plateau: accuracy within %.2f pp of baseline '%s'\n", c.tolerance_pct,
          path);
  return 0;
}

static int write_baseline(const struct pl_validation *v, const char *path, int argc, char **argv) {
  char command[1024] = "plateau";
  for (int i = 0; i < argc; i++) {
    size_t n = strlen(command);
    snprintf(command + n, sizeof command - n, " %s", argv[i]);
  }
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_validation_write_baseline(v, path, command, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  fprintf(cli_err(), "plateau: wrote baseline '%s'\n", path);
  return 0;
}

static int after(const struct pl_validation *v, const struct pl_vscaling_set *scaling,
                 const struct cli_args *args, int argc, char **argv) {
  const char *dir = cli_get(args, "plot"), *base = cli_get(args, "baseline");
  const char *wbase = cli_get(args, "write-baseline");
  int rc = 0;
  fflush(stdout); /* the table first, then what follows on stderr */
  if (dir != NULL)
    rc = plot(v, dir, scaling);
  if (rc == 0 && base != NULL)
    rc = check_baseline(v, base);
  if (rc == 0 && wbase != NULL)
    rc = write_baseline(v, wbase, argc, argv);
  return rc;
}

/* --explain ROW: one row's prediction in full, with compute per operation,
 * to see where a row's error could come from. */
static int explain(const struct cli_args *args, enum cli_format format) {
  int64_t row = 0;
  int rc = cli_get_int(args, "explain", &row);
  if (rc != 0)
    return rc;
  if (args->n_pos != 1)
    return cli_usage(&cmd, "--explain: give exactly one CSV file");
  if (format == CLI_FORMAT_CSV)
    return cli_usage(&cmd, "--explain: text or json output only");
  static struct pl_vrow r; /* large: keep off the stack */
  static struct pl_prediction pred;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_validation_explain(args->pos[0], row, &r, &pred, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  bool have = !r.skipped;
  if (format == CLI_FORMAT_TEXT) {
    pl_report_validate_row_text(stdout, &r);
    if (have) {
      fputc('\n', stdout);
      pl_report_predict_text(stdout, &pred);
      pl_report_predict_ops_text(stdout, &pred);
    }
    return 0;
  }
  struct pl_emit *e = cli_emit_open();
  if (e != NULL) {
    pl_emit_obj_begin(e, NULL);
    pl_report_validate_row_json(e, "row", &r);
    if (have)
      pl_report_predict_ops_json(e, "prediction", &pred);
    else
      pl_emit_null(e, "prediction");
    pl_emit_obj_end(e);
  }
  return cli_emit_done(e);
}

int cmd_validate(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  enum cli_format format;
  if (cli_get_format(&args, &format) != 0)
    return 1;
  if (args.n_pos == 0) {
    fprintf(cli_err(), "plateau: validate: give at least one CSV file (e.g. data/validation/*.csv)\n");
    return 2;
  }
  if (cli_get(&args, "baseline") != NULL && cli_get(&args, "write-baseline") != NULL) {
    fprintf(cli_err(), "plateau: validate: give --baseline or --write-baseline, not both\n");
    return 2;
  }
  if (cli_output_ok(&args, "write-baseline") != 0)
    return 1;
  bool missing = false;
  const char *whatif = whatif_given(&args, &missing);
  if (missing)
    return 1;
  if (whatif != NULL && (cli_get(&args, "explain") != NULL || cli_get(&args, "baseline") != NULL ||
                         cli_get(&args, "write-baseline") != NULL))
    return cli_usage(&cmd, "--%s: not with --explain, --baseline or --write-baseline (the "
                           "baseline is the presets' accuracy; explain a what-if row with its "
                           "command)", whatif);
  if (cli_get(&args, "explain") != NULL) {
    if (cli_get(&args, "baseline") || cli_get(&args, "write-baseline") || cli_get(&args, "plot") ||
        cli_flag(&args, "scaling"))
      return cli_usage(&cmd, "--explain: not with --plot, --baseline, --write-baseline or --scaling");
    if (cli_get(&args, "by") != NULL)
      return cli_usage(&cmd, "--explain: not with --by (one row has no groups)");
    if (cli_get(&args, "quantity") != NULL)
      return cli_usage(&cmd, "--explain: not with --quantity (it shows the memory breakdown)");
    /* pl_validation_explain runs the row's own loader, which takes no
     * framework: refused rather than ignored */
    if (cli_get(&args, "framework") != NULL)
      return cli_usage(&cmd, "--explain: not with --framework (explain a row under another "
                             "framework with its command and predict --framework)");
    return explain(&args, format);
  }
  const char *by = cli_get(&args, "by");
  if (by != NULL && cli_flag(&args, "scaling"))
    return cli_usage(&cmd, "--by: not with --scaling (the pairs are not grouped)");
  struct pl_validation v;
  struct pl_diag d;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  const char *q = cli_get(&args, "quantity");
  if (q != NULL && pl_vquantity_parse(q, &v.quantity, &d) != PL_OK) {
    pl_validation_free(&v);
    return cli_fail("--quantity: %s", d.msg);
  }
  if (v.quantity != PL_VQUANTITY_STEP &&
      (cli_flag(&args, "scaling") || cli_get(&args, "baseline") ||
       cli_get(&args, "write-baseline") || cli_get(&args, "plot"))) {
    pl_validation_free(&v);
    return cli_usage(&cmd, "--quantity memory: not with --scaling, --plot, --baseline or "
                           "--write-baseline (they are step-time figures)");
  }
  const char *fw = cli_get(&args, "framework");
  if (fw != NULL && pl_framework_load(fw, &v.framework, &d) != PL_OK) {
    pl_validation_free(&v);
    return cli_fail("--framework: %s", d.msg);
  }
  bool any = false;
  if (pl_validation_set_hardware(&v, cli_flag_get, &args, &any, &d) != PL_OK) {
    pl_validation_free(&v);
    return cli_fail("%s", d.msg);
  }
  rc = 0; /* no file has failed yet */
  for (int i = 0; i < args.n_pos && rc == 0; i++)
    if (pl_validation_add_file(&v, args.pos[i], &d) != PL_OK)
      rc = cli_fail("%s", d.msg);
  /* --scaling: the pairs are formed once, for the report and the figure */
  struct pl_vscaling_set scaling = {0};
  bool want_scaling = cli_flag(&args, "scaling");
  if (rc == 0 && want_scaling && pl_validation_scaling(&v, &scaling, &d) != PL_OK)
    rc = cli_fail("%s", d.msg);
  bool summary = cli_flag(&args, "summary");
  if (rc == 0)
    rc = want_scaling ? print_scaling(&scaling, format)
         : by != NULL ? print_groups(&v, by, format, summary)
                      : print(&v, format, summary);
  if (rc == 0)
    rc = after(&v, want_scaling ? &scaling : NULL, &args, argc, argv);
  pl_vscaling_free(&scaling);
  pl_validation_free(&v);
  return rc;
}
