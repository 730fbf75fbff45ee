/* cmd_sweep.c: `plateau sweep`: predictions along a scale axis (GPUs or
 * nodes), for one or more models and GPUs, with the given layout, the best
 * layout at each point, or named strategies side by side; then the
 * diminishing-returns figures of each series: scaling efficiency, marginal
 * tokens/s per added GPU and the knee (docs/search.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "run_opts.h"
#include "search_cli.h"

#define SWEEP_MAX_ITEMS 64     /* models, GPUs or strategies in one list */
#define SWEEP_MAX_SCALES 4096  /* points on the scale axis */

/* The sweep's own options; the run options follow, minus those it redefines. */
static const struct cli_opt own_opts[] = {
    {"model", "LIST", "models, comma-separated: presets, model files or HF configs (default llama2-7b)"},
    {"gpu", "LIST", "GPU presets or files, comma-separated (default h100)"},
    {"gpus", "LIST", "world sizes: 8,16,64 | 8..2048 (doubling) | 8,16,...,2048 (default 8..2048)"},
    {"nodes", "LIST", "world sizes in nodes, same forms (instead of --gpus)"},
    {"layout", "L", "given|best: the layout of the run options at every point (default), or the "
                    "best layout searched at each point"},
    {"strategies", "LIST", "strategies side by side, each at its best: fsdp,tp2,tp4,pp2,pp4,cp2,"
                           "best,... (docs/search.md)"},
    {"knee", "X", "marginal efficiency that places the knee (default 0.5)"},
    {"objective", "O", "what best means: throughput|tokens-per-joule|cost (default throughput)"},
    TRAIN_OPTS,
    {"fix", "LIST", "constraints on searched layouts, as in plateau search --fix"},
    PAR_OPTS,
    {"format", "F", "text|json|csv (default text)"},
};

static const struct cli_opt run_opts[] = {RUN_OPTS};

static struct cli_opt table[CLI_MAX_OPTS];
_Static_assert(sizeof own_opts / sizeof own_opts[0] + sizeof run_opts / sizeof run_opts[0] <=
                   CLI_MAX_OPTS,
               "sweep's option table must hold its own options and RUN_OPTS");
static struct cli_cmd cmd = {
    "sweep", "plateau sweep [options]",
    "Predict a training run along a scale axis and show where returns diminish. Weak scaling\n"
    "by default (--batch-per-gpu, default 1: the batch grows with the GPUs); strong scaling with\n"
    "--gbs (fixed). At each point: the layout of the run options (--layout given), the best\n"
    "layout (--layout best), or named strategies (--strategies). Per point: throughput, per-GPU\n"
    "throughput, MFU, exposed communication, tokens/J, memory, scaling efficiency against the\n"
    "smallest point, marginal tokens/s per added GPU; per series the knee, where marginal\n"
    "efficiency first drops below --knee. Each point's prediction carries predict's error band\n"
    "(*_range in JSON, *_lo/*_hi in CSV; plateau help predict).",
    table, 0, false,
};

static void build_table(void) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof own_opts / sizeof own_opts[0]; i++)
    table[n++] = own_opts[i];
  for (size_t i = 0; i < sizeof run_opts / sizeof run_opts[0]; i++) {
    bool dup = false;
    for (size_t j = 0; j < sizeof own_opts / sizeof own_opts[0]; j++)
      dup = dup || strcmp(run_opts[i].name, own_opts[j].name) == 0;
    if (!dup)
      table[n++] = run_opts[i];
  }
  cmd.n_opts = n;
}

/* ---- lists ---- */

struct names {
  char buf[1024];
  const char *item[SWEEP_MAX_ITEMS];
  int n;
};

static int split_names(const char *opt, const char *text, struct names *out) {
  memset(out, 0, sizeof *out);
  if (strlen(text) >= sizeof out->buf)
    return cli_fail("--%s: list longer than %zu characters", opt, sizeof out->buf - 1);
  snprintf(out->buf, sizeof out->buf, "%s", text);
  for (char *s = out->buf; s != NULL;) {
    char *comma = strchr(s, ',');
    if (comma != NULL)
      *comma = '\0';
    if (*s == '\0')
      return cli_fail("--%s: empty item in '%s'", opt, text);
    if (out->n >= SWEEP_MAX_ITEMS)
      return cli_fail("--%s: more than %d items", opt, SWEEP_MAX_ITEMS);
    out->item[out->n++] = s;
    s = comma ? comma + 1 : NULL;
  }
  return 0;
}

