/* validate_plot.c: the accuracy figure as a gnuplot script (gnuplot 5).
 *
 * Predicted against published step time, both axes logarithmic and on the
 * same range, one point type per dataset (its legend gives n and the mean
 * absolute error), the line y = x and dashed +-20% guides. The data are
 * written inline as named data blocks, so the script reproduces the figure
 * on its own: `gnuplot accuracy.gp`. Skipped rows are not drawn. */
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
  if (svg_path != NULL) {
    fprintf(out,
            "set terminal svg size 900,820 noenhanced font \"sans,12\" background rgb \"white\"\n");
    fprintf(out, "set output ");
    gp_str(out, svg_path);
    fputc('\n', out);
    plot_command(out, v);
  }
  if (png_path != NULL) {
    fprintf(out, "set terminal pngcairo size 900,820 noenhanced font \"sans,11\"\n");
    fprintf(out, "set output ");
    gp_str(out, png_path);
    fputc('\n', out);
    plot_command(out, v);
  }
  fprintf(out, "unset output\n");
}
