/* spec.c: the study's grid as data: the default (the paper's setup,
 * arXiv 2411.13055 Sec. 3 and Appendices C, E, F, G) and JSON specs that
 * override any axis. Schema: docs/study.md "Spec file". Every error names
 * the field and says why. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/emit.h>
#include <plateau/units.h>

#include "base/json.h"

static void set_strs(char (*dst)[256], int *n, const char *const *src, int count) {
  for (int i = 0; i < count; i++)
    study_copy(dst[i], sizeof dst[i], src[i]);
  *n = count;
}

void pl_study_spec_default(struct pl_study_spec *s) {
  static const char *const models[] = {"llama2-7b", "llama2-13b", "llama2-70b"};
  static const char *const clusters[] = {"dgx-v100", "dgx-a100", "dgx-h100"};
  static const char *const strat[] = {"fsdp", "tp2", "tp4", "tp8", "pp2",
                                      "pp4",  "pp8", "cp2", "cp4", "best"};
  memset(s, 0, sizeof *s);
  set_strs(s->models, &s->n_models, models, 3);
  set_strs(s->clusters, &s->n_clusters, clusters, 3);
  for (int i = 0; i < 9; i++) /* 1 .. 256 nodes of 8 GPUs (8 .. 2,048 GPUs, Sec. 3) */
    s->nodes[i] = (int64_t)1 << i;
  s->n_nodes = 9;
  for (int i = 0; i < 10; i++)
    study_copy(s->strategies[i], sizeof s->strategies[i], strat[i]);
  s->n_strategies = 10;
  /* Weak scaling at 1, 2, 4 sequences per GPU (Appendix D) and a fixed global
   * batch (Appendix E): 1,024 sequences of 4,096 tokens = 4 M tokens, a
   * Llama-2-like pretraining batch (Touvron et al. 2023 used 4 M tokens). */
  for (int i = 0; i < 3; i++)
    s->batches[i] = (struct pl_study_batch){PL_STUDY_WEAK, (int64_t)1 << i};
  s->batches[3] = (struct pl_study_batch){PL_STUDY_FIXED, 1024};
  s->n_batches = 4;
  s->seq = 4096;
  s->shard = PL_SHARD_ZERO2; /* FSDP without resharding after forward (Sec. 3) */
  s->recompute = PL_RECOMPUTE_NONE;
  s->mbs = 0;
  s->dtype = PL_DTYPE_BF16;
  /* The best layout is searched within the paper's family of layouts:
   * ZeRO/FSDP over the whole data-parallel group, no recomputation, 1F1B;
   * tp, pp, cp, dp and the micro-batch are free. The whole space ("") takes
   * about 7x longer (docs/study.md "Cost"). */
  study_copy(s->best_space, sizeof s->best_space,
             "recompute=none,schedule=1f1b,shard=zero1|zero2|zero3,shard_group=dp");
  s->coll_bytes = 1024.0 * 1024 * 1024; /* 1 GiB: past the latency-bound sizes */
  study_copy(s->focus_model, sizeof s->focus_model, models[0]);
  study_copy(s->focus_cluster, sizeof s->focus_cluster, clusters[2]);
  /* The paper's own stack (Appendix C): PyTorch 2.3.1 FSDP2 with xFormers 0.27
   * attention, eager; an embedded preset, so it always loads (test_study
   * checks); were it to fail, the runs keep plateau's defaults. */
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_study_spec_set_framework(s, PL_STUDY_DEFAULT_FRAMEWORK, &d) != PL_OK)
    (void)pl_study_spec_set_framework(s, "none", &d);
}

enum pl_status pl_study_spec_set_framework(struct pl_study_spec *s, const char *ref,
                                           struct pl_diag *diag) {
  struct pl_framework fw;
  memset(&fw, 0, sizeof fw);
  if (ref == NULL || ref[0] == '\0')
    return pl_diag_set(diag, PL_ERR_RANGE, "framework: empty (a preset, a file, or none)");
  if (strlen(ref) >= sizeof s->framework_ref)
    return pl_diag_set(diag, PL_ERR_LIMIT, "framework: name longer than %zu characters",
                       sizeof s->framework_ref - 1);
  if (strcmp(ref, "none") != 0) {
    enum pl_status st = pl_framework_load(ref, &fw, diag);
    if (st != PL_OK)
      return st;
  }
  s->framework = fw;
  study_copy(s->framework_ref, sizeof s->framework_ref, ref);
  return PL_OK;
}