struct scales {
  int64_t v[SWEEP_MAX_SCALES];
  int n;
};

static int push_scale(const char *opt, struct scales *s, int64_t v) {
  if (s->n >= SWEEP_MAX_SCALES)
    return cli_fail("--%s: more than %d points", opt, SWEEP_MAX_SCALES);
  s->v[s->n++] = v;
  return 0;
}

static int parse_int(const char *opt, const char *text, int64_t *out) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_int_parse(text, out, &d) != PL_OK)
    return cli_fail("--%s: %s", opt, d.msg);
  return 0;
}

/* "A..B": A, 2A, 4A, ... up to B. */
static int doubling(const char *opt, const char *item, const char *dots, struct scales *s) {
  char a_txt[32];
  size_t n = (size_t)(dots - item);
  if (n == 0 || n >= sizeof a_txt)
    return cli_fail("--%s: '%s' is not a range A..B", opt, item);
  memcpy(a_txt, item, n);
  a_txt[n] = '\0';
  int64_t a, b;
  if (parse_int(opt, a_txt, &a) != 0 || parse_int(opt, dots + 2, &b) != 0)
    return 1;
  if (a > b)
    return cli_fail("--%s: range '%s' runs backwards", opt, item);
  for (int64_t v = a; v <= b; v *= 2) {
    if (push_scale(opt, s, v) != 0)
      return 1;
    if (v > INT64_MAX / 2)
      break;
  }
  return 0;
}

/* "...": continue the last two values up to (not including) next:
 * geometrically when the second is a multiple (>= 2x) of the first, else
 * arithmetically. */
