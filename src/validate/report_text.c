/* report_text.c: `plateau validate` for people (text) and spreadsheets (CSV).
 *
 * Text: one section per dataset (each predicted row with measured and
 * predicted step time and the signed error, what was assumed for it, then
 * the skipped rows with their reasons), then one summary table. Errors are
 * percent; times are seconds per optimizer step.
 * CSV: one line per row, RFC 4180 quoting, units in the header names; cells
 * that do not apply (a skipped row has no prediction) are empty. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <plateau/validate.h>

/* A row's measured or predicted value as printed: seconds, or GiB for a
 * memory row (validate --quantity memory; bytes in CSV and JSON). */
static bool memory_row(const struct pl_vrow *r) {
  return strcmp(r->quantity, pl_vquantity_key(PL_VQUANTITY_MEMORY)) == 0;
}

static double shown(const struct pl_vrow *r, double x) {
  return memory_row(r) ? x / 1073741824.0 : x;
}

/* One predicted row; its assumptions when they differ from the row above
 * (prev), so a dataset that fills the same fields on every row says it once. */
static void row_line(FILE *out, const struct pl_vrow *r, const struct pl_vrow *prev) {
  fprintf(out, "  %4" PRId64 "  %-84.84s %10.3f %10.3f %+8.1f%%\n", r->row, r->label,
          shown(r, r->measured), shown(r, r->predicted), r->error);
  if (r->assumed[0] != '\0' && (prev == NULL || strcmp(prev->assumed, r->assumed) != 0))
    fprintf(out, "        assumed: %s\n", r->assumed);
}

void pl_report_validate_row_text(FILE *out, const struct pl_vrow *r) {
  fprintf(out, "%s row %" PRId64 " (line %" PRId64 "): %s\n", r->dataset, r->row, r->line,
          r->label);
  if (r->architecture[0] != '\0')
    fprintf(out, "  architecture: %s\n", r->architecture);
  if (r->metric[0] != '\0')
    fprintf(out, "  metric: %s\n", r->metric);
  if (r->skipped) {
    fprintf(out, "  skipped: %s\n", r->skipped_reason);
    return;
  }
  if (memory_row(r))
    fprintf(out, "  measured %.2f GiB, predicted %.2f GiB per GPU: %+.1f%%\n",
            shown(r, r->measured), shown(r, r->predicted), r->error);
  else
    fprintf(out, "  measured %.3f s, predicted %.3f s per step: %+.1f%%\n", r->measured,
            r->predicted, r->error);
  if (r->assumed[0] != '\0')
    fprintf(out, "  assumed: %s\n", r->assumed);
}

static void dataset_rows(FILE *out, const struct pl_validation *v, const struct pl_vsummary *s) {
  fprintf(out, "%s: %" PRId64 " rows, %" PRId64 " predicted, %" PRId64 " skipped\n", s->name,
          s->rows, s->predicted, s->skipped);
  for (size_t i = 0; i < v->n_rows; i++)
    if (strcmp(v->rows[i].dataset, s->name) == 0 && v->rows[i].architecture[0] != '\0') {
      fprintf(out, "  architecture: %s\n", v->rows[i].architecture);
      break;
    }
  bool mem = v->quantity == PL_VQUANTITY_MEMORY;
  if (s->predicted > 0)
    fprintf(out,
            "  (an 'assumed' line holds for the rows below it until the next one)\n"
            "  %4s  %-84s %10s %10s %9s\n",
            "row", "run", mem ? "meas.(GiB)" : "meas. (s)", mem ? "pred.(GiB)" : "pred. (s)",
            "error");
  const struct pl_vrow *prev = NULL;
  for (size_t i = 0; i < v->n_rows; i++)
    if (strcmp(v->rows[i].dataset, s->name) == 0 && !v->rows[i].skipped) {
      row_line(out, &v->rows[i], prev);
      prev = &v->rows[i];
    }
  for (size_t i = 0; i < v->n_rows; i++) {
    const struct pl_vrow *r = &v->rows[i];
    if (strcmp(r->dataset, s->name) == 0 && r->skipped)
      fprintf(out, "  %4" PRId64 "  skipped (%.40s): %s\n", r->row, r->label, r->skipped_reason);
  }
  fputc('\n', out);
}

static void summary_line(FILE *out, const struct pl_vsummary *s, bool show_dataset) {
  fprintf(out, "%-40.40s %5" PRId64 " %5" PRId64 " %5" PRId64, s->name, s->rows, s->predicted,
          s->skipped);
  if (s->predicted == 0) {
    fprintf(out, " %8s %8s %8s %8s  -\n", "-", "-", "-", "-");
    return;
  }
  fprintf(out, " %7.1f%% %7.1f%% %7.1f%% %+7.1f%%  ", s->mape, s->median_ape, s->max_ape, s->bias);
  if (show_dataset)
    fprintf(out, "%s ", s->worst_dataset);
  fprintf(out, "row %" PRId64 "\n", s->worst_row);
}

/* The summary table: one line per set (datasets, or the groups of --by)
 * under a first column named by, then the overall line. */