int pl_study_spec_strategy(const struct pl_study_spec *s, const char *name) {
  for (int i = 0; i < s->n_strategies; i++)
    if (strcmp(s->strategies[i], name) == 0)
      return i;
  return -1;
}

enum pl_status study_strategy_parse(const char *name, enum pl_shard shard,
                                    struct study_strategy *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  if (strcmp(name, "best") == 0) {
    out->best = true;
    return PL_OK;
  }
  struct pl_search_space sp;
  enum pl_status st = pl_strategy_parse(name, &sp, diag);
  if (st != PL_OK)
    return st;
  if (sp.shard_group == 0 && sp.shard_mask != (1u << PL_SHARD_DDP))
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                       "strategy '%s': hybrid sharding needs a shard group; use \"best\" to let "
                       "the search pick one",
                       name);
  out->tp = sp.tp;
  out->pp = sp.pp;
  out->cp = sp.cp;
  out->shard = shard;
  /* A name that picks one sharding mode ("zero3", "ddp") overrides the spec's. */
  for (int m = PL_SHARD_DDP; m <= PL_SHARD_ZERO3; m++)
    if (sp.shard_mask == (1u << m))
      out->shard = (enum pl_shard)m;
  return PL_OK;
}

void study_batch_name(const struct pl_study_batch *b, char *buf, size_t n) {
  char num[32];
  study_fmt_int(num, sizeof num, b->n);
  if (b->kind == PL_STUDY_WEAK)
    study_setf(buf, n, "%s seq/GPU", num);
  else
    study_setf(buf, n, "global batch %s", num);
}

/* ---- parsing ---- */

struct parser {
  const char *origin;
  struct pl_study_spec *s;
  struct pl_diag *diag;
};

static enum pl_status bad(struct parser *p, const char *field, const char *why) {
  return pl_diag_set(p->diag, PL_ERR_PARSE, "%s: field '%s': %s", p->origin, field, why);
}

/* A non-empty array of at most PL_STUDY_MAX_AXIS elements. */
static enum pl_status get_array(struct parser *p, yajl_val v, const char *field, size_t *n) {
  if (!YAJL_IS_ARRAY(v))
    return bad(p, field, "must be an array");
  *n = v->u.array.len;
  if (*n == 0)
    return bad(p, field, "must not be empty");
  if (*n > PL_STUDY_MAX_AXIS)
    return pl_diag_set(p->diag, PL_ERR_LIMIT, "%s: field '%s': %zu entries, at most %d", p->origin,
                       field, *n, PL_STUDY_MAX_AXIS);
  return PL_OK;
}

static enum pl_status str_array(struct parser *p, yajl_val v, const char *field, char *dst,
                                size_t width, int *count) {
  size_t n;
  enum pl_status st = get_array(p, v, field, &n);
  for (size_t i = 0; st == PL_OK && i < n; i++) {
    const char *sv = YAJL_GET_STRING(v->u.array.values[i]);
    if (sv == NULL || sv[0] == '\0')
      return pl_diag_set(p->diag, PL_ERR_PARSE,
                         "%s: field '%s': element %zu must be a non-empty string", p->origin, field,
                         i + 1);
    if (strlen(sv) >= width)
      return pl_diag_set(p->diag, PL_ERR_LIMIT,
                         "%s: field '%s': element %zu is longer than %zu characters", p->origin,
                         field, i + 1, width - 1);
    for (size_t j = 0; j < i; j++)
      if (strcmp(dst + j * width, sv) == 0)
        return pl_diag_set(p->diag, PL_ERR_PARSE, "%s: field '%s': '%s' is listed twice", p->origin,
                           field, sv);
    study_copy(dst + i * width, width, sv);
  }
  if (st == PL_OK)
    *count = (int)n;
  return st;
}

