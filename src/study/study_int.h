/* study_int.h (internal to src/study): the study's state, the
 * strategies of a grid, and the figure model the gnuplot and HTML writers
 * share. Internal names start with study_.
 * Ownership: a struct study_fig is a plain value (large: allocate it); what
 * study_figs_build returns is released with pl_free. */
#ifndef PL_REPORT_STUDY_INT_H
#define PL_REPORT_STUDY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <plateau/coll.h>
#include <plateau/search.h>
#include <plateau/study.h>

/* A named strategy of the spec, as the grid runs it. */
struct study_strategy {
  bool best; /* found by pl_search_run */
  int64_t tp, pp, cp;
  enum pl_shard shard;
};

/* A published run (validation CSV row) that matches a study setup (published.c). */
#define STUDY_MAX_PUBLISHED 512
struct study_published {
  int model, cluster;  /* the spec's axes it matches */
  struct pl_study_published_run run;
  double tokens_per_s_per_gpu; /* measured: gbs x seq / (step x GPUs) */
  double mfu;                  /* measured, plateau's convention: predicted MFU x predicted step /
                                  measured step; 0 = unknown */
};

struct pl_study {
  struct pl_study_spec spec;
  struct pl_model models[PL_STUDY_MAX_AXIS];
  struct pl_cluster clusters[PL_STUDY_MAX_AXIS];
  struct study_strategy strat[PL_STUDY_MAX_AXIS];
  int focus_model, focus_cluster, baseline; /* baseline: index of "fsdp" */
  struct pl_study_point *points;
  int64_t n_points;
  struct pl_study_coll *coll;
  int64_t n_coll;
  struct pl_study_measured measured[PL_STUDY_MAX_MEASURED];
  int n_measured;
  struct study_published *published; /* pl_calloc'd STUDY_MAX_PUBLISHED, or NULL */
  int n_published;
};

/* ---- spec.c ---- */
/* The strategy a name stands for; errors name the strategy. */
enum pl_status study_strategy_parse(const char *name, enum pl_shard shard,
                                    struct study_strategy *out, struct pl_diag *diag);
/* The spec as JSON members (written into an open object). */
struct pl_emit;
void study_spec_json(struct pl_emit *e, const struct pl_study_spec *s);
/* "1 seq/GPU" or "global batch 1,024" */
void study_batch_name(const struct pl_study_batch *b, char *buf, size_t n);

/* ---- grid.c ---- */
int64_t study_point_index(const struct pl_study *st, int model, int cluster, int batch,
                          int strategy, int node_index);
/* Evaluate one point in place (pl_predict or the best-layout search). */
void study_point_eval(const struct pl_study *st, struct pl_study_point *p);

/* ---- best.c: the one place that picks the best layout ---- */
/* Best layout by throughput for base (model, cluster, gpus, batch, seq,
 * dtype). Fills p->pred, status and why. */
void study_best_layout(const struct pl_study *st, const struct pl_run *base,
                       struct pl_study_point *p);

/* ---- coll.c ---- */
enum pl_status study_coll_run(struct pl_study *st, struct pl_diag *diag);