static int ellipsis(const char *opt, struct scales *s, int64_t next) {
  if (s->n < 2)
    return cli_fail("--%s: '...' needs two values before it", opt);
  int64_t a = s->v[s->n - 2], b = s->v[s->n - 1];
  if (b <= a || next <= b)
    return cli_fail("--%s: '...' needs increasing values around it", opt);
  bool geo = b % a == 0 && b / a >= 2;
  for (int64_t v = geo ? b * (b / a) : b + (b - a); v < next;) {
    if (push_scale(opt, s, v) != 0)
      return 1;
    if ((geo && v > INT64_MAX / (b / a)) || (!geo && v > INT64_MAX - (b - a)))
      break;
    v = geo ? v * (b / a) : v + (b - a);
  }
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static int parse_scales(const char *opt, const char *text, struct scales *s) {
  struct names items;
  memset(s, 0, sizeof *s);
  if (split_names(opt, text, &items) != 0)
    return 1;
  for (int i = 0; i < items.n; i++) {
    const char *it = items.item[i], *dots = strstr(it, "..");
    int64_t v;
    if (strcmp(it, "...") == 0) {
      if (i + 1 >= items.n || parse_int(opt, items.item[i + 1], &v) != 0 || ellipsis(opt, s, v) != 0)
        return i + 1 >= items.n ? cli_fail("--%s: '...' needs a value after it", opt) : 1;
    } else if (dots != NULL) {
      if (doubling(opt, it, dots, s) != 0)
        return 1;
    } else if (parse_int(opt, it, &v) != 0 || push_scale(opt, s, v) != 0) {
      return 1;
    }
  }
  qsort(s->v, (size_t)s->n, sizeof s->v[0], cmp_i64);
  int k = 0;
  for (int i = 0; i < s->n; i++)
    if (k == 0 || s->v[i] != s->v[k - 1])
      s->v[k++] = s->v[i];
  s->n = k;
  return 0;
}

/* ---- the sweep ---- */

struct point {
  int model, gpu, strat;     /* indexes into the lists; series = (model, gpu, strat) */
  int64_t scale;             /* value on the axis (GPUs or nodes) */
  bool has_pred;             /* false: no valid layout at all (skipped in output) */
  char skipped[512];         /* why a strategy has no layout at this scale, or "" */
  char model_name[64];       /* with skipped: the run's model */
  struct pl_prediction pred;
  struct pl_scaling_point sp;
};

struct sweep {
  struct cli_args args;
  struct names models, gpus, strats;
  struct scales scales;
  bool nodes;                /* the axis counts nodes */
  bool search;               /* best layout or strategies */
  struct pl_search_opts so;
  bool has_price;
  double knee;
  enum cli_format format;
  struct point *pts;
  int64_t n_pts;
  struct pl_knee *knees;     /* one per series */
  int64_t n_series;
  struct cli_par cp;
};

static void set_opt(struct cli_args *a, const char *name, const char *value) {
  for (size_t i = 0; i < a->cmd->n_opts; i++)
    if (strcmp(a->cmd->opts[i].name, name) == 0)
      a->values[i] = value;
}

/* The run of one point: the options with one model, GPU and scale. */
static int point_run(const struct sweep *sw, const struct point *p, struct pl_run *run) {
  struct cli_args a = sw->args;
  char scale[32];
  snprintf(scale, sizeof scale, "%lld", (long long)p->scale);
  set_opt(&a, "model", sw->models.n ? sw->models.item[p->model] : NULL);
  set_opt(&a, "gpu", sw->gpus.n ? sw->gpus.item[p->gpu] : NULL);
  set_opt(&a, "gpus", sw->nodes ? NULL : scale);
  set_opt(&a, "nodes", sw->nodes ? scale : NULL);
  return run_from_args(&a, run);
}

static const char *strat_name(const struct sweep *sw, int i) {
  return sw->search ? sw->strats.item[i] : "given";
}

struct predict_job {
  const struct pl_run *runs;
  struct point *pts;
};

struct predict_rec {
  enum pl_status status;
  char msg[256];
  struct pl_prediction pred;
};

static void predict_item(void *ctx, int64_t i, void *out) {
  struct predict_job *job = ctx;
  struct predict_rec *r = out;
  struct pl_diag d;
  pl_diag_clear(&d);
  r->status = pl_predict(&job->runs[i], &r->pred, &d);
  snprintf(r->msg, sizeof r->msg, "%.255s", d.msg);
}

/* Given layout: every point predicted in parallel. */
static int run_given(struct sweep *sw) {
  struct pl_run *runs = pl_calloc((size_t)sw->n_pts, sizeof *runs);
  struct predict_rec *recs = pl_calloc((size_t)sw->n_pts, sizeof *recs);
  int rc = runs == NULL || recs == NULL ? cli_fail("out of memory") : 0;
  for (int64_t i = 0; rc == 0 && i < sw->n_pts; i++)
    rc = point_run(sw, &sw->pts[i], &runs[i]);
  struct pl_diag d;
  pl_diag_clear(&d);
  struct predict_job job = {runs, sw->pts};
  if (rc == 0 && pl_par_map(sw->cp.par, sw->n_pts, sizeof *recs, predict_item, &job, recs, &d) != PL_OK)
    rc = cli_fail("%s", d.msg);
  for (int64_t i = 0; rc == 0 && i < sw->n_pts; i++) {
    if (recs[i].status != PL_OK)
      rc = cli_fail("sweep point %s, %lld %s: %s", runs[i].model.name, (long long)sw->pts[i].scale,
                    sw->nodes ? "nodes" : "GPUs", recs[i].msg);
    sw->pts[i].pred = recs[i].pred;
    sw->pts[i].has_pred = true;
  }
  pl_free(recs);
  pl_free(runs);
  return rc;
}

struct sweep_progress {
  struct cli_par *cp;
  int64_t point, n;
};

static void point_progress(void *ud, int64_t done, int64_t total) {
  struct sweep_progress *sp = ud;
  double f = total > 0 ? (double)done / (double)total : 1;
  cli_progress(sp->cp, (int64_t)((double)sp->point * 1000 + f * 1000), sp->n * 1000);
}

/* Best layout of one point under its strategy. */
static int search_point(struct sweep *sw, struct point *p, struct sweep_progress *prog) {
  static struct pl_run run;
  if (point_run(sw, p, &run) != 0)
    return 1;
  struct pl_search_opts so = sw->so;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_strategy_parse(strat_name(sw, p->strat), &so.space, &d) != PL_OK)
    return cli_fail("--strategies: %s", d.msg);
  if (cli_search_space(&sw->args, &run.layout, &so.space) != 0)
    return 1;
  so.top_k = 1;
  so.par = sw->cp.par;
  so.progress = point_progress;
  so.progress_ud = prog;
  struct pl_search_result res;
  enum pl_status st = pl_search_run(&run, &so, &res, &d);
  if (st == PL_ERR_LAYOUT) { /* the strategy's degrees do not divide this scale */
    snprintf(p->skipped, sizeof p->skipped, "%s", d.msg);
    snprintf(p->model_name, sizeof p->model_name, "%s", run.model.name);
    if (sw->cp.rank == 0)
      fprintf(cli_err(), "plateau sweep: %s on %lld %s: skipped: %s\n", run.model.name,
              (long long)p->scale, sw->nodes ? "nodes" : "GPUs", d.msg);
    return 0;
  }
  if (st != PL_OK)
    return cli_fail("%s", d.msg);
  if (res.n_hits > 0 || res.has_closest) {
    p->pred = res.n_hits > 0 ? res.hits[0].pred : res.closest;
    p->has_pred = true;
  }
  pl_search_result_free(&res);
  return 0;
}