static void summary_table(FILE *out, enum pl_vquantity q, const char *by,
                          const struct pl_vsummary *sets, size_t n, bool show_dataset,
                          const struct pl_vsummary *overall) {
  if (q == PL_VQUANTITY_MEMORY)
    fprintf(out, "peak memory per GPU, predicted vs published: |error| = |predicted - measured| / "
                 "measured;\nbias = mean signed error (negative: predicted too small)\n");
  else
    fprintf(out, "step time, predicted vs published: |error| = |predicted - measured| / measured;\n"
                 "bias = mean signed error (negative: predicted too fast)\n");
  fprintf(out, "%-40s %5s %5s %5s %8s %8s %8s %8s  %s\n", by, "rows", "pred", "skip", "mean",
          "median", "max", "bias", "worst");
  for (size_t i = 0; i < n; i++)
    summary_line(out, &sets[i], show_dataset);
  summary_line(out, overall, true);
}

void pl_report_validate_text(FILE *out, const struct pl_validation *v, bool rows) {
  if (rows)
    for (size_t i = 0; i < v->n_sets; i++)
      dataset_rows(out, v, &v->sets[i]);
  summary_table(out, v->quantity, "dataset", v->sets, v->n_sets, false, &v->overall);
}

void pl_report_validate_groups_text(FILE *out, const struct pl_validation *v,
                                    const struct pl_vgroups *g, bool rows) {
  if (rows)
    for (size_t i = 0; i < v->n_sets; i++)
      dataset_rows(out, v, &v->sets[i]);
  summary_table(out, v->quantity, pl_vgroup_name(g->by), g->groups, g->n,
                g->by != PL_VGROUP_DATASET, &v->overall);
}

/* ------------------------------------------------------------------ CSV */

static void csv_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s != '\0'; s++) {
    if (*s == '"')
      fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void csv_num(FILE *out, double v, bool present) {
  if (present)
    fprintf(out, "%.6g", v);
}

void pl_report_validate_csv(FILE *out, const struct pl_validation *v) {
  fprintf(
      out,
      "dataset,row,line,run,source,gpu,cluster,quantity,metric,published,%s,"
      "error_pct,skipped_reason,assumed,mfu,compute_s,exposed_comm_s,bubble_s,"
      "optimizer_s,other_s,framework,published_error_pct\n",
      v->quantity == PL_VQUANTITY_MEMORY ? "measured_bytes,predicted_bytes" : "measured_s,predicted_s");
  for (size_t i = 0; i < v->n_rows; i++) {
    const struct pl_vrow *r = &v->rows[i];
    bool p = !r->skipped;
    csv_str(out, r->dataset);
    fprintf(out, ",%" PRId64 ",%" PRId64 ",", r->row, r->line);
    csv_str(out, r->label);
    fputc(',', out);
    csv_str(out, r->source);
    fputc(',', out);
    csv_str(out, r->gpu);
    fputc(',', out);
    csv_str(out, r->cluster);
    fputc(',', out);
    csv_str(out, r->quantity);
    fputc(',', out);
    csv_str(out, r->metric);
    fputc(',', out);
    csv_num(out, r->published, r->measured > 0);
    fputc(',', out);
    csv_num(out, r->measured, r->measured > 0);
    fputc(',', out);
    csv_num(out, r->predicted, p);
    fputc(',', out);
    csv_num(out, r->error, p);
    fputc(',', out);
    csv_str(out, r->skipped_reason);
    fputc(',', out);
    csv_str(out, r->assumed);
    const double breakdown[] = {r->mfu,      r->compute_s,   r->exposed_comm_s,
                                r->bubble_s, r->optimizer_s, r->other_s};
    for (size_t k = 0; k < sizeof breakdown / sizeof breakdown[0]; k++) {
      fputc(',', out);
      csv_num(out, breakdown[k], p);
    }
    fputc(',', out);
    csv_str(out, r->framework);
    fputc(',', out);
    csv_num(out, r->published_error, p);
    fputc('\n', out);
  }
}

void pl_report_scaling_csv(FILE *out, const struct pl_vscaling_set *s) {
  fprintf(out, "dataset,series,base_row,row,base_gpus,gpus,measured_efficiency,"
               "predicted_efficiency,gap_pp\n");
  for (size_t i = 0; i < s->n; i++) {
    const struct pl_vscaling *p = &s->pairs[i];
    csv_str(out, p->dataset);
    fputc(',', out);
    csv_str(out, p->series);
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6g,%.6g,%.4g\n", p->base_row,
            p->row, p->base_gpus, p->gpus, p->measured_eff, p->predicted_eff, p->gap_pp);
  }
}

void pl_report_validate_groups_csv(FILE *out, const struct pl_vgroups *g) {
  fprintf(out, "by,group,rows,predicted,skipped,mape_pct,median_ape_pct,max_ape_pct,bias_pct,"
               "worst_dataset,worst_row\n");
  for (size_t i = 0; i < g->n; i++) {
    const struct pl_vsummary *s = &g->groups[i];
    bool p = s->predicted > 0;
    csv_str(out, pl_vgroup_name(g->by));
    fputc(',', out);
    csv_str(out, s->name);
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", s->rows, s->predicted, s->skipped);
    const double figures[] = {s->mape, s->median_ape, s->max_ape, s->bias};
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++) {
      csv_num(out, figures[k], p);
      fputc(',', out);
    }
    csv_str(out, p ? s->worst_dataset : "");
    fputc(',', out);
    if (p)
      fprintf(out, "%" PRId64, s->worst_row);
    fputc('\n', out);
  }
}
