/* validate.c: `plateau validate` in the library: read validation CSVs,
 * predict each record with pl_predict, compare step times, summarize.
 *
 * The comparison quantity is the step time (seconds per optimizer step):
 * every source's metric converts to it with the source's own formula
 * (sources.c), and it is what pl_predict simulates. Error = 100 (predicted
 * - measured) / measured. Summaries use the absolute error (APE): mean
 * (MAPE, the figure Calculon and vTrain report), median and maximum.
 * A record that cannot be expressed, or that plateau predicts will not fit in
 * memory, is a skipped row with its reason: it is counted, never dropped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/predict.h>

#include "base/json.h"
#include "validate/validate_int.h"

void pl_validation_init(struct pl_validation *v) {
  memset(v, 0, sizeof *v);
  snprintf(v->overall.name, sizeof v->overall.name, "all");
}

void pl_validation_free(struct pl_validation *v) {
  pl_free(v->rows);
  pl_free(v->sets);
  pl_validation_init(v);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static bool selected(const struct pl_vrow *r, validate_sel sel, const void *arg) {
  return sel == NULL || sel(r, arg);
}

static void worst(const struct pl_vrow *rows, size_t n, validate_sel sel, const void *arg,
                  struct pl_vsummary *out) {
  for (size_t i = 0; i < n; i++) {
    double ape = fabs(rows[i].error);
    if (rows[i].skipped || !selected(&rows[i], sel, arg) ||
        (out->worst_row != 0 && ape <= out->max_ape))
      continue;
    out->max_ape = ape;
    out->worst_row = rows[i].row;
    snprintf(out->worst_dataset, sizeof out->worst_dataset, "%s", rows[i].dataset);
  }
}

enum pl_status validate_summarize_sel(const struct pl_vrow *rows, size_t n, validate_sel sel,
                                      const void *arg, const char *name,
                                      struct pl_vsummary *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", name);
  double *ape = pl_reallocarray(NULL, n > 0 ? n : 1, sizeof *ape);
  if (ape == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory summarizing '%s'", name);
  size_t k = 0;
  double sum = 0, signed_sum = 0, pub_sum = 0, pub_signed = 0;
  for (size_t i = 0; i < n; i++) {
    if (!selected(&rows[i], sel, arg))
      continue;
    out->rows++;
    if (!rows[i].skipped) {
      ape[k] = fabs(rows[i].error);
      sum += ape[k++];
      signed_sum += rows[i].error;
      pub_sum += fabs(rows[i].published_error);
      pub_signed += rows[i].published_error;
    }
  }
  out->predicted = (int64_t)k;
  out->skipped = out->rows - (int64_t)k;
  if (k > 0) {
    qsort(ape, k, sizeof *ape, cmp_double);
    out->mape = sum / (double)k;
    out->bias = signed_sum / (double)k;
    out->published_mape = pub_sum / (double)k;
    out->published_bias = pub_signed / (double)k;
    out->median_ape = k % 2 == 1 ? ape[k / 2] : 0.5 * (ape[k / 2 - 1] + ape[k / 2]);
    worst(rows, n, sel, arg, out);
  }
  pl_free(ape);
  return PL_OK;
}

enum pl_status pl_validation_summarize(const struct pl_vrow *rows, size_t n, const char *name,
                                       struct pl_vsummary *out, struct pl_diag *diag) {
  return validate_summarize_sel(rows, n, NULL, NULL, name, out, diag);
}

/* ------------------------------------------------------------ quantity */

static const char *const quantity_names[] = {"step", "memory"};
static const char *const quantity_keys[] = {"step_time_s", "peak_memory_bytes"};

const char *pl_vquantity_name(enum pl_vquantity q) {
  return (size_t)q < sizeof quantity_names / sizeof quantity_names[0] ? quantity_names[q] : "?";
}

const char *pl_vquantity_key(enum pl_vquantity q) {
  return (size_t)q < sizeof quantity_keys / sizeof quantity_keys[0] ? quantity_keys[q] : "?";
}

enum pl_status pl_vquantity_parse(const char *s, enum pl_vquantity *out, struct pl_diag *diag) {
  int i = name_index(quantity_names, sizeof quantity_names / sizeof quantity_names[0], s);
  if (i >= 0) {
    *out = (enum pl_vquantity)i;
    return PL_OK;
  }
  return pl_diag_set(diag, PL_ERR_RANGE, "quantity '%s' unknown (known: step, memory)", s);
}

/* ------------------------------------------------------------- growing */

static struct pl_vrow *push_row(struct pl_validation *v) {
  if (v->n_rows == v->cap_rows) {
    size_t cap = v->cap_rows ? 2 * v->cap_rows : 64;
    struct pl_vrow *r = pl_reallocarray(v->rows, cap, sizeof *r);
    if (r == NULL)
      return NULL;
    v->rows = r;
    v->cap_rows = cap;
  }
  struct pl_vrow *row = &v->rows[v->n_rows++];
  memset(row, 0, sizeof *row);
  return row;
}

