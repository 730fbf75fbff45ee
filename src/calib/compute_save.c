/* compute_save.c: a calibrated GPU file: the base GPU's own file (preset or
 * path) copied member by member, with the efficiency entries the compute fit
 * owns replaced, each naming the fit as its source (every efficiency number
 * must name one, src/hw/gpu_efficiency.c). Written atomically
 * (src/base/outfile.c). */
#include <plateau/calib_compute.h>
#include <plateau/emit.h>
#include <plateau/outfile.h>

#include <stdio.h>
#include <string.h>

#include <plateau/data.h>

#include "base/json.h"

static void copy_value(struct pl_emit *e, const char *key, yajl_val v) {
  if (YAJL_IS_STRING(v))
    pl_emit_str(e, key, YAJL_GET_STRING(v));
  else if (YAJL_IS_INTEGER(v))
    pl_emit_int(e, key, YAJL_GET_INTEGER(v));
  else if (YAJL_IS_NUMBER(v))
    pl_emit_num(e, key, YAJL_GET_DOUBLE(v));
  else if (YAJL_IS_TRUE(v))
    pl_emit_bool(e, key, true);
  else if (YAJL_IS_FALSE(v))
    pl_emit_bool(e, key, false);
  else if (YAJL_IS_OBJECT(v)) {
    pl_emit_obj_begin(e, key);
    for (size_t i = 0; i < v->u.object.len; i++)
      copy_value(e, v->u.object.keys[i], v->u.object.values[i]);
    pl_emit_obj_end(e);
  } else if (YAJL_IS_ARRAY(v)) {
    pl_emit_arr_begin(e, key);
    for (size_t i = 0; i < v->u.array.len; i++)
      copy_value(e, NULL, v->u.array.values[i]);
    pl_emit_arr_end(e);
  } else {
    pl_emit_null(e, key);
  }
}

struct ctx {
  const struct pl_gpu *g;
  const struct pl_compute_fit *fit;
  const char *note;
};

static void source(struct pl_emit *e, const struct ctx *c, enum pl_compute_param_id id,
                   const char *what) {
  const struct pl_compute_param *p = id < PL_CP_COUNT ? &c->fit->p[id] : NULL;
  char s[1024];
  if (p != NULL && p->fitted)
    snprintf(s, sizeof s,
             "plateau calibrate compute (%s): %s fitted to %lld ops (%lld kernels); relative time "
             "residual rms %.1f%%; measured %.6g s, predicted %.6g s",
             c->note, what, (long long)p->ops, (long long)p->kernels, 100 * p->rms_rel_err,
             p->measured_s, p->predicted_s);
  else
    snprintf(s, sizeof s,
             "plateau calibrate compute (%s): %s not observed in the traces; the base file's "
             "figure with its sustained fraction folded in (the same predictions)",
             c->note, what);
  pl_emit_str(e, "source", s);
}

static void number_entry(struct pl_emit *e, const struct ctx *c, const char *key, double v,
                         enum pl_compute_param_id id, const char *what) {
  pl_emit_obj_begin(e, key);
  pl_emit_num(e, "value", v);
  source(e, c, id, what);
  pl_emit_obj_end(e);
}

/* A kernel's {fwd_fraction, bwd_fraction} pair, kept from the base file
 * (PL_CP_COUNT: no trace fits it), "what" naming the kernel. */
static void fraction_pair(struct pl_emit *e, const struct ctx *c, double fwd, double bwd,
                          const char *kernel) {
  char what[96];
  snprintf(what, sizeof what, "%s forward fraction", kernel);
  number_entry(e, c, "fwd_fraction", fwd, PL_CP_COUNT, what);
  snprintf(what, sizeof what, "%s backward fraction", kernel);
  number_entry(e, c, "bwd_fraction", bwd, PL_CP_COUNT, what);
}

static void kernel_fractions(struct pl_emit *e, const struct ctx *c, const char *key, double fwd,
                             double bwd, const char *kernel) {
  pl_emit_obj_begin(e, key);
  fraction_pair(e, c, fwd, bwd, kernel);
  pl_emit_obj_end(e);
}