/* Positive integers; ascending = must be strictly increasing. */
static enum pl_status int_array(struct parser *p, yajl_val v, const char *field, int64_t *dst,
                                int *count, bool ascending) {
  size_t n;
  enum pl_status st = get_array(p, v, field, &n);
  for (size_t i = 0; st == PL_OK && i < n; i++) {
    yajl_val e = v->u.array.values[i];
    if (!YAJL_IS_INTEGER(e) || YAJL_GET_INTEGER(e) <= 0 || YAJL_GET_INTEGER(e) > (1 << 20))
      return pl_diag_set(p->diag, PL_ERR_RANGE,
                         "%s: field '%s': element %zu must be an integer from 1 to %d", p->origin,
                         field, i + 1, 1 << 20);
    dst[i] = YAJL_GET_INTEGER(e);
    if (ascending && i > 0 && dst[i] <= dst[i - 1])
      return pl_diag_set(p->diag, PL_ERR_PARSE, "%s: field '%s': must be ascending and distinct",
                         p->origin, field);
  }
  if (st == PL_OK)
    *count = (int)n;
  return st;
}

static enum pl_status parse_strategies(struct parser *p, yajl_val v) {
  struct pl_study_spec *s = p->s;
  char tmp[PL_STUDY_MAX_AXIS][256];
  int n = 0;
  enum pl_status st = str_array(p, v, "strategies", &tmp[0][0], sizeof tmp[0], &n);
  for (int i = 0; st == PL_OK && i < n; i++) {
    struct study_strategy ss;
    struct pl_diag d;
    pl_diag_clear(&d);
    if (strlen(tmp[i]) >= sizeof s->strategies[0] ||
        study_strategy_parse(tmp[i], PL_SHARD_ZERO2, &ss, &d) != PL_OK)
      return pl_diag_set(p->diag, PL_ERR_UNKNOWN, "%s: field 'strategies': %s", p->origin,
                         d.msg[0] ? d.msg : "name too long");
    study_copy(s->strategies[i], sizeof s->strategies[i], tmp[i]);
  }
  if (st == PL_OK)
    s->n_strategies = n;
  return st;
}

/* Batches come from two fields; either replaces its kind only. */
static enum pl_status parse_batches(struct parser *p, yajl_val weak, yajl_val fixed) {
  struct pl_study_spec *s = p->s;
  struct pl_study_batch out[2 * PL_STUDY_MAX_AXIS];
  int n = 0;
  for (int kind = PL_STUDY_WEAK; kind <= PL_STUDY_FIXED; kind++) {
    yajl_val v = kind == PL_STUDY_WEAK ? weak : fixed;
    const char *field = kind == PL_STUDY_WEAK ? "batch_per_gpu" : "global_batch";
    int64_t vals[PL_STUDY_MAX_AXIS];
    int cnt = 0;
    if (v != NULL && YAJL_IS_ARRAY(v) && v->u.array.len == 0)
      continue; /* [] switches this kind off */
    if (v != NULL) {
      enum pl_status st = int_array(p, v, field, vals, &cnt, false);
      if (st != PL_OK)
        return st;
    } else {
      for (int i = 0; i < s->n_batches; i++)
        if (s->batches[i].kind == (enum pl_study_batch_kind)kind)
          vals[cnt++] = s->batches[i].n;
    }
    for (int i = 0; i < cnt; i++)
      out[n++] = (struct pl_study_batch){(enum pl_study_batch_kind)kind, vals[i]};
  }
  if (n == 0)
    return bad(p, "batch_per_gpu", "no batch regime left: give batch_per_gpu or global_batch");
  if (n > PL_STUDY_MAX_AXIS)
    return pl_diag_set(p->diag, PL_ERR_LIMIT,
                       "%s: fields 'batch_per_gpu' and 'global_batch': %d "
                       "entries together, at most %d",
                       p->origin, n, PL_STUDY_MAX_AXIS);
  memcpy(s->batches, out, (size_t)n * sizeof out[0]);
  s->n_batches = n;
  return PL_OK;
}

