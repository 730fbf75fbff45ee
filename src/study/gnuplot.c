/* gnuplot.c: a study figure as a gnuplot script and its data, kept
 * beside the drawings so people can restyle and redraw them (`gnuplot
 * <id>.gp` in the figures directory writes <id>.svg and <id>.png), and the
 * runner that draws them. Targets gnuplot 5 (Debian gnuplot-nox: svg and
 * pngcairo terminals). Text is written noenhanced, so names with '_' print
 * as they are. */
#define _POSIX_C_SOURCE 200809L
#include "study_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <plateau/emit.h>
#include <plateau/gnuplot.h>

/* Tableau 10, the matplotlib default cycle: distinguishable and print-safe. */
static const char *const palette[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

static const char *color(int i) { return i < 0 ? "#000000" : palette[i % 10]; }

/* A string for a gnuplot double-quoted literal: no quotes, no backslashes. */
static void quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '\n')
      fputs("\\n", f); /* a line break in tic labels */
    else
      fputc(*s == '"' ? '\'' : *s == '\\' ? '/' : *s, f);
  }
  fputc('"', f);
}

static void num(FILE *f, double v) {
  char buf[40];
  pl_fmt_double(buf, sizeof buf, v);
  fputs(buf, f);
}

/* ---- data ---- */

/* Writes the panel's blocks, numbering them from *block; idx[i] gets the
 * block of series i (-1 when empty). Stacked panels are one block. */
static void write_panel_data(FILE *f, const struct study_panel *pn, int pi, int *block, int *idx) {
  if (pn->kind == STUDY_PANEL_STACKED) {
    fprintf(f, "# block %d: panel %d, bars by GPUs; columns:", *block, pi + 1);
    for (int i = 0; i < pn->n_series; i++)
      fprintf(f, " [%d] %s", i + 2, pn->s[i].title);
    fputc('\n', f);
    for (int r = 0; r < pn->n_cat; r++) {
      quoted(f, pn->cat[r]);
      for (int i = 0; i < pn->n_series; i++) {
        fputc(' ', f);
        num(f, r < pn->s[i].n ? pn->s[i].y[r] : 0.0);
      }
      fputc('\n', f);
    }
    fputs("\n\n", f);
    idx[0] = (*block)++;
    return;
  }
  for (int i = 0; i < pn->n_series; i++) {
    const struct study_series *s = &pn->s[i];
    idx[i] = -1;
    if (s->n == 0)
      continue;
    fprintf(f, "# block %d: panel %d, \"%s\": x = %s, y = %s%s\n", *block, pi + 1, s->title,
            pn->xlabel, pn->ylabel, s->band ? "; then the band's low and high end" : "");
    for (int k = 0; k < s->n; k++) {
      num(f, s->x[k]);
      fputc(' ', f);
      num(f, s->y[k]);
      if (s->band) {
        fputc(' ', f);
        num(f, s->lo[k]);
        fputc(' ', f);
        num(f, s->hi[k]);
      }
      if (s->labels) {
        fputc(' ', f);
        quoted(f, s->label[k]);
      }
      fputc('\n', f);
    }
    fputs("\n\n", f);
    idx[i] = (*block)++;
  }
}

/* ---- script ---- */