/* A kernel's rate by shape (docs/step-model.md 2.2): the asymptotes with the
 * sustained fraction folded in like every other rate here, the tiles' fixed
 * keys as they were. */
static void shape_object(struct pl_emit *e, const struct ctx *c, const char *key, yajl_val v,
                         double fwd, double bwd, const char *kernel) {
  pl_emit_obj_begin(e, key);
  fraction_pair(e, c, fwd, bwd, kernel);
  for (size_t j = 0; j < v->u.object.len; j++)
    if (strcmp(v->u.object.keys[j], "fwd_fraction") != 0 &&
        strcmp(v->u.object.keys[j], "bwd_fraction") != 0)
      copy_value(e, v->u.object.keys[j], v->u.object.values[j]);
  pl_emit_obj_end(e);
}

/* cuDNN's object: its fractions and, where the base file has them, its rates by
 * shape (today's, the older releases' shape_<major>_<minor> and shape_2024, and
 * shape_head_dim_64) and its SFU bound (tensor_flops_per_exp). Dropping
 * one would fall back to the constant fractions, a different model; copying an
 * older release's unscaled would run it at the burst clock (the fitted file's
 * sustained fraction is 1). */
static const struct pl_attn_cudnn_shape *release_shape(const struct pl_gpu_efficiency *f,
                                                       const char *key) {
  int64_t from = 0, through = 0;
  if (!pl_cudnn_shape_key(key, &from, &through))
    return NULL;
  for (int i = 0; i < f->attn_cudnn_version_count; i++)
    if (f->attn_cudnn_versions[i].cudnn_through == through)
      return &f->attn_cudnn_versions[i];
  return NULL;
}

static void cudnn_fractions(struct pl_emit *e, const struct ctx *c, yajl_val base) {
  const struct pl_gpu_efficiency *f = &c->g->eff;
  const struct pl_attn_cudnn_shape *rel;
  pl_emit_obj_begin(e, "cudnn");
  fraction_pair(e, c, f->attn_cudnn_fwd_fraction, f->attn_cudnn_bwd_fraction,
                "the cuDNN fused attention");
  for (size_t i = 0; i < base->u.object.len; i++) {
    const char *k = base->u.object.keys[i];
    yajl_val v = base->u.object.values[i];
    if (strcmp(k, "shape") == 0 && YAJL_IS_OBJECT(v))
      shape_object(e, c, k, v, f->attn_cudnn_shape_fwd_fraction, f->attn_cudnn_shape_bwd_fraction,
                   "the cuDNN fused attention's large-shape");
    else if ((rel = release_shape(f, k)) != NULL && YAJL_IS_OBJECT(v)) {
      /* named by its newest release: "the cuDNN 9.13 fused attention's large-shape" */
      int64_t through = rel->cudnn_through;
      char ver[16], kernel[64];
      pl_cudnn_version_str(through % 100 == 99 ? through - 99 : through, ver, sizeof ver);
      snprintf(kernel, sizeof kernel, "the cuDNN %s fused attention's large-shape", ver);
      shape_object(e, c, k, v, rel->fwd_fraction, rel->bwd_fraction, kernel);
    }
    else if (strcmp(k, "shape_head_dim_64") == 0 && YAJL_IS_OBJECT(v))
      shape_object(e, c, k, v, f->attn_cudnn_hd64_shape_fwd_fraction,
                   f->attn_cudnn_hd64_shape_bwd_fraction,
                   "the cuDNN fused attention's head-dim-64 large-shape");
    else if (strcmp(k, "tensor_flops_per_exp") == 0 && YAJL_IS_OBJECT(v))
      number_entry(e, c, k, f->attn_tensor_flops_per_exp, PL_CP_COUNT,
                   "the tensor FLOPs per exponential (over the sustained fraction)");
    else if (strcmp(k, "fwd_fraction") != 0 && strcmp(k, "bwd_fraction") != 0)
      copy_value(e, k, v);
  }
  pl_emit_obj_end(e);
}

