/* plot.c: the accuracy figures as gnuplot scripts (gnuplot 5).
 *
 * Accuracy: predicted against published step time, both axes logarithmic and
 * on the same range, one point type per dataset (its legend gives n and the
 * mean absolute error), the line y = x and dashed +-20% guides. Skipped rows
 * are not drawn.
 * Scaling (--scaling --plot): per-GPU throughput lost at the larger GPU count
 * of each weak-scaling pair, predicted against measured, in percent, with the
 * line y = x; below it, plateau predicts less loss than was measured.
 * The data are written inline as named data blocks, so a script reproduces
 * its figure on its own: `gnuplot accuracy.gp`. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/validate.h>

/* A gnuplot double-quoted string: backslash and quote escaped. */
static void gp_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s != '\0'; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void range(const struct pl_validation *v, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = 0;
  for (size_t i = 0; i < v->n_rows; i++) {
    const struct pl_vrow *r = &v->rows[i];
    if (r->skipped)
      continue;
    *lo = fmin(*lo, fmin(r->measured, r->predicted));
    *hi = fmax(*hi, fmax(r->measured, r->predicted));
  }
  if (!(*hi > 0)) {
    *lo = 0.1;
    *hi = 100;
  }
  *lo /= 1.5;
  *hi *= 1.5;
}

static void data_blocks(FILE *out, const struct pl_validation *v) {
  for (size_t s = 0; s < v->n_sets; s++) {
    fprintf(out, "$d%zu << EOD\n# published_s predicted_s row\n", s);
    for (size_t i = 0; i < v->n_rows; i++) {
      const struct pl_vrow *r = &v->rows[i];
      if (!r->skipped && strcmp(r->dataset, v->sets[s].name) == 0)
        fprintf(out, "%.6g %.6g %lld\n", r->measured, r->predicted, (long long)r->row);
    }
    fprintf(out, "EOD\n");
  }
}

/* gnuplot point types: filled circle, square, triangle, diamond, pentagon, ... */
static const int point_types[] = {7, 5, 9, 11, 13, 6, 4, 8};

static void plot_command(FILE *out, const struct pl_validation *v) {
  fprintf(out, "plot x title \"predicted = published\" lc rgb \"black\" lw 1.5, \\\n"
               "     1.2*x title \"+-20%%\" dt 2 lc rgb \"gray50\", \\\n"
               "     0.8*x notitle dt 2 lc rgb \"gray50\"");
  int style = 0;
  for (size_t s = 0; s < v->n_sets; s++) {
    const struct pl_vsummary *set = &v->sets[s];
    if (set->predicted == 0)
      continue;
    char title[160];
    snprintf(title, sizeof title, "%s (n=%lld, mean %.1f%%)", set->name, (long long)set->predicted,
             set->mape);
    fprintf(out, ", \\\n     $d%zu using 1:2 with points pt %d ps 1.1 title ", s,
            point_types[style % 8]);
    gp_str(out, title);
    style++;
  }
  fputc('\n', out);
}

/* The svg and png outputs of one figure, each drawn by plot(out, arg). */
static void outputs(FILE *out, const char *svg_path, const char *png_path,
                    void (*plot)(FILE *, const void *), const void *arg) {
  if (svg_path != NULL) {
    fprintf(out,
            "set terminal svg size 900,820 noenhanced font \"sans,12\" background rgb \"white\"\n");
    fprintf(out, "set output ");
    gp_str(out, svg_path);
    fputc('\n', out);
    plot(out, arg);
  }
  if (png_path != NULL) {
    fprintf(out, "set terminal pngcairo size 900,820 noenhanced font \"sans,11\"\n");
    fprintf(out, "set output ");
    gp_str(out, png_path);
    fputc('\n', out);
    plot(out, arg);
  }
  fprintf(out, "unset output\n");
}

static void accuracy_plot(FILE *out, const void *v) { plot_command(out, v); }