static struct pl_vsummary *push_set(struct pl_validation *v) {
  if (v->n_sets == v->cap_sets) {
    size_t cap = v->cap_sets ? 2 * v->cap_sets : 8;
    struct pl_vsummary *s = pl_reallocarray(v->sets, cap, sizeof *s);
    if (s == NULL)
      return NULL;
    v->sets = s;
    v->cap_sets = cap;
  }
  return &v->sets[v->n_sets++];
}

/* ------------------------------------------------------------ one record */

static void label(struct pl_vrow *row, const char *model, const struct pl_layout *l) {
  char vp[48] = "";
  int n = 0;
  if (l->cp > 1)
    n = snprintf(vp, sizeof vp, " cp%lld", (long long)l->cp);
  if (l->vp > 1 && n >= 0 && (size_t)n < sizeof vp)
    snprintf(vp + n, sizeof vp - (size_t)n, " vp%lld", (long long)l->vp);
  snprintf(row->label, sizeof row->label,
           "%.40s, %lld x %s, tp%lld pp%lld dp%lld%s, mbs %lld gbs %lld, %s", model,
           (long long)l->gpus, row->gpu, (long long)l->tp, (long long)l->pp, (long long)l->dp, vp,
           (long long)l->mbs, (long long)l->gbs, pl_recompute_name(l->recompute));
}

static void record_prediction(struct pl_vrow *row, const struct pl_prediction *p) {
  row->layout = p->run.layout;
  row->predicted = p->step.step_time_s;
  row->error = 100.0 * (row->predicted - row->measured) / row->measured;
  /* a rate r published as step = X / r: the predicted rate is X / predicted */
  row->published_error =
      row->published_rate ? 100.0 * (row->measured / row->predicted - 1.0) : row->error;
  row->mfu = p->step.mfu;
  row->compute_s = p->step.compute_s;
  row->exposed_comm_s = p->step.exposed_comm_s;
  row->bubble_s = p->step.bubble_s;
  row->optimizer_s = p->step.optimizer_s;
  row->other_s = p->step.other_s;
  snprintf(row->model, sizeof row->model, "%s", p->run.model.name);
  label(row, p->run.model.name, &p->run.layout);
}

/* validate --quantity memory: plateau's peak per GPU (pl_memory total: the
 * busiest stage with its buffers and framework allowance) against the
 * published figure, whether or not plateau predicts that the run fits (said
 * in assumed when it does not); the step breakdown stays for diagnosis. */
static void record_memory(struct pl_vrow *row, const struct pl_prediction *p) {
  record_prediction(row, p);
  row->predicted = p->memory.total_bytes;
  row->error = 100.0 * (row->predicted - row->measured) / row->measured;
  row->published_error = row->error;
  if (!p->memory.fits)
    validate_note(row, "plateau predicts it does not fit: %s", p->memory.why);
}

/* Build, convert, predict. Every way out leaves a complete row. */
struct work {
  struct pl_run run;
  struct pl_prediction pred;
};

/* The framework preset a source's runs used (validate_source.use_preset),
 * with the row's overrides: pl_predict applies it over the layout rules. */
static bool source_framework(const struct validate_source *src, const struct validate_in *in,
                             struct pl_run *run, struct pl_vrow *row) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_framework_preset(src->framework, &run->framework, &d);
  if (st != PL_OK) {
    if (st == PL_ERR_NOMEM)
      *in->fatal = st;
    return validate_skip(row, "framework preset: %s", d.msg);
  }
  return src->overrides == NULL || src->overrides(in, &run->framework, row);
}

/* The run a record describes and its measured step: false (row skipped,
 * with the reason) when it cannot be expressed. */
static bool build_record(const struct validate_in *in, struct pl_vrow *row, struct pl_run *run) {
  const char *source = validate_csv_cell(in->csv, in->rec, "source");
  const struct validate_source *src = validate_source_find(source);
  struct validate_source own; /* the rules of a user's own run, for this record */
  snprintf(row->quantity, sizeof row->quantity, "step_time_s");
  snprintf(row->publication, sizeof row->publication, "%s", source);
  if (src == NULL) {
    if (!validate_generic_source(in, &own, row))
      return false;
    src = &own;
  }
  snprintf(row->source, sizeof row->source, "%s", src->key);
  snprintf(row->framework, sizeof row->framework, "%s", src->framework);
  snprintf(row->architecture, sizeof row->architecture, "%s", src->family);
  if (!validate_row_run(src, in, run, row))
    return false;
  if (src->use_preset && !source_framework(src, in, run, row))
    return false;
  row->layout = run->layout; /* as described; the resolved one replaces it when predicted */
  if (in->quantity == PL_VQUANTITY_MEMORY) {
    snprintf(row->quantity, sizeof row->quantity, "%s", pl_vquantity_key(in->quantity));
    return src->memory != NULL
               ? src->memory(in, row)
               : validate_skip(row, "source '%s' publishes no per-GPU memory figure", src->key);
  }
  return src->measure(in, run, row);
}