static bool panel_empty(const struct study_panel *pn, const int *idx) {
  if (pn->kind == STUDY_PANEL_STACKED)
    return pn->n_cat == 0;
  for (int i = 0; i < pn->n_series; i++)
    if (idx[i] >= 0)
      return false;
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Side-by-side line panels on one log-2 axis of GPUs or nodes share their
 * x values (tics and range): a point only one panel has, such as a
 * published run at 4 GPUs, must not shift one panel's axis against the
 * other's. */
static bool shared_x(const struct study_fig *fig) {
  if (fig->n_panels < 2)
    return false;
  for (int p = 0; p < fig->n_panels; p++)
    if (fig->p[p].kind != STUDY_PANEL_LINES || !fig->p[p].logx ||
        strcmp(fig->p[p].xlabel, fig->p[0].xlabel) != 0)
      return false;
  return true;
}

/* The panels whose x values a panel's axis spans: itself, or all of them. */
struct xspan {
  const struct study_panel *p[2];
  int n;
};

static struct xspan xspan_of(const struct study_fig *fig, int pi) {
  struct xspan x = {{&fig->p[pi], NULL}, 1};
  if (shared_x(fig)) {
    x.n = fig->n_panels;
    for (int p = 0; p < x.n; p++)
      x.p[p] = &fig->p[p];
  }
  return x;
}

/* Explicit tics at the x values (GPUs, nodes) when there are few. */
static void xtics(FILE *f, const struct xspan *xs_of) {
  double xs[2 * STUDY_MAX_SERIES * STUDY_MAX_PTS];
  int n = 0;
  for (int j = 0; j < xs_of->n; j++) {
    const struct study_panel *pn = xs_of->p[j];
    for (int i = 0; i < pn->n_series; i++)
      for (int k = 0; k < pn->s[i].n; k++)
        xs[n++] = pn->s[i].x[k];
  }
  qsort(xs, (size_t)n, sizeof xs[0], cmp_double);
  int distinct = 0;
  for (int i = 0; i < n; i++)
    if (i == 0 || xs[i] != xs[i - 1])
      xs[distinct++] = xs[i];
  if (distinct == 0 || distinct > 12)
    return;
  fputs("  set xtics (", f);
  /* GPUs and nodes are whole; message sizes under 1 MiB are not ("0.0625") */
  for (int i = 0; i < distinct; i++)
    fprintf(f, xs[i] >= 1 ? "%s\"%.0f\" %.17g" : "%s\"%.3g\" %.17g", i ? ", " : "", xs[i], xs[i]);
  fputs(")\n", f);
}

static bool any_labels(const struct study_panel *pn) {
  for (int i = 0; i < pn->n_series; i++)
    if (pn->s[i].labels && pn->s[i].n > 0)
      return true;
  return false;
}

/* A lone panel has no title of its own: the figure's title says it.
 * rows > 0: the panel sits in a fixed plot area (plot_area) and its
 * legend is stacked in at most that many rows. */
static void panel_head(FILE *f, const struct study_panel *pn, int n_plots, bool alone,
                       const struct xspan *xs, int rows) {
  fputs("  reset\n", f);
  if (!alone) {
    fputs("  set title ", f);
    quoted(f, pn->title);
    fputs(" font titlefont\n", f);
  }
  fputs("  set xlabel ", f);
  quoted(f, pn->xlabel);
  for (int i = 0; i < pn->n_cat; i++)
    if (strchr(pn->cat[i], '\n') != NULL) {
      fputs(" offset 0,-0.8", f); /* below two-line tic labels */
      break;
    }
  fputs("\n  set ylabel ", f);
  quoted(f, pn->ylabel);
  fputs("\n  set grid ytics lc rgb \"#dddddd\"\n", f);
  /* Below the plot: a key never covers data. */
  if (rows > 0)
    fprintf(f, "  set key below vertical maxrows %d font keyfont samplen 2.5 width 1 height 1\n",
            rows);
  else
    fprintf(f, "  set key below horizontal maxcols %d font keyfont samplen 2.5 width 1 height 1\n",
            n_plots > 8 ? 3 : 2);
  if (pn->yformat[0] != '\0')
    fprintf(f, "  set format y \"%s\"\n", pn->yformat);
  if (pn->kind == STUDY_PANEL_STACKED) {
    fputs("  set style data histograms\n  set style histogram rowstacked\n"
          "  set style fill solid 0.85 border rgb \"#333333\"\n  set boxwidth 0.7\n"
          "  set yrange [0:*]\n",
          f);
    return;
  }
  /* Room on the right and top for labels written beside the last points. */
  fprintf(f, "  set offsets graph %s, graph %s, graph %s, graph %s\n",
          pn->logx ? "0" : "0.03",
          pn->logx         ? "0"
          : any_labels(pn) ? "0.25"
                           : "0.03",
          pn->logy         ? "0"
          : any_labels(pn) ? "0.2"
                           : "0.06",
          pn->logy ? "0" : "0.06");
  if (pn->logx)
    fputs("  set logscale x 2\n", f);
  if (pn->logy)
    fputs("  set logscale y 10\n", f);
  xtics(f, xs);
}

/* The largest y a panel draws: its points, its stacked bars' tops, and its
 * horizontal lines (a limit line must not sit on the frame). */
static double panel_ymax(const struct study_panel *pn) {
  double m = 0;
  for (int i = 0; i < pn->n_hlines; i++)
    m = pn->hline[i].y > m ? pn->hline[i].y : m;
  if (pn->kind == STUDY_PANEL_STACKED) {
    for (int r = 0; r < pn->n_cat; r++) {
      double top = 0;
      for (int i = 0; i < pn->n_series; i++)
        top += r < pn->s[i].n && pn->s[i].y[r] > 0 ? pn->s[i].y[r] : 0;
      m = top > m ? top : m;
    }
    return m;
  }
  for (int i = 0; i < pn->n_series; i++)
    for (int k = 0; k < pn->s[i].n; k++) {
      double y = pn->s[i].band ? pn->s[i].hi[k] : pn->s[i].y[k];
      m = y > m ? y : m;
    }
  return m;
}

/* Explicit ranges: on a log-2 GPU axis, from just before the first x to
 * just after the last (gnuplot's autoscale rounds to the next power of
 * two and leaves an empty slot), wider when labels are written above the
 * points (centred: half a label past the last one); y from 0 to 8% above
 * the highest point or limit line (18% with labels), or ymax when the
 * figure's panels share one y range. */
static void ranges(FILE *f, const struct study_panel *pn, double shared_ymax,
                   const struct xspan *xs) {
  double ymax = shared_ymax > 0 ? shared_ymax : panel_ymax(pn);
  if (pn->kind == STUDY_PANEL_STACKED || !pn->logy) {
    if (ymax > 0)
      fprintf(f, "  set yrange [0:%.17g]\n", (any_labels(pn) ? 1.18 : 1.08) * ymax);
  }
  if (pn->kind != STUDY_PANEL_LINES || !pn->logx)
    return;
  double lo = 0, hi = 0;
  bool labels = false;
  for (int j = 0; j < xs->n; j++) {
    const struct study_panel *q = xs->p[j];
    labels |= any_labels(q);
    for (int i = 0; i < q->n_series; i++)
      for (int k = 0; k < q->s[i].n; k++) {
        double x = q->s[i].x[k];
        if (x > 0 && (lo == 0 || x < lo))
          lo = x;
        hi = x > hi ? x : hi;
      }
  }
  if (lo > 0)
    fprintf(f, "  set xrange [%.17g:%.17g]\n", lo / 1.3, hi * (labels ? 1.8 : 1.3));
}

static void hlines(FILE *f, const struct study_panel *pn, int *first) {
  for (int i = 0; i < pn->n_hlines; i++) {
    fprintf(f, "%s  %.17g with lines dt 3 lw 1.5 lc rgb \"%s\" title ", *first ? "" : ", \\\n",
            pn->hline[i].y, color(pn->hline[i].color));
    quoted(f, pn->hline[i].title);
    *first = 0;
  }
}

static void plot_stacked(FILE *f, const struct study_panel *pn, const char *dat, int block) {
  fputs("  plot ", f);
  for (int i = 0; i < pn->n_series; i++) {
    fprintf(f, "%s\"%s\" index %d using %d%s lc rgb \"%s\" title ", i ? ", \\\n       " : "", dat,
            block, i + 2, i == 0 ? ":xtic(1)" : "", color(pn->s[i].color));
    quoted(f, pn->s[i].title);
  }
  int first = 0;
  hlines(f, pn, &first);
  fputc('\n', f);
}

/* Error bands first, so the lines and points are drawn over them; the first
 * carries the legend entry that says what the shading is. */
static void plot_bands(FILE *f, const struct study_panel *pn, const char *dat, const int *idx,
                       int *first) {
  for (int i = 0; i < pn->n_series; i++) {
    const struct study_series *s = &pn->s[i];
    if (idx[i] < 0 || !s->band)
      continue;
    fprintf(f,
            "%s\"%s\" index %d using 1:3:4 with filledcurves fs transparent solid 0.15 noborder "
            "lc rgb \"%s\" ",
            *first ? "" : ", \\\n       ", dat, idx[i], color(s->color));
    if (*first) {
      fputs("title ", f);
      quoted(f, STUDY_BAND_TITLE);
    } else
      fputs("notitle", f);
    *first = 0;
  }
}

static void plot_lines(FILE *f, const struct study_panel *pn, const char *dat, const int *idx) {
  fputs("  plot ", f);
  int first = 1;
  plot_bands(f, pn, dat, idx, &first);
  for (int i = 0; i < pn->n_series; i++) {
    const struct study_series *s = &pn->s[i];
    if (idx[i] < 0 || s->band)
      continue;
    fprintf(f, "%s\"%s\" index %d using 1:2 ", first ? "" : ", \\\n       ", dat, idx[i]);
    if (s->dash == 0)
      fprintf(f, "with points pt %d ps 1.4", s->point > 0 ? s->point : 7);
    else if (s->point > 0)
      fprintf(f, "with linespoints dt %d lw 2 pt %d ps 0.8", s->dash, s->point);
    else
      fprintf(f, "with lines dt %d lw %s", s->dash, s->dash == 1 ? "2" : "1.5");
    fprintf(f, " lc rgb \"%s\" title ", color(s->color));
    quoted(f, s->title);
    first = 0;
    if (s->labels)
      fprintf(f,
              ", \\\n       \"%s\" index %d using 1:2:3 with labels center offset "
              "char 0,1 font labelfont tc rgb \"%s\" notitle",
              dat, idx[i], color(s->color));
  }
  hlines(f, pn, &first);
  fputc('\n', f);
}

/* Side-by-side panels that plot one quantity (the same y label, linear)
 * share one y range, so equal heights mean equal values: exposed time per
 * collective (fig->same_y), the step breakdown of FSDP alone and of the best
 * layout, all_reduce and all_gather bus bandwidth against message size. */
static bool same_y(const struct study_fig *fig) {
  if (fig->same_y)
    return true;
  if (fig->n_panels < 2)
    return false;
  for (int p = 0; p < fig->n_panels; p++)
    if (fig->p[p].logy || strcmp(fig->p[p].ylabel, fig->p[0].ylabel) != 0)
      return false;
  return true;
}

/* ---- side-by-side panels: one plot area ---- */

/* Legend entries of a panel as plot_lines/plot_stacked write them (one for
 * all its bands), and the longest title in characters. */
static int key_entries(const struct study_panel *pn, size_t *longest) {
  int n = pn->n_hlines;
  bool bands = false;
  *longest = 0;
  for (int i = 0; i < pn->n_hlines; i++)
    *longest = strlen(pn->hline[i].title) > *longest ? strlen(pn->hline[i].title) : *longest;
  for (int i = 0; i < pn->n_series; i++) {
    const struct study_series *s = &pn->s[i];
    if (pn->kind == STUDY_PANEL_LINES && s->n == 0)
      continue; /* not plotted */
    if (s->band) {
      bands = true;
      continue;
    }
    n++;
    *longest = strlen(s->title) > *longest ? strlen(s->title) : *longest;
  }
  if (bands) {
    n++;
    *longest = strlen(STUDY_BAND_TITLE) > *longest ? strlen(STUDY_BAND_TITLE) : *longest;
  }
  return n;
}

/* The screen share of each panel's plot area when n panels sit side by
 * side: from left to right of the panel's slot. The left side holds the y
 * tic labels and the y label (about 90 of 640 SVG pixels), the right a gap
 * to the next panel. */
#define AREA_LEFT 0.14
#define AREA_RIGHT 0.04

/* Rows of the panel's legend: as many columns as fit under its plot area,
 * at most 3. Widths in em of the key font (12 px in the SVG; 9 pt in the
 * PNG, which pngcairo draws 12 px high as well): a column is its longest
 * title at 0.62 em per character (DejaVu Sans over this report's titles:
 * "published llama2-7b (nemo_2407_performance_summary)", 51 characters,
 * measured 363 px wide in the PNG gnuplot wrote, 0.59 em; rounded up so a
 * legend never comes out wider than estimated) plus the sample (samplen
 * 2.5) and the gaps, 5 em; the plot area is the slot less its sides on
 * a canvas w px wide (1280 for two panels, 900 for one). */
static int key_rows(const struct study_panel *pn, int n_panels, int w) {
  size_t longest = 0;
  int n = key_entries(pn, &longest);
  if (n == 0)
    return 0;
  double area_em = (1.0 - AREA_LEFT - AREA_RIGHT) * w / n_panels / 12.0;
  int cols = (int)(area_em / (0.62 * (double)longest + 5.0));
  cols = cols < 1 ? 1 : cols > 3 ? 3 : cols;
  return (n + cols - 1) / cols;
}

static bool two_line_tics(const struct study_panel *pn) {
  for (int i = 0; i < pn->n_cat; i++)
    if (strchr(pn->cat[i], '\n') != NULL)
      return true;
  return false;
}

/* Panel p of n in its slot, with margins fixed on the screen so that every
 * panel of the figure has the same plot area whatever its legend. gnuplot
 * puts a "below" legend at the bottom of the canvas, so the bottom margin
 * holds, from the bottom up, the legend's rows (1.5 font sizes each: the
 * line height gnuplot's svg and pngcairo terminals give a key row, read
 * off the files they write) and one more key size of padding, then the x
 * label and the x tic labels (6 base font sizes; 7.2 under two-line tic
 * labels); the top holds the panel title (3.2 title sizes) and, when drawn,
 * the figure's title. Sizes are the script's font sizes (bsz, ksz, tsz,
 * msz) over the canvas height H, so the SVG and the PNG each get theirs. */
static void plot_area(FILE *f, int p, int n, int rows, bool tall_tics) {
  double slot = 1.0 / n;
  fprintf(f, "  set lmargin at screen %.4f\n  set rmargin at screen %.4f\n",
          slot * (p + AREA_LEFT), slot * (p + 1 - AREA_RIGHT));
  fprintf(f, "  set bmargin at screen (%.1f * bsz + %d * 1.5 * ksz + ksz) / H\n",
          tall_tics ? 7.2 : 6.0, rows);
  fputs("  set tmargin at screen 1 - (3.2 * tsz + show_title * 2.2 * msz) / H\n", f);
}

/* Legend rows a figure's canvas holds at its base height (560 px); each
 * row past them makes the canvas one key row (18 SVG px, 1.5 x the 12-px
 * key font) taller, so a long legend (the MFU figure's 13 entries with the
 * published runs) does not squash the plot. */
#define KEY_ROWS_BASE 6

static void write_script(FILE *f, const struct study_fig *fig, int blocks[2][STUDY_MAX_SERIES],
                         int png_scale) {
  int w = fig->n_panels > 1 ? 1280 : 900;
  /* The legends' rows (key_rows): side by side, the panels share one plot
   * area (plot_area) sized for the longer, so they line up whatever each
   * legend holds; the canvas grows with the longest. */
  int rows[2] = {0, 0}, rows_max = 0;
  bool tall_tics = false;
  for (int p = 0; p < fig->n_panels; p++) {
    rows[p] = key_rows(&fig->p[p], fig->n_panels, w);
    rows_max = rows[p] > rows_max ? rows[p] : rows_max;
    tall_tics |= two_line_tics(&fig->p[p]);
  }
  int h = 560 + 18 * (rows_max > KEY_ROWS_BASE ? rows_max - KEY_ROWS_BASE : 0);
  fprintf(f, "# %s.gp: \"%s\", written by plateau study.\n", fig->id, fig->title);
  fprintf(f,
          "# Redraw with `gnuplot %s.gp` in this directory: it reads %s.dat and writes\n"
          "# %s.svg and %s.png. Edit styles, sizes and labels freely.\n",
          fig->id, fig->id, fig->id, fig->id);
  /* SVG is shown scaled down in the page: larger text than the PNG. The
   * PNG is png_scale times larger in pixels, text and lines (for print:
   * `gnuplot -e "png_scale = 3" <id>.gp`, or plateau study --png-scale 3). */
  fprintf(f, "if (!exists(\"png_scale\")) png_scale = %d\n", png_scale);
  /* The report's section heading (and a paper's caption) carries the
   * figure's title: drawn into the image only when asked
   * (`gnuplot -e "show_title = 1" <id>.gp`). */
  fputs("if (!exists(\"show_title\")) show_title = 0\n", f);
  fputs("k = int(png_scale)\n"
        "do for [fmt in \"svg png\"] {\n"
        "  titlefont = (fmt eq \"svg\") ? \",15\" : \",\" . (12 * k)\n"
        "  keyfont = (fmt eq \"svg\") ? \",12\" : \",\" . (9 * k)\n"
        "  labelfont = (fmt eq \"svg\") ? \",11\" : \",\" . (8 * k)\n"
        "  # the same sizes as numbers, and the canvas height, for fixed plot areas\n"
        "  bsz = (fmt eq \"svg\") ? 14 : 10 * k\n"
        "  ksz = (fmt eq \"svg\") ? 12 : 9 * k\n"
        "  tsz = (fmt eq \"svg\") ? 15 : 12 * k\n"
        "  msz = (fmt eq \"svg\") ? 17 : 14 * k\n"
        ,
        f);
  fprintf(f, "  H = (fmt eq \"svg\") ? %d.0 : %d.0 * k\n  if (fmt eq \"svg\") {\n", h, h);
  fprintf(f,
          "    set terminal svg size %d,%d noenhanced font \"DejaVu Sans,14\" "
          "background rgb \"#ffffff\"\n    set output \"%s.svg\"\n  } else {\n",
          w, h, fig->id);
  fprintf(f,
          "    set terminal pngcairo size %d * k,%d * k noenhanced font \"DejaVu Sans,\" . (10 * k) "
          "linewidth k background rgb \"#ffffff\"\n    set output \"%s.png\"\n  }\n",
          w, h, fig->id);
  fprintf(f, "  set multiplot layout 1,%d title (show_title ? ", fig->n_panels);
  quoted(f, fig->title);
  fputs(" : \"\") font (fmt eq \"svg\" ? \",17\" : \",\" . (14 * k))\n", f);
  char dat[48];
  study_setf(dat, sizeof dat, "%s.dat", fig->id);
  double shared = 0;
  for (int p = 0; same_y(fig) && p < fig->n_panels; p++)
    shared = panel_ymax(&fig->p[p]) > shared ? panel_ymax(&fig->p[p]) : shared;
  for (int p = 0; p < fig->n_panels; p++) {
    const struct study_panel *pn = &fig->p[p];
    int plots = pn->n_hlines, bands = 0;
    for (int i = 0; i < pn->n_series; i++)
      pn->s[i].band ? bands++ : plots++;
    plots += bands > 0; /* one legend entry for all bands */
    fprintf(f, "  # panel %d\n", p + 1);
    struct xspan xs = xspan_of(fig, p);
    panel_head(f, pn, plots, fig->n_panels == 1, &xs, rows[p] > 0 ? rows[p] : 0);
    if (fig->n_panels > 1)
      plot_area(f, p, fig->n_panels, rows_max, tall_tics);
    if (!panel_empty(pn, blocks[p]))
      ranges(f, pn, shared, &xs);
    if (panel_empty(pn, blocks[p])) {
      fputs("  unset key\n  unset logscale\n  unset xtics\n  unset ytics\n  set label 1 ", f);
      quoted(f, pn->empty_note[0] ? pn->empty_note : "no data");
      fputs(" at graph 0.5, graph 0.5 center\n  set xrange [0:1]\n  set yrange [0:1]\n"
            "  plot 2 notitle\n",
            f);
    } else if (pn->kind == STUDY_PANEL_STACKED)
      plot_stacked(f, pn, dat, blocks[p][0]);
    else
      plot_lines(f, pn, dat, blocks[p]);
  }
  fputs("  unset multiplot\n  unset output\n}\n", f);
}

static enum pl_status open_out(const char *dir, const char *id, const char *ext, FILE **f,
                               struct pl_diag *diag) {
  char name[64], path[1024];
  study_setf(name, sizeof name, "%s.%s", id, ext);
  if (!study_path(path, sizeof path, dir, name))
    return pl_diag_set(diag, PL_ERR_LIMIT, "'%s': path too long", dir);
  *f = fopen(path, "w");
  if (*f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return PL_OK;
}

static enum pl_status close_out(FILE *f, const char *dir, const char *id, struct pl_diag *diag) {
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s/%s': %s", dir, id, strerror(errno));
  return PL_OK;
}

enum pl_status study_gnuplot_write(const struct study_fig *fig, const char *dir, int png_scale,
                                   struct pl_diag *diag) {
  int blocks[2][STUDY_MAX_SERIES];
  FILE *f;
  enum pl_status rc = open_out(dir, fig->id, "dat", &f, diag);
  if (rc != PL_OK)
    return rc;
  fprintf(f,
          "# %s.dat: data of \"%s\", written by plateau study.\n"
          "# Blocks are separated by two blank lines (gnuplot `index`).\n",
          fig->id, fig->title);
  int block = 0;
  for (int p = 0; p < fig->n_panels; p++)
    write_panel_data(f, &fig->p[p], p, &block, blocks[p]);
  rc = close_out(f, dir, fig->id, diag);
  if (rc == PL_OK)
    rc = open_out(dir, fig->id, "gp", &f, diag);
  if (rc != PL_OK)
    return rc;
  write_script(f, fig, blocks, png_scale > 1 ? png_scale : 1);
  return close_out(f, dir, fig->id, diag);
}

/* ---- running gnuplot ---- */

static bool nonempty(const char *dir, const char *id, const char *ext) {
  char name[64], path[1024];
  struct stat sb;
  study_setf(name, sizeof name, "%s.%s", id, ext);
  return study_path(path, sizeof path, dir, name) && stat(path, &sb) == 0 && sb.st_size > 0;
}

enum pl_status study_gnuplot_run(const char *gnuplot, const char *dir, const char *id,
                                 struct pl_diag *diag) {
  char script[64];
  study_setf(script, sizeof script, "%s.gp", id);
  enum pl_status rc = pl_gnuplot_run(gnuplot, dir, script, "gnuplot.log", diag);
  if (rc == PL_ERR_UNSUPPORTED || rc == PL_ERR_IO)
    return rc;
  if (rc != PL_OK || !nonempty(dir, id, "svg") || !nonempty(dir, id, "png"))
    return pl_diag_set(diag, PL_ERR_INTERNAL, "gnuplot failed on %s.gp (see gnuplot.log)", id);
  return PL_OK;
}