static void rate_entry(struct pl_emit *e, const struct ctx *c, const char *key, double flops,
                       const int64_t shape[3], enum pl_compute_param_id id, const char *what) {
  char v[64], sh[96];
  snprintf(v, sizeof v, "%.4f TFLOP/s", flops / 1e12);
  snprintf(sh, sizeof sh, "%lldx%lldx%lld", (long long)shape[0], (long long)shape[1],
           (long long)shape[2]);
  pl_emit_obj_begin(e, key);
  pl_emit_str(e, "value", v);
  pl_emit_str(e, "shape", sh);
  source(e, c, id, what);
  pl_emit_obj_end(e);
}

static void gemm(struct pl_emit *e, const struct ctx *c, yajl_val base) {
  const struct pl_gpu_efficiency *f = &c->g->eff;
  pl_emit_obj_begin(e, "gemm");
  rate_entry(e, c, "mamf", f->gemm_mamf_flops_per_s, f->gemm_mamf_shape, PL_CP_GEMM_RATE,
             "the BF16 GEMM rate (as the model's rate at this shape)");
  if (f->gemm_fp8_mamf_flops_per_s > 0)
    rate_entry(e, c, "mamf_fp8", f->gemm_fp8_mamf_flops_per_s, f->gemm_fp8_mamf_shape,
               PL_CP_GEMM_FP8_RATE, "the FP8 GEMM rate");
  for (size_t i = 0; i < base->u.object.len; i++) {
    const char *k = base->u.object.keys[i];
    if (strcmp(k, "mamf") != 0 && strcmp(k, "mamf_fp8") != 0 &&
        strcmp(k, "sustained_fraction") != 0 && strcmp(k, "sustained_fraction_fp8") != 0 &&
        strcmp(k, "tile_fixed_k") != 0 &&
        strcmp(k, "mamf_is_ceiling") != 0)
      copy_value(e, k, base->u.object.values[i]);
  }
  pl_emit_obj_begin(e, "mamf_is_ceiling");
  pl_emit_bool(e, "value", false);
  pl_emit_str(e, "source", "plateau calibrate compute: the fitted rate anchors the model at the "
                           "MAMF shape; it is not the best rate of a shape search");
  pl_emit_obj_end(e);
  pl_emit_obj_begin(e, "sustained_fraction");
  pl_emit_num(e, "value", 1.0);
  pl_emit_str(e, "source", "plateau calibrate compute: the fitted rates are those the traces' "
                           "kernels ran at, so no further sustained-clock fraction applies");
  pl_emit_obj_end(e);
  number_entry(e, c, "tile_fixed_k", f->gemm_tile_fixed_k, PL_CP_GEMM_FIXED_K,
               "each output tile's fixed cost in K elements");
  pl_emit_obj_end(e);
}

static void attention(struct pl_emit *e, const struct ctx *c, yajl_val base) {
  const struct pl_gpu_efficiency *f = &c->g->eff;
  pl_emit_obj_begin(e, "attention");
  for (size_t i = 0; i < base->u.object.len; i++) {
    const char *k = base->u.object.keys[i];
    yajl_val v = base->u.object.values[i];
    if (strcmp(k, "fwd_fraction") == 0)
      number_entry(e, c, k, f->attn_fwd_fraction, PL_CP_ATTN_FWD,
                   "the causal attention forward rate over peak");
    else if (strcmp(k, "bwd_fraction") == 0)
      number_entry(e, c, k, f->attn_bwd_fraction, PL_CP_ATTN_BWD,
                   "the causal attention backward rate over peak");
    else if (strcmp(k, "triton") == 0 && YAJL_IS_OBJECT(v))
      kernel_fractions(e, c, k, f->attn_triton_fwd_fraction, f->attn_triton_bwd_fraction,
                       "the Triton FlashAttention");
    else if (strcmp(k, "cudnn") == 0 && YAJL_IS_OBJECT(v))
      cudnn_fractions(e, c, v);
    else if (strcmp(k, "shape") == 0 && YAJL_IS_OBJECT(v)) {
      /* FlashAttention-2's rate by shape, left out when the fit measured the
       * kernel's fractions from the trace (compute_fit.c drops it then) */
      if (f->attn_shape_fwd_fraction > 0)
        shape_object(e, c, k, v, f->attn_shape_fwd_fraction, f->attn_shape_bwd_fraction,
                     "the FlashAttention-2 large-shape");
    } else if (strcmp(k, "shape_head_dim_64") == 0 && YAJL_IS_OBJECT(v)) {
      if (f->attn_hd64_shape_fwd_fraction > 0) /* likewise */
        shape_object(e, c, k, v, f->attn_hd64_shape_fwd_fraction, f->attn_hd64_shape_bwd_fraction,
                     "the FlashAttention-2 head-dim-64 large-shape");
    } else
      copy_value(e, k, v);
  }
  pl_emit_obj_end(e);
}

