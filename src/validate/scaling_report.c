/* scaling_report.c: `plateau validate --scaling` reports, text and JSON
 * (validate.h; the CSV is with the other validate CSV in report_text.c).
 *
 * One line per pair: the series, its two rows and GPU counts, per-GPU
 * throughput at the larger count relative to the smaller, as published and as
 * predicted, and the gap in percentage points (> 0: plateau predicts less
 * loss than was measured). Efficiencies are fractions (1 = no loss). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <plateau/validate.h>

void pl_report_scaling_text(FILE *out, const struct pl_vscaling_set *s) {
  fprintf(out, "weak scaling: per-GPU throughput at 'gpus' relative to the series' smallest GPU "
               "count\n(same model, GPU, layout shape and work per GPU; gap > 0: plateau "
               "predicts less loss than measured)\n\n");
  const char *dataset = "";
  for (size_t i = 0; i < s->n; i++) {
    const struct pl_vscaling *p = &s->pairs[i];
    if (strcmp(p->dataset, dataset) != 0) {
      dataset = p->dataset;
      fprintf(out, "%s\n  %9s %11s %9s %9s %8s  %s\n", dataset, "rows", "gpus", "measured",
              "predicted", "gap", "series");
    }
    char rows[32], gpus[32];
    snprintf(rows, sizeof rows, "%" PRId64 "->%" PRId64, p->base_row, p->row);
    snprintf(gpus, sizeof gpus, "%" PRId64 "->%" PRId64, p->base_gpus, p->gpus);
    fprintf(out, "  %9s %11s %9.3f %9.3f %+6.1f pp  %s\n", rows, gpus, p->measured_eff,
            p->predicted_eff, p->gap_pp, p->series);
  }
  if (s->n == 0) {
    fprintf(out, "no series: no dataset ran one configuration at several GPU counts\n");
    return;
  }
  fprintf(out,
          "\n%zu pairs: per-GPU throughput lost, mean %.1f%% measured, %.1f%% predicted; "
          "gap: mean |gap| %.1f pp, median %+.1f pp\n",
          s->n, s->mean_measured_loss_pct, s->mean_predicted_loss_pct, s->mean_abs_gap_pp,
          s->median_gap_pp);
}

void pl_report_scaling_json(struct pl_emit *e, const struct pl_vscaling_set *s) {
  pl_emit_obj_begin(e, NULL);
  pl_emit_arr_begin(e, "scaling");
  for (size_t i = 0; i < s->n; i++) {
    const struct pl_vscaling *p = &s->pairs[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "dataset", p->dataset);
    pl_emit_str(e, "series", p->series);
    pl_emit_int(e, "base_row", p->base_row);
    pl_emit_int(e, "row", p->row);
    pl_emit_int(e, "base_gpus", p->base_gpus);
    pl_emit_int(e, "gpus", p->gpus);
    pl_emit_num(e, "measured_efficiency", p->measured_eff);
    pl_emit_num(e, "predicted_efficiency", p->predicted_eff);
    pl_emit_num(e, "gap_pp", p->gap_pp);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_obj_begin(e, "summary");
  pl_emit_int(e, "pairs", (int64_t)s->n);
  pl_emit_num(e, "mean_measured_loss_pct", s->mean_measured_loss_pct);
  pl_emit_num(e, "mean_predicted_loss_pct", s->mean_predicted_loss_pct);
  pl_emit_num(e, "mean_abs_gap_pp", s->mean_abs_gap_pp);
  pl_emit_num(e, "median_gap_pp", s->median_gap_pp);
  pl_emit_obj_end(e);
  pl_emit_obj_end(e);
}