static void predict_record(const struct validate_in *in, struct pl_vrow *row, struct work *w) {
  if (!build_record(in, row, &w->run))
    return;
  if (in->framework != NULL) {
    w->run.framework = *in->framework;
    snprintf(row->framework, sizeof row->framework, "%s",
             in->framework->name[0] != '\0' ? in->framework->name : "file");
  }
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_predict(&w->run, &w->pred, &d);
  if (st != PL_OK) {
    if (st == PL_ERR_NOMEM)
      *in->fatal = st;
    validate_skip(row, "%s", d.msg);
    return;
  }
  if (in->quantity == PL_VQUANTITY_MEMORY) {
    record_memory(row, &w->pred);
    return;
  }
  if (!w->pred.step.simulated) {
    validate_skip(row, "plateau predicts it does not fit: %s", w->pred.memory.why);
    return;
  }
  /* The published figure's own MFU (the model's FLOPs in the published step
   * time): above 100 % it is a typo or another unit, not a measurement, and
   * averaging it in would move the dataset's error by any amount. */
  double published_mfu = w->pred.step.mfu * w->pred.step.step_time_s / row->measured;
  if (!(row->measured > 0) || !isfinite(published_mfu) || published_mfu > 1.0) {
    /* a rate of 1e308 tokens/s is a step of ~0 s: its MFU overflows, and the
     * reason read "implies inf % MFU" (session 29, hard29) */
    if (isfinite(published_mfu))
      validate_skip(row, "the published figure implies %.3g %% MFU, above the GPU's peak: not a "
                    "measurement", 100 * published_mfu);
    else
      validate_skip(row, "the published figure implies a step of %.3g s, an unbounded MFU, "
                    "above the GPU's peak: not a measurement", row->measured);
    return;
  }
  record_prediction(row, &w->pred);
  /* under validate's hardware what-if, the cluster and GPU as given (files) */
  const struct pl_vhardware *hw = in->hardware;
  const char *cluster = hw != NULL && hw->cluster_arg[0] != '\0' ? hw->cluster_arg : row->cluster;
  const char *gpu = hw != NULL && hw->gpu_arg[0] != '\0' ? hw->gpu_arg : NULL;
  enum pl_status cst =
      validate_command(&w->pred, cluster, gpu, row->command, sizeof row->command);
  if (cst == PL_ERR_NOMEM)
    *in->fatal = cst;
}

/* A skipped row is named after its model when nothing else named it. */
static void run_record(const struct validate_in *in, struct pl_vrow *row, struct work *w) {
  predict_record(in, row, w);
  if (row->skipped && row->label[0] == '\0')
    snprintf(row->label, sizeof row->label, "%.60s", validate_csv_cell(in->csv, in->rec, "model"));
}

/* The common columns every validation CSV has (data/validation/README.md). */
static const char *const required_cols[] = {
    "source", "model",    "layers", "hidden", "heads",       "seq_len",
    "gpu",    "num_gpus", "tp",     "pp",     "micro_batch", "global_batch",
};

static enum pl_status check_columns(const struct validate_csv *c, const char *name,
                                    struct pl_diag *diag) {
  for (size_t i = 0; i < sizeof required_cols / sizeof required_cols[0]; i++)
    if (validate_csv_col(c, required_cols[i]) < 0)
      return pl_diag_set(
          diag, PL_ERR_MISSING,
          "csv '%s': no column '%s' (not the data/validation layout: see its README.md)", name,
          required_cols[i]);
  return PL_OK;
}

