/* cmd_predict.c: `plateau predict`: one configuration in, its cost out. */
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "run_opts.h"

static const struct cli_opt opts[] = {
    RUN_OPTS,
    TRAIN_OPTS,
    {"format", "F", "text|json|csv (default text)"},
    {"trace", "FILE", "also write the predicted timeline as a Perfetto/Chrome trace JSON"},
    {"ops", NULL, "also show compute per operation (shapes, time, achieved rate); text|json"},
    CLI_NCCL_VERSION_OPT,
};

static const struct cli_cmd cmd = {
    "predict", "plateau predict [options]",
    "Predict one training configuration: parameters, FLOPs, memory per GPU, and (when it fits)\n"
    "step time, throughput, MFU, collectives and power. With no options: Llama-2 7B on one\n"
    "DGX H100 node (8 GPUs) with FSDP (zero2), 1 sequence of 4096 tokens per GPU.\n"
    "Step time, throughput and MFU carry an error band: the middle 90% of measured/predicted\n"
    "of the published runs of the closest class (GPU x framework x single/multi-node, then\n"
    "GPU x single/multi-node, GPU, all; data/accuracy/error-bands.json, docs/accuracy.md).\n"
    "Text: '(-x%/+y%)' after each; JSON: step_time_s_range, tokens_per_s_range, mfu_range\n"
    "([lo, hi]) and error_band {class, published_runs, measured_over_predicted}; CSV:\n"
    "step_time_s_lo/_hi, tokens_per_s_lo/_hi, mfu_lo/_hi, error_band.class, .published_runs.",
    opts, sizeof opts / sizeof opts[0], false,
};

static int print(const struct pl_prediction *p, enum cli_format format, bool ops) {
  if (format == CLI_FORMAT_TEXT) {
    pl_report_predict_text(stdout, p);
    if (ops)
      pl_report_predict_ops_text(stdout, p);
    if (ops && !p->step.simulated)
      printf("  (the layout does not fit, so no step was simulated: these are the times each "
             "operation would take)\n");
    else if (!p->step.simulated)
      /* Not fitting is a result (exit 0, docs/model.md "Fits?"), so say why the step
       * figures are missing and where to go next: a new user otherwise sees only memory. */
      printf("  (the layout does not fit, so no step was simulated: shard more (--shard), "
             "recompute (--recompute), raise --tp/--pp, or let 'plateau search' find a layout "
             "that fits)\n");
    return 0;
  }
  if (format == CLI_FORMAT_CSV) {
    pl_report_predict_csv_header(stdout);
    pl_report_predict_csv_row(stdout, p);
    return 0;
  }
  struct pl_emit *e = cli_emit_open();
  if (e != NULL && ops)
    pl_report_predict_ops_json(e, NULL, p);
  else if (e != NULL)
    pl_report_predict_json(e, NULL, p);
  return cli_emit_done(e);
}

int cmd_predict(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  enum cli_format format;
  static struct pl_run run; /* large: keep off the stack */
  static struct pl_prediction pred;
  if (cli_get_format(&args, &format) != 0 || cli_output_ok(&args, "trace") != 0 ||
      run_from_args(&args, &run) != 0 || cli_nccl_version(&args, &run.cluster) != 0)
    return 1;
  bool ops = cli_flag(&args, "ops");
  if (ops && format == CLI_FORMAT_CSV)
    return cli_usage(&cmd, "--ops: text or json output only (csv is one row per prediction)");
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_predict(&run, &pred, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  const char *trace = cli_get(&args, "trace");
  if (trace != NULL && pl_predict_timeline(&run, trace, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return print(&pred, format, ops);
}
