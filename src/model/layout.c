/* layout.c: resolve a partly given parallel layout into a complete one, and
 * reject layouts that cannot run. The divisibility rules are Megatron-LM's
 * (arguments.py): tp divides attention heads, KV heads (query groups) and the
 * FFN width; interleaving needs layers divisible by pp*vp and micro-batches
 * divisible by pp; context parallelism splits each sequence into 2*cp chunks
 * for causal load balance (Megatron/TransformerEngine CP). Uneven pipeline
 * stages are allowed for 1f1b/gpipe: the busiest stage holds ceil(l/pp). */
#include <plateau/layout.h>

#include <string.h>

static const char *const shard_names[] = {"ddp", "zero1", "zero2", "zero3"};
static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const schedule_names[] = {"1f1b", "interleaved", "gpipe"};
static const char *const dtype_names[] = {"bf16", "fp8"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *pl_shard_name(enum pl_shard s) { return shard_names[s]; }
const char *pl_recompute_name(enum pl_recompute r) { return recompute_names[r]; }
const char *pl_schedule_name(enum pl_schedule s) { return schedule_names[s]; }
const char *pl_dtype_name(enum pl_dtype d) { return dtype_names[d]; }

static enum pl_status parse_name(const char *s, const char *const *names, size_t n,
                                 const char *what, int *out, struct pl_diag *diag) {
  for (size_t i = 0; i < n; i++) {
    if (s != NULL && strcmp(s, names[i]) == 0) {
      *out = (int)i;
      return PL_OK;
    }
  }
  char list[128] = "";
  for (size_t i = 0; i < n; i++) {
    strncat(list, names[i], sizeof list - strlen(list) - 1);
    if (i + 1 < n)
      strncat(list, "|", sizeof list - strlen(list) - 1);
  }
  return pl_diag_set(diag, PL_ERR_UNKNOWN, "unknown %s '%s' (expected %s)", what, s ? s : "",
                     list);
}

enum pl_status pl_shard_parse(const char *s, enum pl_shard *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, shard_names, N_OF(shard_names), "shard mode", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_shard)v;
  return st;
}

enum pl_status pl_recompute_parse(const char *s, enum pl_recompute *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, recompute_names, N_OF(recompute_names), "recompute mode", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_recompute)v;
  return st;
}

enum pl_status pl_schedule_parse(const char *s, enum pl_schedule *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, schedule_names, N_OF(schedule_names), "pipeline schedule", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_schedule)v;
  return st;
}

enum pl_status pl_dtype_parse(const char *s, enum pl_dtype *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, dtype_names, N_OF(dtype_names), "dtype", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_dtype)v;
  return st;
}

static int64_t or_default(int64_t v, int64_t def) { return v > 0 ? v : def; }

/* Limits: PL_LAYOUT_MAX_* (layout.h, docs/limits.md). */
#define LAYOUT_MAX_GPUS PL_LAYOUT_MAX_GPUS
#define LAYOUT_MAX_BATCH PL_LAYOUT_MAX_BATCH
#define LAYOUT_MAX_SEQ PL_LAYOUT_MAX_SEQ

static enum pl_status too_big(struct pl_diag *diag, const char *what, int64_t v, int64_t max) {
  return pl_diag_set(diag, PL_ERR_LIMIT, "layout: %s %lld is more than the limit %lld", what,
                     (long long)v, (long long)max);
}

/* Range checks before any product is formed. */
static enum pl_status check_counts(const struct pl_layout *l, int64_t per_node,
                                   struct pl_diag *diag) {
  if (l->gpus > LAYOUT_MAX_GPUS)
    return too_big(diag, "gpus", l->gpus, LAYOUT_MAX_GPUS);
  if (l->gpus <= 0 && l->nodes > LAYOUT_MAX_GPUS / per_node)
    return too_big(diag, "nodes", l->nodes, LAYOUT_MAX_GPUS / per_node);
  const struct {
    const char *name;
    int64_t v, max;
  } c[] = {{"gbs", l->gbs, LAYOUT_MAX_BATCH},
           {"batch per gpu", l->batch_per_gpu, LAYOUT_MAX_BATCH},
           {"mbs", l->mbs, LAYOUT_MAX_BATCH},
           {"seq", l->seq, LAYOUT_MAX_SEQ},
           {"tp", l->tp, LAYOUT_MAX_GPUS},
           {"pp", l->pp, LAYOUT_MAX_GPUS},
           {"cp", l->cp, LAYOUT_MAX_GPUS},
           {"vp", l->vp, LAYOUT_MAX_GPUS},
           {"shard group", l->shard_group, LAYOUT_MAX_GPUS}};
  for (size_t i = 0; i < N_OF(c); i++)
    if (c[i].v > c[i].max)
      return too_big(diag, c[i].name, c[i].v, c[i].max);
  return PL_OK;
}