void pl_report_validate_gnuplot(FILE *out, const struct pl_validation *v, const char *svg_path,
                                const char *png_path) {
  double lo, hi;
  range(v, &lo, &hi);
  fprintf(out, "# accuracy figure written by `plateau validate --plot` (docs/accuracy.md)\n");
  data_blocks(out, v);
  fprintf(out, "set logscale xy\nset xrange [%.4g:%.4g]\nset yrange [%.4g:%.4g]\n", lo, hi, lo, hi);
  fprintf(out, "set size ratio -1\nset grid\nset key top left box opaque\n");
  fprintf(out, "set xlabel \"published step time (s)\"\nset ylabel \"predicted step time (s)\"\n");
  fprintf(out,
          "set title \"plateau: predicted vs published step time, %lld runs (mean error "
          "%.1f%%)\"\n",
          (long long)v->overall.predicted, v->overall.mape);
  outputs(out, svg_path, png_path, accuracy_plot, v);
}

/* ------------------------------------------------------------- scaling */

static void empty_plot(FILE *out, const void *arg) {
  (void)arg;
  fprintf(out, "plot 1/0 notitle\n");
}

/* Datasets in the order of the pairs (the pairs are grouped by dataset). */
static bool new_dataset(const struct pl_vscaling_set *s, size_t i) {
  return i == 0 || strcmp(s->pairs[i].dataset, s->pairs[i - 1].dataset) != 0;
}

static void scaling_plot(FILE *out, const void *arg) {
  const struct pl_vscaling_set *s = arg;
  fprintf(out, "plot x title \"predicted = measured\" lc rgb \"black\" lw 1.5");
  for (size_t i = 0, k = 0; i < s->n; i++) {
    if (!new_dataset(s, i))
      continue;
    size_t n = 0;
    for (size_t j = i; j < s->n && strcmp(s->pairs[j].dataset, s->pairs[i].dataset) == 0; j++)
      n++;
    char title[160];
    snprintf(title, sizeof title, "%s (%zu pair%s)", s->pairs[i].dataset, n, n == 1 ? "" : "s");
    fprintf(out, ", \\\n     $s%zu using 1:2 with points pt %d ps 1.1 title ", k,
            point_types[k % 8]);
    gp_str(out, title);
    k++;
  }
  fputc('\n', out);
}

void pl_report_scaling_gnuplot(FILE *out, const struct pl_vscaling_set *s, const char *svg_path,
                               const char *png_path) {
  double lo = 0, hi = 5; /* percent lost; 0 and 5 always shown */
  for (size_t i = 0; i < s->n; i++) {
    double m = 100.0 * (1.0 - s->pairs[i].measured_eff);
    double p = 100.0 * (1.0 - s->pairs[i].predicted_eff);
    lo = fmin(lo, fmin(m, p));
    hi = fmax(hi, fmax(m, p));
  }
  lo -= 1;
  hi += 1;
  fprintf(out, "# weak-scaling figure written by `plateau validate --scaling --plot` "
               "(docs/accuracy.md)\n");
  for (size_t i = 0, k = 0; i < s->n; i++) {
    if (new_dataset(s, i))
      fprintf(out, "%s$s%zu << EOD\n# measured_loss_pct predicted_loss_pct base_gpus gpus\n",
              i == 0 ? "" : "EOD\n", k++);
    const struct pl_vscaling *p = &s->pairs[i];
    fprintf(out, "%.6g %.6g %lld %lld\n", 100.0 * (1.0 - p->measured_eff),
            100.0 * (1.0 - p->predicted_eff), (long long)p->base_gpus, (long long)p->gpus);
  }
  if (s->n > 0)
    fprintf(out, "EOD\n");
  fprintf(out, "set xrange [%.4g:%.4g]\nset yrange [%.4g:%.4g]\n", lo, hi, lo, hi);
  fprintf(out, "set size ratio -1\nset grid\nset key bottom right box opaque\n");
  fprintf(out, "set xlabel \"per-GPU throughput lost, measured (%%)\"\n"
               "set ylabel \"per-GPU throughput lost, predicted (%%)\"\n");
  fprintf(out,
          "set title \"plateau: weak scaling, %zu pairs (same work per GPU; mean |gap| %.1f pp)\"\n",
          s->n, s->mean_abs_gap_pp);
  if (s->n == 0) {
    fprintf(out, "set label 1 \"no weak-scaling series\" at graph 0.5, 0.5 center\n");
    fprintf(out, "unset key\n");
  }
  outputs(out, svg_path, png_path, s->n > 0 ? scaling_plot : empty_plot, s);
}