static int run_searches(struct sweep *sw) {
  struct sweep_progress prog = {&sw->cp, 0, sw->n_pts};
  for (int64_t i = 0; i < sw->n_pts; i++) {
    prog.point = i;
    if (search_point(sw, &sw->pts[i], &prog) != 0)
      return 1;
  }
  return 0;
}

/* Points in series order: model, GPU, strategy, then ascending scale. */
static int make_points(struct sweep *sw) {
  int nm = sw->models.n ? sw->models.n : 1, ng = sw->gpus.n ? sw->gpus.n : 1;
  int ns = sw->search ? sw->strats.n : 1;
  sw->n_series = (int64_t)nm * ng * ns;
  sw->n_pts = sw->n_series * sw->scales.n;
  sw->pts = pl_calloc((size_t)sw->n_pts, sizeof *sw->pts);
  sw->knees = pl_calloc((size_t)sw->n_series, sizeof *sw->knees);
  if (sw->pts == NULL || sw->knees == NULL)
    return cli_fail("out of memory for %lld sweep points", (long long)sw->n_pts);
  int64_t k = 0;
  for (int m = 0; m < nm; m++)
    for (int g = 0; g < ng; g++)
      for (int s = 0; s < ns; s++)
        for (int i = 0; i < sw->scales.n; i++) {
          struct point *p = &sw->pts[k++];
          p->model = m;
          p->gpu = g;
          p->strat = s;
          p->scale = sw->scales.v[i];
        }
  return 0;
}

static void figures(struct sweep *sw) {
  static struct pl_scaling_point sp[SWEEP_MAX_SCALES];
  for (int64_t s = 0; s < sw->n_series; s++) {
    struct point *pts = &sw->pts[s * sw->scales.n];
    for (int i = 0; i < sw->scales.n; i++) {
      memset(&sp[i], 0, sizeof sp[i]);
      sp[i].gpus = pts[i].has_pred ? pts[i].pred.run.layout.gpus : 0;
      sp[i].valid = pts[i].has_pred && pts[i].pred.step.simulated;
      sp[i].tokens_per_s = sp[i].valid ? pts[i].pred.step.tokens_per_s : 0;
    }
    pl_scaling_figures(sp, (size_t)sw->scales.n, sw->knee, &sw->knees[s]);
    for (int i = 0; i < sw->scales.n; i++)
      pts[i].sp = sp[i];
  }
}

/* ---- output ---- */

static void json_num_or_null(struct pl_emit *e, const char *key, double v, bool valid) {
  if (valid)
    pl_emit_num(e, key, v);
  else
    pl_emit_null(e, key);
}

static void json_point(struct pl_emit *e, const struct sweep *sw, const struct point *p) {
  pl_emit_obj_begin(e, NULL);
  pl_report_predict_members(e, &p->pred);
  pl_emit_str(e, "strategy", strat_name(sw, p->strat));
  json_num_or_null(e, "scaling_efficiency", p->sp.scaling_efficiency, p->sp.has_efficiency);
  json_num_or_null(e, "marginal_tokens_per_s_per_gpu", p->sp.marginal_tokens_per_s_per_gpu,
                   p->sp.has_marginal);
  json_num_or_null(e, "marginal_efficiency", p->sp.marginal_efficiency, p->sp.has_marginal);
  pl_emit_obj_end(e);
}