/* Degrees and world size: dp = gpus / (tp * pp * cp). */
static enum pl_status resolve_degrees(struct pl_layout *l, const struct pl_model *m,
                                      const struct pl_cluster *c, struct pl_diag *diag) {
  int64_t per_node = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
  enum pl_status st = check_counts(l, per_node, diag);
  if (st != PL_OK)
    return st;
  if (l->gpus <= 0)
    l->gpus = l->nodes > 0 ? l->nodes * per_node : per_node;
  l->nodes = (l->gpus + per_node - 1) / per_node;
  l->tp = or_default(l->tp, 1);
  l->pp = or_default(l->pp, 1);
  l->cp = or_default(l->cp, 1);
  if (m->heads % l->tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout tp=%lld: tp must divide attention heads (%lld)",
                       (long long)l->tp, (long long)m->heads);
  if (m->kv_heads % l->tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout tp=%lld: tp must divide KV heads (%lld)",
                       (long long)l->tp, (long long)m->kv_heads);
  if (m->ffn_hidden % l->tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout tp=%lld: tp must divide the FFN width (%lld)",
                       (long long)l->tp, (long long)m->ffn_hidden);
  if (l->pp > m->layers)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout pp=%lld: more pipeline stages than layers (%lld)",
                       (long long)l->pp, (long long)m->layers);
  int64_t model_par = l->tp * l->pp * l->cp;
  if (l->gpus % model_par != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: %lld GPUs are not divisible by tp*pp*cp = %lld*%lld*%lld = %lld",
                       (long long)l->gpus, (long long)l->tp, (long long)l->pp, (long long)l->cp,
                       (long long)model_par);
  l->dp = l->gpus / model_par;
  return PL_OK;
}

static enum pl_status resolve_sharding(struct pl_layout *l, struct pl_diag *diag) {
  if (!l->shard_set && l->shard == PL_SHARD_DDP)
    l->shard = PL_SHARD_ZERO2;
  if (l->shard == PL_SHARD_DDP) {
    if (l->shard_group > 1)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: --shard-group needs a ZeRO/FSDP shard mode, not ddp");
    l->shard_group = 1;
    return PL_OK;
  }
  /* One process group for gathers and reduce_scatters unless told otherwise
   * (layout.h, fsdp_one_comm) */
  if (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3)
    l->fsdp_one_comm = l->fsdp_one_comm || !l->fsdp_separate_comms;
  else
    l->fsdp_one_comm = false;
  l->shard_group = or_default(l->shard_group, l->dp);
  if (l->dp % l->shard_group != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: shard group %lld must divide the data-parallel degree %lld",
                       (long long)l->shard_group, (long long)l->dp);
  return PL_OK;
}

static enum pl_status resolve_batch(struct pl_layout *l, const struct pl_model *m,
                                    struct pl_diag *diag) {
  l->seq = or_default(l->seq, m->seq_len);
  if (m->pos == PL_POS_LEARNED && m->max_positions > 0 && l->seq > m->max_positions)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: seq %lld exceeds the model's %lld learned positions",
                       (long long)l->seq, (long long)m->max_positions);
  if (l->seq % (l->cp > 1 ? 2 * l->cp : 1) != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout cp=%lld: seq %lld must be divisible by 2*cp (causal load balancing)",
                       (long long)l->cp, (long long)l->seq);
  l->mbs = or_default(l->mbs, 1);
  if (l->gbs <= 0)
    l->gbs = or_default(l->batch_per_gpu, 1) * l->gpus;
  if (l->gbs > LAYOUT_MAX_BATCH) /* batch_per_gpu * gpus */
    return too_big(diag, "gbs", l->gbs, LAYOUT_MAX_BATCH);
  if (l->gbs % (l->dp * l->mbs) != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: global batch %lld is not divisible by dp*mbs = %lld*%lld",
                       (long long)l->gbs, (long long)l->dp, (long long)l->mbs);
  l->micro_batches = l->gbs / (l->dp * l->mbs);
  return PL_OK;
}

static enum pl_status resolve_schedule(struct pl_layout *l, const struct pl_model *m,
                                       struct pl_diag *diag) {
  l->vp = or_default(l->vp, 1);
  if (l->vp > 1 && l->schedule == PL_SCHEDULE_1F1B)
    l->schedule = PL_SCHEDULE_INTERLEAVED;
  if (l->schedule != PL_SCHEDULE_INTERLEAVED) {
    if (l->vp > 1)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: vp=%lld needs the interleaved schedule",
                         (long long)l->vp);
    return PL_OK;
  }
  if (l->pp < 2)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: the interleaved schedule needs pp >= 2");
  if (l->vp < 2)
    l->vp = 2;
  if (m->layers % (l->pp * l->vp) != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: interleaving needs layers (%lld) divisible by pp*vp = %lld",
                       (long long)m->layers, (long long)(l->pp * l->vp));
  if (l->micro_batches % l->pp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: interleaving needs micro-batches (%lld) divisible by pp (%lld)",
                       (long long)l->micro_batches, (long long)l->pp);
  return PL_OK;
}

/* FP8 GEMMs need FP8 tensor cores: a GPU file without a peak_fp8 rate (V100,
 * A100: the A100 datasheet lists no FP8) cannot run --dtype fp8; predicting it
 * would divide by a zero peak (MFU 0.0 %). */
static enum pl_status check_dtype(const struct pl_layout *l, const struct pl_cluster *c,
                                  struct pl_diag *diag) {
  if (l->dtype != PL_DTYPE_FP8 || c->gpu.peak_fp8_flops_per_s > 0)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: dtype fp8 needs FP8 tensor cores, which gpu '%s' lacks (its file "
                     "gives no peak_fp8); use --dtype bf16",
                     c->gpu.name);
}

enum pl_status pl_layout_resolve(struct pl_layout *l, const struct pl_model *m,
                                 const struct pl_cluster *c, struct pl_diag *diag) {
  enum pl_status st = check_dtype(l, c, diag);
  if (st == PL_OK)
    st = resolve_degrees(l, m, c, diag);
  if (st == PL_OK)
    st = resolve_sharding(l, diag);
  if (st == PL_OK)
    st = resolve_batch(l, m, diag);
  if (st == PL_OK)
    st = resolve_schedule(l, m, diag);
  l->sp = l->tp > 1 && !l->no_sp;
  return st;
}