static enum pl_status add_records(struct pl_validation *v, const struct validate_csv *c,
                                  const char *name, struct pl_diag *diag) {
  struct work *w = pl_malloc(sizeof *w); /* a few KiB: off the stack */
  if (w == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory");
  for (size_t rec = 1; rec < c->n_records; rec++) {
    struct pl_vrow *row = push_row(v);
    if (row == NULL) {
      pl_free(w);
      return pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory at '%s' row %zu", name, rec);
    }
    snprintf(row->dataset, sizeof row->dataset, "%s", name);
    row->row = (int64_t)rec;
    row->line = c->lines[rec];
    enum pl_status fatal = PL_OK;
    bool whatif = v->hardware.cluster_arg[0] != '\0' || v->hardware.gpu_arg[0] != '\0' ||
                  v->hardware.n_flags > 0;
    const struct validate_in in = {c, rec, &fatal,
                                   v->framework.name[0] != '\0' ? &v->framework : NULL,
                                   v->quantity, whatif ? &v->hardware : NULL};
    run_record(&in, row, w);
    if (fatal != PL_OK) {
      pl_free(w);
      return pl_diag_set(diag, fatal, "validate: out of memory at '%s' row %zu", name, rec);
    }
  }
  pl_free(w);
  return PL_OK;
}

static enum pl_status add(struct pl_validation *v, const char *name, const char *origin,
                          const char *text, size_t len, struct pl_diag *diag) {
  struct validate_csv c;
  enum pl_status st = validate_csv_parse(text, len, origin, &c, diag);
  if (st != PL_OK)
    return st;
  size_t first = v->n_rows;
  st = check_columns(&c, origin, diag);
  if (st == PL_OK)
    st = add_records(v, &c, name, diag);
  validate_csv_free(&c);
  struct pl_vsummary *set = st == PL_OK ? push_set(v) : NULL;
  if (st == PL_OK && set == NULL)
    st = pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory");
  /* a header-only file adds no rows: rows may still be NULL (NULL + 0 is UB) */
  const struct pl_vrow *rows = v->rows != NULL ? v->rows + first : NULL;
  if (st == PL_OK)
    st = pl_validation_summarize(rows, v->n_rows - first, name, set, diag);
  if (st == PL_OK)
    st = pl_validation_summarize(v->rows, v->n_rows, "all", &v->overall, diag);
  return st;
}

enum pl_status pl_validation_add_csv(struct pl_validation *v, const char *name, const char *text,
                                     size_t len, struct pl_diag *diag) {
  return add(v, name, name, text, len, diag);
}

/* "data/validation/megatron_sc21_narayanan.csv" -> "megatron_sc21_narayanan" */
static void dataset_name(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base != NULL ? base + 1 : path;
  size_t len = strlen(base);
  if (len > 4 && strcmp(base + len - 4, ".csv") == 0)
    len -= 4;
  if (len >= n)
    len = n - 1;
  memcpy(out, base, len);
  out[len] = '\0';
}

enum pl_status pl_validation_add_file(struct pl_validation *v, const char *path,
                                      struct pl_diag *diag) {
  char *text = NULL, name[64];
  size_t len = 0;
  enum pl_status st = base_read_file(path, VALIDATE_MAX_FILE_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  dataset_name(path, name, sizeof name);
  for (size_t i = 0; i < v->n_sets; i++)
    if (strcmp(v->sets[i].name, name) == 0) {
      pl_free(text);
      return pl_diag_set(diag, PL_ERR_RANGE, "csv '%s': dataset '%s' given twice", path, name);
    }
  st = add(v, name, path, text, len, diag);
  pl_free(text);
  return st;
}

/* One record of one file, predicted as `validate` predicts it, with the whole
 * prediction kept (`validate --explain`). */
static enum pl_status explain_parsed(const struct validate_csv *c, const char *path, int64_t row,
                                     struct pl_vrow *out, struct pl_prediction *pred,
                                     struct pl_diag *diag) {
  enum pl_status st = check_columns(c, path, diag);
  if (st != PL_OK)
    return st;
  if (row < 1 || (size_t)row >= c->n_records)
    return pl_diag_set(diag, PL_ERR_RANGE, "csv '%s': no row %lld (it has rows 1 to %zu)", path,
                       (long long)row, c->n_records - 1);
  memset(out, 0, sizeof *out);
  dataset_name(path, out->dataset, sizeof out->dataset);
  out->row = row;
  out->line = c->lines[row];
  enum pl_status fatal = PL_OK;
  const struct validate_in in = {c, (size_t)row, &fatal, NULL, PL_VQUANTITY_STEP, NULL};
  struct work *w = pl_calloc(1, sizeof *w); /* zeroed: a skipped row leaves pred unset */
  if (w == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory");
  run_record(&in, out, w);
  *pred = w->pred;
  pl_free(w);
  if (fatal != PL_OK)
    return pl_diag_set(diag, fatal, "validate: out of memory at '%s' row %lld", path,
                       (long long)row);
  return PL_OK;
}

enum pl_status pl_validation_explain(const char *path, int64_t row, struct pl_vrow *out,
                                     struct pl_prediction *pred, struct pl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = base_read_file(path, VALIDATE_MAX_FILE_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  struct validate_csv c;
  st = validate_csv_parse(text, len, path, &c, diag);
  if (st == PL_OK) {
    st = explain_parsed(&c, path, row, out, pred, diag);
    validate_csv_free(&c);
  }
  pl_free(text);
  return st;
}