static void json_knee(struct pl_emit *e, const struct sweep *sw, int64_t s) {
  const struct point *first = &sw->pts[s * sw->scales.n];
  const struct pl_knee *k = &sw->knees[s];
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "model", sw->models.n ? sw->models.item[first->model] : "llama2-7b");
  pl_emit_str(e, "gpu", sw->gpus.n ? sw->gpus.item[first->gpu] : "h100");
  pl_emit_str(e, "strategy", strat_name(sw, first->strat));
  pl_emit_bool(e, "found", k->found);
  if (k->found) {
    pl_emit_int(e, "gpus", k->gpus);
    pl_emit_int(e, "prev_gpus", k->prev_gpus);
    pl_emit_num(e, "marginal_efficiency", k->marginal_efficiency);
    pl_emit_num(e, "scaling_efficiency", k->scaling_efficiency);
  } else {
    pl_emit_null(e, "gpus");
  }
  pl_emit_obj_end(e);
}

static int print_json(const struct sweep *sw) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_fail("out of memory");
  pl_emit_obj_begin(e, NULL);
  /* the sweep's own inputs (the run options are in each point) */
  pl_emit_str(e, "layout_mode", sw->search && cli_get(&sw->args, "strategies") == NULL ? "best"
                                : sw->search                                       ? NULL
                                                                                   : "given");
  pl_emit_str(e, "strategies", cli_get(&sw->args, "strategies"));
  pl_emit_str(e, "objective", cli_objective_name(sw->so.objective));
  pl_emit_str(e, "fix", cli_get(&sw->args, "fix"));
  pl_emit_arr_begin(e, "points");
  for (int64_t i = 0; i < sw->n_pts; i++)
    if (sw->pts[i].has_pred)
      json_point(e, sw, &sw->pts[i]);
  pl_emit_arr_end(e);
  /* the points a strategy has no layout for, which the text report notes on
   * stderr (under the C API and Python, stderr is not shown) */
  pl_emit_arr_begin(e, "skipped");
  for (int64_t i = 0; i < sw->n_pts; i++) {
    const struct point *p = &sw->pts[i];
    if (p->has_pred || p->skipped[0] == '\0')
      continue;
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "model", p->model_name);
    pl_emit_str(e, "strategy", strat_name(sw, p->strat));
    pl_emit_int(e, sw->nodes ? "nodes" : "gpus", p->scale);
    pl_emit_str(e, "why", p->skipped);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_obj_begin(e, "knee");
  pl_emit_num(e, "threshold", sw->knee);
  pl_emit_arr_begin(e, "series");
  for (int64_t s = 0; s < sw->n_series; s++)
    json_knee(e, sw, s);
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

static int print_csv(const struct sweep *sw) {
  if (cli_csv_predict_header(stdout) != 0)
    return 1;
  printf(",strategy,scaling_efficiency,marginal_tokens_per_s_per_gpu,marginal_efficiency\n");
  for (int64_t i = 0; i < sw->n_pts; i++) {
    const struct point *p = &sw->pts[i];
    if (!p->has_pred)
      continue;
    if (cli_csv_predict_row(stdout, &p->pred) != 0)
      return 1;
    printf(",%s", strat_name(sw, p->strat));
    cli_csv_num(stdout, p->sp.scaling_efficiency, p->sp.has_efficiency);
    cli_csv_num(stdout, p->sp.marginal_tokens_per_s_per_gpu, p->sp.has_marginal);
    cli_csv_num(stdout, p->sp.marginal_efficiency, p->sp.has_marginal);
    printf("\n");
  }
  return 0;
}

static void layout_label(const struct pl_layout *l, char *buf, size_t n) {
  int k = snprintf(buf, n, "dp%lld tp%lld pp%lld cp%lld %s mbs%lld", (long long)l->dp,
                   (long long)l->tp, (long long)l->pp, (long long)l->cp, pl_shard_name(l->shard),
                   (long long)l->mbs);
  if (k > 0 && (size_t)k < n && l->recompute != PL_RECOMPUTE_NONE)
    k += snprintf(buf + k, n - (size_t)k, " rc=%s", pl_recompute_name(l->recompute));
  if (k > 0 && (size_t)k < n && l->pp > 1)
    snprintf(buf + k, n - (size_t)k, " %s", pl_schedule_name(l->schedule));
}