/* ---- fmt.c: numbers for sentences ---- */
void study_fmt_int(char *buf, size_t n, int64_t v); /* "2,048" */
/* "falls 31%" / "rises 4%" / "stays flat" for the change from a to b. */
void study_fmt_change(char *buf, size_t n, double a, double b);
void study_gpu_label(const struct pl_cluster *c, char *buf, size_t n); /* "H100" */
/* "tp2 pp1 cp1 zero2 mbs 1" */
void study_layout_label(const struct pl_layout *l, char *buf, size_t n);
/* Copy src into dst (truncating, always NUL-terminated). */
void study_copy(char *dst, size_t n, const char *src);
/* printf into buf (always NUL-terminated, truncates). */
void study_setf(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Append printf text to buf (always NUL-terminated, truncates). */
void study_appendf(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- the figure model (fig_*.c build, gnuplot.c / html.c write) ---- */

#define STUDY_MAX_SERIES 40
#define STUDY_MAX_PTS PL_STUDY_MAX_AXIS
#define STUDY_MAX_HLINES 4

struct study_series {
  char title[96];
  int color;   /* palette index 0..9; -1 black */
  int dash;    /* gnuplot dash type, 1 = solid; 0 = points only */
  int point;   /* gnuplot point type, 0 = none */
  bool labels; /* write label[] beside the points */
  bool band;   /* a shaded band from lo[] to hi[] (the prediction's error band), drawn
                  behind the lines; y[] is the prediction it surrounds */
  int n;
  double x[STUDY_MAX_PTS], y[STUDY_MAX_PTS];
  double lo[STUDY_MAX_PTS], hi[STUDY_MAX_PTS]; /* band only */
  char label[STUDY_MAX_PTS][40];
};

enum study_panel_kind {
  STUDY_PANEL_LINES,  /* x-y lines (log-2 x axis of GPUs or nodes) */
  STUDY_PANEL_STACKED /* stacked bars: series are the parts, cat[] the bars */
};

struct study_hline {
  double y;
  int color; /* palette index; -1 black */
  char title[96];
};

struct study_panel {
  enum study_panel_kind kind;
  char title[160];
  char xlabel[96];
  char ylabel[96];
  bool logx, logy;
  char yformat[24]; /* gnuplot format of y tics, "" default */
  int n_series;
  struct study_series s[STUDY_MAX_SERIES];
  int n_cat; /* stacked: bars, in order; series y[i] belongs to cat i */
  char cat[STUDY_MAX_PTS][24];
  int n_hlines;
  struct study_hline hline[STUDY_MAX_HLINES];
  char empty_note[96]; /* shown when nothing can be plotted; "" = "no data" */
};

struct study_fig {
  char id[32]; /* file stem: figures/<id>.svg */
  char title[160];
  char caption[1024]; /* what is plotted, for people (the mfu caption with published runs is
                         ~720 characters: 512 cut it) */
  char findings[768]; /* computed sentences */
  char skip[256];     /* non-empty: no figure, and why */
  int n_panels;
  struct study_panel p[2];
  bool same_y; /* the panels share one y range (same quantity side by side) */
};

/* Collective types of the exposed-communication figure and of results.csv's
 * study.exposed_<type>_s columns (fig_exposed.c). */
enum study_xk { STUDY_XK_ALL_GATHER, STUDY_XK_REDUCE_SCATTER, STUDY_XK_ALL_REDUCE, STUDY_XK_TP,
                STUDY_XK_PP, STUDY_XK_CP, STUDY_N_XK };
extern const char *const study_xk_names[STUDY_N_XK];
/* Exposed time per step of each type (s); false when no step was simulated. */
bool study_exposed_by_kind(const struct pl_prediction *p, double out[STUDY_N_XK]);

/* Figure and panel beginnings, the one home of what every figure sets first
 * (fig_util.c): the figure's id (file stem) and title; a panel's kind,
 * title and axis labels, cleared, with a log-2 x axis for line panels (GPUs
 * or nodes). */
void study_fig_begin(struct study_fig *f, const char *id, const char *title);
void study_panel_begin(enum study_panel_kind kind, struct study_panel *pn, const char *title,
                       const char *xlabel, const char *ylabel);

/* Series helpers (fig_util.c). */
struct study_series *study_panel_add(struct study_panel *pn, const char *title, int color, int dash,
                                     int point);
void study_series_add(struct study_series *s, double x, double y, const char *label);
/* The legend entry of a panel's first error band (the others have none; a
 * band's own title names its block in the data file). */
#define STUDY_BAND_TITLE "error band (90% of published runs)"

/* The values a figure can take from a point. */
enum study_metric {
  STUDY_M_TOKENS_PER_S,
  STUDY_M_TOKENS_PER_S_PER_GPU,
  STUDY_M_MFU_PCT,
  STUDY_M_GPU_W,
  STUDY_M_TOKENS_PER_J,
  STUDY_M_STEP_S
};
/* The metric of a simulated point; false when the point was not simulated. */
bool study_metric(const struct pl_study_point *p, enum study_metric m, double *out);
/* One series along the node axis: x = GPUs, y = metric; skips points that did
 * not run. Returns the number of points added. */
int study_series_nodes(const struct pl_study *st, struct study_series *s, int model, int cluster,
                       int batch, int strategy, enum study_metric m);
/* The prediction's error band (include/plateau/band.h) around one node
 * series, as a band series of pn titled "error band <of>"; only for
 * throughput, per-GPU throughput, MFU and step time. Returns the number of
 * points added (none: no series added). */
int study_band_nodes(const struct pl_study *st, struct study_panel *pn, const char *of, int color,
                     int model, int cluster, int batch, int strategy, enum study_metric m);
/* The published runs of (model, cluster) as marker series of pn, y = m
 * (STUDY_M_TOKENS_PER_S_PER_GPU or STUDY_M_MFU_PCT), one per dataset and
 * precision, titled "published <what> (<dataset>)", or "(<dataset>, FP8)"
 * when the runs' precision is not the spec's (published.c). Returns the
 * number of points added. */
int study_published_series(const struct pl_study *st, struct study_panel *pn, int model,
                           int cluster, int color, const char *what, enum study_metric m);
/* First and last simulated point of a node series (indices), false if < 2. */
bool study_ends(const struct pl_study *st, int model, int cluster, int batch, int strategy,
                int *first, int *last);
/* The first weak-scaling batch regime (the figures' default), else 0. */
int study_main_batch(const struct pl_study *st);

/* Figure builders (each fills f, or sets f->skip). */
void study_fig_scaling(const struct pl_study *st, struct study_fig *f);
void study_fig_mfu(const struct pl_study *st, struct study_fig *f);
void study_fig_batch(const struct pl_study *st, struct study_fig *f);
void study_fig_breakdown(const struct pl_study *st, struct study_fig *f);
void study_fig_memory(const struct pl_study *st, struct study_fig *f);
void study_fig_power(const struct pl_study *st, struct study_fig *f);
void study_fig_best(const struct pl_study *st, struct study_fig *f);
void study_fig_generations(const struct pl_study *st, struct study_fig *f);
void study_fig_collectives(const struct pl_study *st, struct study_fig *f);
void study_fig_exposed(const struct pl_study *st, struct study_fig *f);
void study_fig_gen_scaling(const struct pl_study *st, struct study_fig *f);
void study_fig_collectives_size(const struct pl_study *st, struct study_fig *f);
void study_fig_measured(const struct pl_study *st, struct study_fig *f);

/* All figures in report order (figs.c); *n set to the count. NULL on
 * out of memory. Release with pl_free. */
struct study_fig *study_figs_build(const struct pl_study *st, int *n);

/* ---- gnuplot.c ---- */
/* Write <dir>/<id>.dat and <id>.gp for a figure with data; the script's
 * PNG is png_scale (1..4) times the screen size unless gnuplot is given
 * another (`gnuplot -e "png_scale = 3" <id>.gp`). */
enum pl_status study_gnuplot_write(const struct study_fig *f, const char *dir, int png_scale,
                                   struct pl_diag *diag);
/* Run gnuplot on <dir>/<id>.gp (cwd = dir, stderr to <dir>/gnuplot.log).
 * PL_ERR_UNSUPPORTED when the binary cannot be run, PL_ERR_INTERNAL when it
 * failed or made no SVG. */
enum pl_status study_gnuplot_run(const char *gnuplot, const char *dir, const char *id,
                                 struct pl_diag *diag);

/* ---- out.c ---- */
enum pl_status study_write_csv(const struct pl_study *st, const char *path, struct pl_diag *diag);
enum pl_status study_write_json(const struct pl_study *st, const struct study_fig *figs, int n_figs,
                                const char *path, struct pl_diag *diag);

/* ---- html.c ---- */
struct study_html_info {
  bool drawn;       /* figures exist as SVG beside the page */
  const char *note; /* shown when figures are missing */
  double elapsed_s;
  int threads;
};
enum pl_status study_write_html(const struct pl_study *st, const struct study_fig *figs, int n_figs,
                                const char *dir, const struct study_html_info *hi,
                                struct pl_diag *diag);

/* ---- files.c: files and directories ---- */
/* Read a whole file into a pl_malloc'd buffer (NUL-terminated). */
enum pl_status study_read_all(const char *path, char **text, size_t *len, struct pl_diag *diag);
/* Remove a directory tree we created (regular files and directories only). */
void study_rmtree(const char *path);
/* Join dir and name into buf; false when it does not fit. */
bool study_path(char *buf, size_t n, const char *dir, const char *name);

#endif