static enum pl_status parse_enum(struct parser *p, yajl_val obj, const char *field) {
  char buf[32] = "";
  enum pl_status st = base_json_str(obj, field, false, p->origin, buf, sizeof buf, p->diag);
  if (st != PL_OK || buf[0] == '\0')
    return st;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (strcmp(field, "shard") == 0)
    st = pl_shard_parse(buf, &p->s->shard, &d);
  else if (strcmp(field, "recompute") == 0)
    st = pl_recompute_parse(buf, &p->s->recompute, &d);
  else
    st = pl_dtype_parse(buf, &p->s->dtype, &d);
  if (st != PL_OK)
    return pl_diag_set(p->diag, st, "%s: field '%s': %s", p->origin, field, d.msg);
  return PL_OK;
}

static enum pl_status parse_scalars(struct parser *p, yajl_val obj) {
  struct pl_study_spec *s = p->s;
  enum pl_status st = base_json_int(obj, "seq", false, p->origin, &s->seq, p->diag);
  if (st == PL_OK && (s->seq <= 0 || s->seq > (1 << 24)))
    return bad(p, "seq", "must be from 1 to 16777216 tokens");
  yajl_val mbs = base_json_get(obj, "mbs");
  const char *mbs_str = mbs != NULL ? YAJL_GET_STRING(mbs) : NULL;
  if (st == PL_OK && mbs_str != NULL && strcmp(mbs_str, "auto") == 0)
    s->mbs = 0;
  else if (st == PL_OK && mbs != NULL)
    st = base_json_int(obj, "mbs", false, p->origin, &s->mbs, p->diag);
  if (st == PL_OK && (s->mbs < 0 || s->mbs > 4096))
    return bad(p, "mbs", "must be \"auto\" or an integer from 1 to 4096");
  const char *enums[] = {"shard", "recompute", "dtype"};
  for (int i = 0; st == PL_OK && i < 3; i++)
    st = parse_enum(p, obj, enums[i]);
  if (st == PL_OK)
    st = base_json_str(obj, "best", false, p->origin, s->best_space, sizeof s->best_space, p->diag);
  if (st == PL_OK && s->best_space[0] != '\0') {
    struct pl_search_space sp;
    struct pl_diag d;
    memset(&sp, 0, sizeof sp);
    pl_diag_clear(&d);
    if (pl_search_space_parse(s->best_space, &sp, &d) != PL_OK)
      return pl_diag_set(p->diag, PL_ERR_PARSE, "%s: field 'best': %s", p->origin, d.msg);
  }
  if (st == PL_OK)
    st = base_json_unit(obj, "collective_bytes", PL_UNIT_BYTES, false, p->origin, &s->coll_bytes,
                        p->diag);
  if (st == PL_OK && !(s->coll_bytes >= 1.0 && s->coll_bytes <= 1e13))
    return bad(p, "collective_bytes", "must be from 1 B to 10 TB");
  return st;
}

static enum pl_status parse_focus(struct parser *p, yajl_val obj) {
  yajl_val f = base_json_get(obj, "focus");
  if (f == NULL)
    return PL_OK;
  if (!YAJL_IS_OBJECT(f))
    return bad(p, "focus", "must be an object {\"model\": ..., \"cluster\": ...}");
  for (size_t i = 0; i < f->u.object.len; i++)
    if (strcmp(f->u.object.keys[i], "model") != 0 && strcmp(f->u.object.keys[i], "cluster") != 0)
      return pl_diag_set(p->diag, PL_ERR_UNKNOWN,
                         "%s: field 'focus.%s': unknown (expected model, cluster)", p->origin,
                         f->u.object.keys[i]);
  char o[300];
  study_setf(o, sizeof o, "%s: field 'focus'", p->origin);
  enum pl_status st =
      base_json_str(f, "model", false, o, p->s->focus_model, sizeof p->s->focus_model, p->diag);
  if (st == PL_OK)
    st = base_json_str(f, "cluster", false, o, p->s->focus_cluster, sizeof p->s->focus_cluster,
                       p->diag);
  return st;
}