/* With --tokens: days to train and, with --gpu-hour-price, its GPU cost. */
static void train_cells(const struct pl_prediction *p) {
  const struct pl_train *t = &p->train;
  if (!(p->run.train.tokens > 0))
    return;
  char usd[32] = "-";
  if (t->has_gpu_price)
    pl_fmt_count(usd, sizeof usd, t->cost_usd);
  printf(" %7.1f %9s", t->days, usd);
}

static void text_point(const struct point *p) {
  const struct pl_layout *l = &p->pred.run.layout;
  const struct pl_step *s = &p->pred.step;
  char lay[128], mem[32];
  layout_label(l, lay, sizeof lay);
  pl_fmt_bytes(mem, sizeof mem, p->pred.memory.total_bytes);
  printf("%6lld  %-40s", (long long)l->gpus, lay);
  if (!s->simulated) {
    printf("  does not fit: %s\n", p->pred.memory.why);
    return;
  }
  /* The error band of throughput (and of MFU: the same ratio), as predict prints it. */
  char band[32] = "-";
  struct pl_band b;
  pl_band_of(&p->pred, &b);
  if (b.known && s->tokens_per_s > 0) {
    struct pl_band_ranges r;
    pl_band_ranges(&b, s, &r);
    snprintf(band, sizeof band, "%+.0f%%/%+.0f%%", 100 * (r.tokens_per_s[0] / s->tokens_per_s - 1),
             100 * (r.tokens_per_s[1] / s->tokens_per_s - 1));
  }
  printf(" %11.0f %11s %8.1f %5.1f%% %6.1f%% %8.2f %10s", s->tokens_per_s, band,
         s->tokens_per_s_per_gpu, 100 * s->mfu,
         s->step_time_s > 0 ? 100 * s->exposed_comm_s / s->step_time_s : 0.0, s->tokens_per_j, mem);
  train_cells(&p->pred);
  if (p->sp.has_efficiency)
    printf(" %6.1f%%", 100 * p->sp.scaling_efficiency);
  if (p->sp.has_marginal)
    printf(" %9.1f", p->sp.marginal_tokens_per_s_per_gpu);
  printf("\n");
}

/* Under a series' table: what the band column is, and the classes behind it. */
static void band_classes(const struct point *pts, int n) {
  char seen[8][PL_BAND_KEY_LEN];
  int n_seen = 0;
  for (int i = 0; i < n; i++) {
    struct pl_band b;
    if (!pts[i].has_pred)
      continue;
    pl_band_of(&pts[i].pred, &b);
    if (!b.known)
      continue;
    bool dup = false;
    for (int j = 0; j < n_seen && !dup; j++)
      dup = strcmp(seen[j], b.class_name) == 0;
    if (dup)
      continue;
    if (n_seen == 0)
      printf("band: error band of tokens/s, per GPU and MFU, the middle %.0f%% of the published runs "
             "of the point's class (docs/accuracy.md):",
             b.central_pct);
    if (n_seen < 8) {
      snprintf(seen[n_seen], sizeof seen[0], "%s", b.class_name);
      printf("%s %s (%lld runs)", n_seen ? "," : "", b.class_name, (long long)b.rows);
      n_seen++;
    }
  }
  if (n_seen > 0)
    printf("\n");
}

static void print_text(const struct sweep *sw) {
  for (int64_t s = 0; s < sw->n_series; s++) {
    const struct point *pts = &sw->pts[s * sw->scales.n];
    const struct pl_knee *k = &sw->knees[s];
    printf("%splateau sweep: %s on %s, strategy %s\n", s > 0 ? "\n" : "",
           sw->models.n ? sw->models.item[pts[0].model] : "llama2-7b",
           sw->gpus.n ? sw->gpus.item[pts[0].gpu] : "h100", strat_name(sw, pts[0].strat));
    printf("%6s  %-40s %11s %11s %8s %6s %7s %8s %10s", "gpus", "layout", "tokens/s", "band", "/GPU",
           "MFU", "exposed", "tokens/J", "memory");
    if (pts[0].pred.run.train.tokens > 0)
      printf(" %7s %9s", "days", "USD");
    printf(" %7s %9s\n", "scaling", "marginal");
    for (int i = 0; i < sw->scales.n; i++)
      if (pts[i].has_pred)
        text_point(&pts[i]);
    band_classes(pts, sw->scales.n);
    if (k->found)
      printf("knee: %lld GPUs (marginal efficiency %.2f < %.2f from %lld GPUs)\n", (long long)k->gpus,
             k->marginal_efficiency, sw->knee, (long long)k->prev_gpus);
    else
      printf("knee: none (marginal efficiency stays >= %.2f)\n", sw->knee);
  }
}

