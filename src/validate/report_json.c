/* report_json.c: `plateau validate --format json`.
 *
 * {"quantity": "step_time_s" (validate --quantity memory: "peak_memory_bytes"),
 *  "error_unit": "percent",
 *  "datasets": [{name, rows, predicted, skipped, mape, median_ape, max_ape,
 *                bias (mean signed error), worst_row, published_mape, published_bias
 *                (the same on the column as published: a rate's error is
 *                measured / predicted - 1 of the step)}],
 *  "overall": {same, plus worst_dataset},
 *  with --by: "by": "gpu", "groups": [{same as overall, name = the group}],
 *  "rows": [{dataset, row, line, run, source, framework, architecture, gpu, cluster, quantity, metric,
 *            published, predicted, measured, error, published_error, skipped_reason, assumed,
 *            layout {...}, breakdown {...}}]}
 * Errors are percent (error signed, the rest absolute). What does not apply
 * is null: a skipped row has no prediction, a predicted row no reason. */
#include <plateau/validate.h>

static void summary(struct pl_emit *e, const char *key, const struct pl_vsummary *s, bool all) {
  pl_emit_obj_begin(e, key);
  pl_emit_str(e, "name", s->name);
  pl_emit_int(e, "rows", s->rows);
  pl_emit_int(e, "predicted", s->predicted);
  pl_emit_int(e, "skipped", s->skipped);
  if (s->predicted > 0) {
    pl_emit_num(e, "mape", s->mape);
    pl_emit_num(e, "median_ape", s->median_ape);
    pl_emit_num(e, "max_ape", s->max_ape);
    pl_emit_num(e, "bias", s->bias);
    pl_emit_int(e, "worst_row", s->worst_row);
    pl_emit_num(e, "published_mape", s->published_mape);
    pl_emit_num(e, "published_bias", s->published_bias);
  } else {
    pl_emit_null(e, "mape");
    pl_emit_null(e, "median_ape");
    pl_emit_null(e, "max_ape");
    pl_emit_null(e, "bias");
    pl_emit_null(e, "worst_row");
    pl_emit_null(e, "published_mape");
    pl_emit_null(e, "published_bias");
  }
  if (all)
    pl_emit_str(e, "worst_dataset", s->predicted > 0 ? s->worst_dataset : NULL);
  pl_emit_obj_end(e);
}

static void num_or_null(struct pl_emit *e, const char *key, double v, bool present) {
  if (present)
    pl_emit_num(e, key, v);
  else
    pl_emit_null(e, key);
}

static void layout(struct pl_emit *e, const struct pl_layout *l) {
  pl_emit_obj_begin(e, "layout");
  pl_emit_int(e, "gpus", l->gpus);
  pl_emit_int(e, "nodes", l->nodes); /* the error band's single/multi-node class (band.h) */
  pl_emit_int(e, "tp", l->tp);
  pl_emit_int(e, "pp", l->pp);
  pl_emit_int(e, "cp", l->cp);
  pl_emit_int(e, "dp", l->dp);
  pl_emit_int(e, "vp", l->vp);
  pl_emit_str(e, "shard", pl_shard_name(l->shard));
  pl_emit_str(e, "recompute", pl_recompute_name(l->recompute));
  pl_emit_str(e, "schedule", pl_schedule_name(l->schedule));
  pl_emit_str(e, "dtype", pl_dtype_name(l->dtype));
  pl_emit_bool(e, "sp", l->sp);
  pl_emit_int(e, "mbs", l->mbs);
  pl_emit_int(e, "gbs", l->gbs);
  pl_emit_int(e, "seq", l->seq);
  pl_emit_obj_end(e);
}

static void breakdown(struct pl_emit *e, const struct pl_vrow *r) {
  pl_emit_obj_begin(e, "breakdown");
  pl_emit_num(e, "mfu", r->mfu);
  pl_emit_num(e, "compute_s", r->compute_s);
  pl_emit_num(e, "exposed_comm_s", r->exposed_comm_s);
  pl_emit_num(e, "bubble_s", r->bubble_s);
  pl_emit_num(e, "optimizer_s", r->optimizer_s);
  pl_emit_num(e, "other_s", r->other_s);
  pl_emit_obj_end(e);
}

static void row(struct pl_emit *e, const char *key, const struct pl_vrow *r) {
  bool p = !r->skipped, m = r->measured > 0;
  pl_emit_obj_begin(e, key);
  pl_emit_str(e, "dataset", r->dataset);
  pl_emit_int(e, "row", r->row);
  pl_emit_int(e, "line", r->line);
  pl_emit_str(e, "run", r->label);
  pl_emit_str(e, "source", r->source[0] ? r->source : NULL);
  pl_emit_str(e, "framework", r->framework[0] ? r->framework : NULL);
  pl_emit_str(e, "architecture", r->architecture[0] ? r->architecture : NULL);
  pl_emit_str(e, "gpu", r->gpu[0] ? r->gpu : NULL);
  pl_emit_str(e, "cluster", r->cluster[0] ? r->cluster : NULL);
  pl_emit_str(e, "quantity", r->quantity);
  pl_emit_str(e, "metric", r->metric[0] ? r->metric : NULL);
  num_or_null(e, "published", r->published, m);
  num_or_null(e, "predicted", r->predicted, p);
  num_or_null(e, "measured", r->measured, m);
  num_or_null(e, "error", r->error, p);
  num_or_null(e, "published_error", r->published_error, p);
  pl_emit_str(e, "skipped_reason", p ? NULL : r->skipped_reason);
  pl_emit_str(e, "assumed", r->assumed);
  if (p) {
    layout(e, &r->layout);
    breakdown(e, r);
  }
  pl_emit_obj_end(e);
}

static void document(struct pl_emit *e, const struct pl_validation *v,
                     const struct pl_vgroups *g) {
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "quantity", pl_vquantity_key(v->quantity));
  pl_emit_str(e, "error_unit", "percent");
  pl_emit_arr_begin(e, "datasets");
  for (size_t i = 0; i < v->n_sets; i++)
    summary(e, NULL, &v->sets[i], false);
  pl_emit_arr_end(e);
  summary(e, "overall", &v->overall, true);
  if (g != NULL) {
    pl_emit_str(e, "by", pl_vgroup_name(g->by));
    pl_emit_arr_begin(e, "groups");
    for (size_t i = 0; i < g->n; i++)
      summary(e, NULL, &g->groups[i], true);
    pl_emit_arr_end(e);
  }
  pl_emit_arr_begin(e, "rows");
  for (size_t i = 0; i < v->n_rows; i++)
    row(e, NULL, &v->rows[i]);
  pl_emit_arr_end(e);
  pl_emit_obj_end(e);
}

void pl_report_validate_json(struct pl_emit *e, const struct pl_validation *v) {
  document(e, v, NULL);
}

void pl_report_validate_groups_json(struct pl_emit *e, const struct pl_validation *v,
                                    const struct pl_vgroups *g) {
  document(e, v, g);
}

void pl_report_validate_row_json(struct pl_emit *e, const char *key, const struct pl_vrow *r) {
  row(e, key, r);
}