/* "framework": a preset name, a framework file, or "none" (docs/study.md). */
static enum pl_status parse_framework(struct parser *p, yajl_val obj) {
  char ref[256] = "";
  enum pl_status st = base_json_str(obj, "framework", false, p->origin, ref, sizeof ref, p->diag);
  if (st != PL_OK || base_json_get(obj, "framework") == NULL)
    return st;
  struct pl_diag d;
  pl_diag_clear(&d);
  st = pl_study_spec_set_framework(p->s, ref, &d);
  if (st != PL_OK)
    return pl_diag_set(p->diag, st, "%s: field 'framework': %s", p->origin, d.msg);
  return PL_OK;
}

static const char *const known_fields[] = {
    "models", "clusters",  "nodes", "strategies", "batch_per_gpu", "global_batch",     "seq",
    "shard",  "recompute", "mbs",   "dtype",      "best",          "collective_bytes", "focus",
    "comment", "framework"};

static enum pl_status check_fields(struct parser *p, yajl_val obj) {
  size_t nk = sizeof known_fields / sizeof known_fields[0];
  for (size_t i = 0; i < obj->u.object.len; i++) {
    size_t k = 0;
    while (k < nk && strcmp(obj->u.object.keys[i], known_fields[k]) != 0)
      k++;
    if (k == nk)
      return pl_diag_set(p->diag, PL_ERR_UNKNOWN,
                         "%s: field '%s': unknown (expected models, clusters, nodes, strategies, "
                         "batch_per_gpu, global_batch, seq, shard, recompute, mbs, dtype, best, "
                         "collective_bytes, focus, comment, framework)",
                         p->origin, obj->u.object.keys[i]);
  }
  return PL_OK;
}

/* The focus must name listed entries; when an axis was replaced and the old
 * focus is gone, it moves to the first model / last cluster. */
static enum pl_status check_focus(struct parser *p, bool model_set, bool cluster_set) {
  struct pl_study_spec *s = p->s;
  int m = -1, c = -1;
  for (int i = 0; i < s->n_models; i++)
    if (strcmp(s->models[i], s->focus_model) == 0)
      m = i;
  for (int i = 0; i < s->n_clusters; i++)
    if (strcmp(s->clusters[i], s->focus_cluster) == 0)
      c = i;
  if (m < 0 && model_set)
    return bad(p, "focus.model", "must be one of the spec's models");
  if (c < 0 && cluster_set)
    return bad(p, "focus.cluster", "must be one of the spec's clusters");
  if (m < 0)
    study_copy(s->focus_model, sizeof s->focus_model, s->models[0]);
  if (c < 0)
    study_copy(s->focus_cluster, sizeof s->focus_cluster, s->clusters[s->n_clusters - 1]);
  return PL_OK;
}

static enum pl_status parse_obj(struct parser *p, yajl_val obj) {
  struct pl_study_spec *s = p->s;
  enum pl_status st = check_fields(p, obj);
  yajl_val v;
  if (st == PL_OK && (v = base_json_get(obj, "models")) != NULL)
    st = str_array(p, v, "models", &s->models[0][0], sizeof s->models[0], &s->n_models);
  if (st == PL_OK && (v = base_json_get(obj, "clusters")) != NULL)
    st = str_array(p, v, "clusters", &s->clusters[0][0], sizeof s->clusters[0], &s->n_clusters);
  if (st == PL_OK && (v = base_json_get(obj, "nodes")) != NULL)
    st = int_array(p, v, "nodes", s->nodes, &s->n_nodes, true);
  if (st == PL_OK && (v = base_json_get(obj, "strategies")) != NULL)
    st = parse_strategies(p, v);
  if (st == PL_OK && pl_study_spec_strategy(s, "fsdp") < 0)
    return bad(p, "strategies",
               "must include \"fsdp\", the baseline every figure compares against");
  yajl_val weak = base_json_get(obj, "batch_per_gpu"), fixed = base_json_get(obj, "global_batch");
  if (st == PL_OK && (weak != NULL || fixed != NULL))
    st = parse_batches(p, weak, fixed);
  if (st == PL_OK)
    st = parse_scalars(p, obj);
  if (st == PL_OK)
    st = parse_framework(p, obj);
  yajl_val f = base_json_get(obj, "focus");
  if (st == PL_OK)
    st = parse_focus(p, obj);
  if (st == PL_OK)
    st = check_focus(p, f != NULL && base_json_get(f, "model") != NULL,
                     f != NULL && base_json_get(f, "cluster") != NULL);
  return st;
}

