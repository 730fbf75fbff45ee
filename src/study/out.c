/* out.c: the study's machine-readable results. results.csv has one row
 * per grid point: the point's axes (study.* columns) followed by predict's
 * own columns (pl_report_predict_csv_header), empty where the point could
 * not be laid out. results.json holds the effective spec, every point
 * ("study" axes + predict's members, report.h's schema), the collective
 * bandwidths, measured runs, figures and findings. */
#include "study_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <plateau/emit.h>
#include <plateau/report.h>
#include <plateau/version.h>

static void csv_str(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\n") == NULL) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Columns of predict's CSV, counted from its header. */
static int predict_columns(void) {
  FILE *t = tmpfile();
  if (t == NULL)
    return -1;
  pl_report_predict_csv_header(t);
  rewind(t);
  int n = 1, ch;
  while ((ch = fgetc(t)) != EOF && ch != '\n')
    n += ch == ',';
  fclose(t);
  return n;
}

static void csv_axes(FILE *f, const struct pl_study *st, const struct pl_study_point *p) {
  const struct pl_study_batch *b = &st->spec.batches[p->batch];
  csv_str(f, st->models[p->model].name);
  fputc(',', f);
  csv_str(f, st->clusters[p->cluster].name);
  fputc(',', f);
  csv_str(f, st->spec.strategies[p->strategy]);
  fprintf(f, ",%s,%lld,%lld,%lld,%s,", b->kind == PL_STUDY_WEAK ? "per_gpu" : "global",
          (long long)b->n, (long long)p->nodes, (long long)p->gpus,
          pl_study_status_name(p->status));
  csv_str(f, p->why);
  fprintf(f, ",%lld,", (long long)p->search_evaluated);
}

/* Back over the newline predict's CSV writer ends a line with, so the
 * study's own columns follow on the same line (a regular file: seekable). */
static void csv_unline(FILE *f) {
  fflush(f);
  fseek(f, -1, SEEK_CUR);
}

/* The exposed time of each collective type (fig_exposed.c), empty when the
 * point was not simulated; ends the line. */
static void csv_exposed(FILE *f, const struct pl_study_point *p) {
  double x[STUDY_N_XK];
  bool ok = p->has_pred && p->status == PL_STUDY_OK && study_exposed_by_kind(&p->pred, x);
  for (int k = 0; k < STUDY_N_XK; k++) {
    fputc(',', f);
    if (ok) {
      char b[40];
      pl_fmt_double(b, sizeof b, x[k]);
      fputs(b, f);
    }
  }
  fputc('\n', f);
}

enum pl_status study_write_csv(const struct pl_study *st, const char *path, struct pl_diag *diag) {
  int cols = predict_columns();
  if (cols < 1)
    return pl_diag_set(diag, PL_ERR_IO, "cannot create a temporary file: %s", strerror(errno));
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  fputs("study.model,study.cluster,study.strategy,study.batch_kind,study.batch,study.nodes,"
        "study.gpus,study.status,study.why,study.search_evaluated,",
        f);
  pl_report_predict_csv_header(f);
  csv_unline(f);
  for (int k = 0; k < STUDY_N_XK; k++)
    fprintf(f, ",study.exposed_%s_s", study_xk_names[k]);
  fputc('\n', f);
  for (int64_t i = 0; i < st->n_points; i++) {
    const struct pl_study_point *p = &st->points[i];
    csv_axes(f, st, p);
    if (p->has_pred) {
      pl_report_predict_csv_row(f, &p->pred);
      csv_unline(f);
    } else {
      for (int c = 1; c < cols; c++)
        fputc(',', f);
    }
    csv_exposed(f, p);
  }
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return PL_OK;
}

/* ---- JSON ---- */

static void point_json(struct pl_emit *e, const struct pl_study *st,
                       const struct pl_study_point *p) {
  const struct pl_study_batch *b = &st->spec.batches[p->batch];
  pl_emit_obj_begin(e, NULL);
  pl_emit_obj_begin(e, "study");
  pl_emit_str(e, "model", st->models[p->model].name);
  pl_emit_str(e, "cluster", st->clusters[p->cluster].name);
  pl_emit_str(e, "strategy", st->spec.strategies[p->strategy]);
  pl_emit_str(e, "batch_kind", b->kind == PL_STUDY_WEAK ? "per_gpu" : "global");
  pl_emit_int(e, "batch", b->n);
  pl_emit_int(e, "nodes", p->nodes);
  pl_emit_int(e, "gpus", p->gpus);
  pl_emit_str(e, "status", pl_study_status_name(p->status));
  pl_emit_str(e, "why", p->status == PL_STUDY_OK ? NULL : p->why);
  if (st->strat[p->strategy].best)
    pl_emit_int(e, "search_evaluated", p->search_evaluated);
  pl_emit_obj_end(e);
  if (p->has_pred)
    pl_report_predict_members(e, &p->pred);
  pl_emit_obj_end(e);
}

static void coll_json(struct pl_emit *e, const struct pl_study *st) {
  pl_emit_arr_begin(e, "collectives");
  for (int64_t i = 0; i < st->n_coll; i++) {
    const struct pl_study_coll *c = &st->coll[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "cluster", st->clusters[c->cluster].name);
    pl_emit_str(e, "op", pl_coll_op_name((enum pl_coll_op)c->op));
    pl_emit_int(e, "nodes", c->nodes);
    pl_emit_int(e, "ranks", c->ranks);
    pl_emit_num(e, "bytes", c->bytes);
    if (c->ok) {
      pl_emit_num(e, "time_s", c->time_s);
      pl_emit_num(e, "busbw_bytes_per_s", c->busbw_bytes_per_s);
      pl_emit_str(e, "algo", c->algo);
    } else {
      pl_emit_str(e, "why", c->why);
    }
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void measured_json(struct pl_emit *e, const struct pl_study *st) {
  pl_emit_arr_begin(e, "measured");
  for (int i = 0; i < st->n_measured; i++) {
    const struct pl_study_measured *m = &st->measured[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "label", m->label);
    pl_emit_str(e, "path", m->path);
    pl_emit_int(e, "world_size", m->world_size);
    pl_emit_int(e, "ranks", m->n_ranks);
    pl_emit_num(e, "step_time_s", m->step_time_s);
    pl_emit_num(e, "compute_s", m->compute_s);
    pl_emit_num(e, "comm_s", m->comm_s);
    pl_emit_num(e, "overlapped_comm_s", m->overlapped_comm_s);
    pl_emit_num(e, "exposed_comm_s", m->exposed_comm_s);
    pl_emit_arr_begin(e, "collectives");
    for (int j = 0; j < m->n_coll; j++) {
      pl_emit_obj_begin(e, NULL);
      pl_emit_str(e, "op", m->coll[j].op);
      pl_emit_int(e, "group_size", m->coll[j].group_size);
      pl_emit_num(e, "bytes", m->coll[j].bytes);
      pl_emit_num(e, "time_s", m->coll[j].time_s);
      pl_emit_num(e, "busbw_bytes_per_s", m->coll[j].busbw_bytes_per_s);
      pl_emit_obj_end(e);
    }
    pl_emit_arr_end(e);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void published_json(struct pl_emit *e, const struct pl_study *st) {
  pl_emit_arr_begin(e, "published");
  for (int i = 0; i < st->n_published; i++) {
    const struct study_published *p = &st->published[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "dataset", p->run.dataset);
    pl_emit_int(e, "row", p->run.row);
    pl_emit_str(e, "run", p->run.label);
    pl_emit_str(e, "model", st->models[p->model].name);
    pl_emit_str(e, "cluster", st->clusters[p->cluster].name);
    pl_emit_int(e, "gpus", p->run.layout.gpus);
    pl_emit_int(e, "tp", p->run.layout.tp);
    pl_emit_int(e, "pp", p->run.layout.pp);
    pl_emit_int(e, "cp", p->run.layout.cp);
    pl_emit_int(e, "gbs", p->run.layout.gbs);
    pl_emit_int(e, "seq", p->run.layout.seq);
    pl_emit_str(e, "dtype", pl_layout_dtype_name(&p->run.layout));
    pl_emit_num(e, "measured_step_time_s", p->run.measured_step_time_s);
    pl_emit_num(e, "predicted_step_time_s", p->run.predicted_step_time_s);
    pl_emit_num(e, "tokens_per_s_per_gpu", p->tokens_per_s_per_gpu);
    if (p->mfu > 0.0) {
      pl_emit_num(e, "mfu", p->mfu);
      pl_emit_num(e, "predicted_mfu", p->run.predicted_mfu);
    } else {
      pl_emit_null(e, "mfu");
      pl_emit_null(e, "predicted_mfu");
    }
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void summary_json(struct pl_emit *e, const struct pl_study *st) {
  int64_t n[3] = {0, 0, 0};
  for (int64_t i = 0; i < st->n_points; i++)
    n[st->points[i].status]++;
  pl_emit_obj_begin(e, "summary");
  pl_emit_int(e, "points", st->n_points);
  pl_emit_int(e, "ok", n[PL_STUDY_OK]);
  pl_emit_int(e, "does_not_fit", n[PL_STUDY_NO_FIT]);
  pl_emit_int(e, "infeasible", n[PL_STUDY_INFEASIBLE]);
  pl_emit_obj_end(e);
}

static void figures_json(struct pl_emit *e, const struct study_fig *figs, int n) {
  pl_emit_arr_begin(e, "figures");
  for (int i = 0; i < n; i++) {
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "id", figs[i].id);
    pl_emit_str(e, "title", figs[i].title);
    if (figs[i].skip[0] != '\0') {
      pl_emit_str(e, "skipped", figs[i].skip);
    } else {
      pl_emit_str(e, "caption", figs[i].caption);
      pl_emit_str(e, "findings", figs[i].findings);
    }
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

enum pl_status study_write_json(const struct pl_study *st, const struct study_fig *figs, int n_figs,
                                const char *path, struct pl_diag *diag) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  struct pl_emit *e = pl_emit_open(f);
  if (e == NULL) {
    fclose(f);
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory writing '%s'", path);
  }
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "version", pl_version()); /* git describe, as every JSON document (issue 20) */
  pl_emit_str(e, "plateau_version", PL_VERSION);
  pl_emit_obj_begin(e, "spec");
  study_spec_json(e, &st->spec);
  pl_emit_obj_end(e);
  summary_json(e, st);
  figures_json(e, figs, n_figs);
  pl_emit_arr_begin(e, "points");
  for (int64_t i = 0; i < st->n_points; i++)
    point_json(e, st, &st->points[i]);
  pl_emit_arr_end(e);
  coll_json(e, st);
  measured_json(e, st);
  published_json(e, st);
  pl_emit_obj_end(e);
  enum pl_status rc = pl_emit_close(e, diag);
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return rc;
}