static void efficiency(struct pl_emit *e, const struct ctx *c, yajl_val base) {
  pl_emit_obj_begin(e, "efficiency");
  for (size_t i = 0; i < base->u.object.len; i++) {
    const char *k = base->u.object.keys[i];
    yajl_val v = base->u.object.values[i];
    if (strcmp(k, "gemm") == 0 && YAJL_IS_OBJECT(v))
      gemm(e, c, v);
    else if (strcmp(k, "attention") == 0 && YAJL_IS_OBJECT(v))
      attention(e, c, v);
    else if (strcmp(k, "hbm_fraction") == 0)
      number_entry(e, c, k, c->g->eff.hbm_fraction, PL_CP_HBM,
                   "achieved over datasheet HBM bandwidth of memory-bound ops >= 8 MiB");
    else
      copy_value(e, k, v);
  }
  pl_emit_obj_end(e);
}

static void document(struct pl_emit *e, const struct ctx *c, yajl_val doc) {
  pl_emit_obj_begin(e, NULL);
  for (size_t i = 0; i < doc->u.object.len; i++) {
    const char *k = doc->u.object.keys[i];
    yajl_val v = doc->u.object.values[i];
    if (strcmp(k, "efficiency") == 0 && YAJL_IS_OBJECT(v)) {
      efficiency(e, c, v);
    } else if (strcmp(k, "description") == 0 && YAJL_IS_STRING(v)) {
      /* the loader takes up to 127 characters; the traces are named in each source */
      char d[128];
      snprintf(d, sizeof d, "%.113s (calibrated)", YAJL_GET_STRING(v));
      pl_emit_str(e, k, d);
    } else {
      copy_value(e, k, v);
    }
  }
  pl_emit_obj_end(e);
}

/* The base GPU's document: an embedded preset by name, else a file. */
static enum pl_status open_base(const char *name_or_path, yajl_val *doc, struct pl_diag *diag) {
  size_t len = 0;
  const char *text = pl_data_find("gpus", name_or_path, &len);
  if (text != NULL)
    return base_json_parse(text, len, name_or_path, doc, diag);
  return base_json_load(name_or_path, doc, diag);
}

enum pl_status pl_calib_compute_save(const char *base_name_or_path, const struct pl_gpu *fitted,
                                     const struct pl_compute_fit *fit, const char *note,
                                     const char *path, struct pl_diag *diag) {
  yajl_val doc = NULL;
  enum pl_status st = open_base(base_name_or_path, &doc, diag);
  if (st != PL_OK)
    return st;
  struct pl_outfile o;
  st = pl_outfile_open(&o, path, diag);
  if (st != PL_OK) {
    base_json_free(doc);
    return st;
  }
  struct pl_emit *e = pl_emit_open(o.f);
  if (e == NULL) {
    base_json_free(doc);
    return pl_outfile_commit(&o, pl_diag_set(diag, PL_ERR_NOMEM, "%s: out of memory", path), diag);
  }
  struct ctx c = {fitted, fit, note != NULL ? note : ""};
  document(e, &c, doc);
  base_json_free(doc);
  st = pl_emit_close(e, diag);
  if (st == PL_OK && fputc('\n', o.f) == EOF)
    st = pl_diag_set(diag, PL_ERR_IO, "%s: write failed", path);
  return pl_outfile_commit(&o, st, diag);
}