enum pl_status pl_study_spec_parse(const char *text, size_t len, const char *origin,
                                   struct pl_study_spec *s, struct pl_diag *diag) {
  pl_study_spec_default(s);
  yajl_val root = NULL;
  enum pl_status st = base_json_parse(text, len, origin, &root, diag);
  if (st != PL_OK)
    return st;
  struct parser p = {origin, s, diag};
  st = parse_obj(&p, root);
  base_json_free(root);
  return st;
}

enum pl_status pl_study_spec_load(const char *path, struct pl_study_spec *s, struct pl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = base_read_file(path, BASE_JSON_MAX_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  char origin[300];
  study_setf(origin, sizeof origin, "spec '%s'", path);
  st = pl_study_spec_parse(text, len, origin, s, diag);
  pl_free(text);
  return st;
}

/* ---- the effective spec, written back (results.json, spec.json) ---- */

void study_spec_json(struct pl_emit *e, const struct pl_study_spec *s) {
  /* as named (a preset, a file or "none"), so spec.json reruns the same study */
  if (s->framework_ref[0] != '\0')
    pl_emit_str(e, "framework", s->framework_ref);
  else if (s->framework.name[0] != '\0')
    pl_emit_str(e, "framework", s->framework.name);
  pl_emit_arr_begin(e, "models");
  for (int i = 0; i < s->n_models; i++)
    pl_emit_str(e, NULL, s->models[i]);
  pl_emit_arr_end(e);
  pl_emit_arr_begin(e, "clusters");
  for (int i = 0; i < s->n_clusters; i++)
    pl_emit_str(e, NULL, s->clusters[i]);
  pl_emit_arr_end(e);
  pl_emit_arr_begin(e, "nodes");
  for (int i = 0; i < s->n_nodes; i++)
    pl_emit_int(e, NULL, s->nodes[i]);
  pl_emit_arr_end(e);
  pl_emit_arr_begin(e, "strategies");
  for (int i = 0; i < s->n_strategies; i++)
    pl_emit_str(e, NULL, s->strategies[i]);
  pl_emit_arr_end(e);
  for (int kind = PL_STUDY_WEAK; kind <= PL_STUDY_FIXED; kind++) {
    pl_emit_arr_begin(e, kind == PL_STUDY_WEAK ? "batch_per_gpu" : "global_batch");
    for (int i = 0; i < s->n_batches; i++)
      if (s->batches[i].kind == (enum pl_study_batch_kind)kind)
        pl_emit_int(e, NULL, s->batches[i].n);
    pl_emit_arr_end(e);
  }
  pl_emit_int(e, "seq", s->seq);
  pl_emit_str(e, "shard", pl_shard_name(s->shard));
  pl_emit_str(e, "recompute", pl_recompute_name(s->recompute));
  if (s->mbs == 0)
    pl_emit_str(e, "mbs", "auto");
  else
    pl_emit_int(e, "mbs", s->mbs);
  pl_emit_str(e, "dtype", pl_dtype_name(s->dtype));
  pl_emit_str(e, "best", s->best_space);
  char bytes[64];
  pl_fmt_double(bytes, sizeof bytes, s->coll_bytes); /* exact, so spec.json reads back the same */
  study_appendf(bytes, sizeof bytes, " B");
  pl_emit_str(e, "collective_bytes", bytes);
  pl_emit_obj_begin(e, "focus");
  pl_emit_str(e, "model", s->focus_model);
  pl_emit_str(e, "cluster", s->focus_cluster);
  pl_emit_obj_end(e);
}