/* ---- setup ---- */

static int parse_axes(struct sweep *sw) {
  const struct cli_args *a = &sw->args;
  const char *v;
  if ((v = cli_get(a, "model")) != NULL && split_names("model", v, &sw->models) != 0)
    return 1;
  if ((v = cli_get(a, "gpu")) != NULL && split_names("gpu", v, &sw->gpus) != 0)
    return 1;
  if (cli_get(a, "gpus") != NULL && cli_get(a, "nodes") != NULL)
    return cli_fail("give --gpus or --nodes, not both");
  sw->nodes = cli_get(a, "nodes") != NULL;
  v = sw->nodes ? cli_get(a, "nodes") : cli_get(a, "gpus");
  return parse_scales(sw->nodes ? "nodes" : "gpus", v ? v : "8..2048", &sw->scales);
}

static int parse_mode(struct sweep *sw) {
  const struct cli_args *a = &sw->args;
  const char *layout = cli_get(a, "layout"), *strats = cli_get(a, "strategies");
  if (layout != NULL && strcmp(layout, "given") != 0 && strcmp(layout, "best") != 0)
    return cli_fail("--layout: unknown value '%s' (expected given|best)", layout);
  if (strats != NULL && layout != NULL)
    return cli_fail("give --layout or --strategies, not both");
  sw->search = strats != NULL || (layout != NULL && strcmp(layout, "best") == 0);
  if (!sw->search && cli_get(a, "fix") != NULL) /* else read by nothing: a typo passes */
    return cli_fail("--fix constrains searched layouts: give --layout best or --strategies");
  if (sw->search && run_opts_search_refused(a) != 0)
    return 1;
  if (split_names("strategies", strats ? strats : "best", &sw->strats) != 0)
    return 1;
  for (int i = 0; i < sw->strats.n; i++) {
    struct pl_search_space s;
    struct pl_diag d;
    pl_diag_clear(&d);
    if (pl_strategy_parse(sw->strats.item[i], &s, &d) != PL_OK)
      return cli_fail("--strategies: %s", d.msg);
  }
  sw->knee = 0.5;
  if (cli_get_double(a, "knee", &sw->knee) != 0)
    return 1;
  if (!(sw->knee > 0 && sw->knee <= 1))
    return cli_fail("--knee: %g is outside (0, 1]", sw->knee);
  return cli_search_setup(a, NULL, &sw->so, &sw->has_price);
}

static int run_sweep(struct sweep *sw) {
  if (make_points(sw) != 0)
    return 1;
  if (cli_par_begin(&sw->args, "sweep", &sw->cp) != 0)
    return 1;
  int rc = sw->search ? run_searches(sw) : run_given(sw);
  cli_par_end(&sw->cp);
  if (rc != 0)
    return rc;
  figures(sw);
  if (sw->format == CLI_FORMAT_JSON)
    return print_json(sw);
  if (sw->format == CLI_FORMAT_CSV)
    return print_csv(sw);
  print_text(sw);
  return 0;
}

int cmd_sweep(int argc, char **argv) {
  build_table();
  static struct sweep sw; /* large: keep off the stack */
  memset(&sw, 0, sizeof sw);
  int rc = cli_start(&cmd, argc, argv, &sw.args);
  if (rc != CLI_RUN)
    return rc;
  if (cli_get_format(&sw.args, &sw.format) != 0 || parse_axes(&sw) != 0 || parse_mode(&sw) != 0)
    return 1;
  rc = run_sweep(&sw);
  pl_free(sw.pts);
  pl_free(sw.knees);
  return rc;
}
