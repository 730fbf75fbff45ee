/* row.c: one published record -> the struct pl_run plateau predicts.
 *
 * The common columns of data/validation/README.md give the model dimensions,
 * the hardware and the layout. What a row leaves empty is filled by a rule
 * of its source (sources.c) or by the generic rules below, and every
 * filled field is written to row->assumed, so the output says what was not
 * published. Rules (docs/accuracy.md, "How rows become runs"):
 *   - model: decoder-only, GELU MLP, LayerNorm, tied embeddings (every source
 *     here is GPT-2/3 style, BLOOM or MPT); positions, biases and dropout per
 *     source; ffn_hidden empty = 4 h; kv_heads empty = heads (MHA); Megatron
 *     sources pad the vocabulary to a multiple of 128 tp (Megatron-LM
 *     --make-vocab-size-divisible-by 128, times tp).
 *   - hardware: the GPU string maps to a GPU preset and the DGX-class cluster
 *     whose fabric matches best (table below), or the cluster preset of a
 *     fabric the string names (Omni-Path: jean-zay-a100; AWS p4de: aws-p4de);
 *     any other mismatch the string reveals (RoCE, DGX-2) is noted, never
 *     corrected.
 *   - layout: tp, pp empty = 1 (noted); cp empty = 1 (context parallelism did
 *     not exist in these stacks); a stated dp must equal gpus / (tp pp cp).
 * Nothing here adjusts a prediction: only the run's description is built. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/units.h>

#include "validate/validate_int.h"

void validate_note(struct pl_vrow *row, const char *fmt, ...) {
  size_t used = strlen(row->assumed);
  if (used > 0 && used + 2 < sizeof row->assumed) {
    memcpy(row->assumed + used, "; ", 3);
    used += 2;
  }
  if (used + 1 >= sizeof row->assumed)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(row->assumed + used, sizeof row->assumed - used, fmt, ap);
  va_end(ap);
}

bool validate_skip(struct pl_vrow *row, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(row->skipped_reason, sizeof row->skipped_reason, fmt, ap);
  va_end(ap);
  row->skipped = true;
  return false;
}

bool validate_row_preset(const char *name, struct pl_framework *fw, struct pl_vrow *row) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_preset(name, fw, &d) != PL_OK)
    return validate_skip(row, "framework preset: %s", d.msg);
  snprintf(row->framework, sizeof row->framework, "%s", name);
  return true;
}

enum pl_status validate_num(const char *cell, double *out, bool *present) {
  char buf[64];
  size_t n = strlen(cell);
  while (n > 0 && isspace((unsigned char)cell[n - 1]))
    n--;
  while (n > 0 && isspace((unsigned char)*cell)) {
    cell++;
    n--;
  }
  /* a trailing percent sign or footnote mark ("44%", "2560*") */
  while (n > 0 && (cell[n - 1] == '%' || cell[n - 1] == '*'))
    n--;
  *present = n > 0;
  if (n == 0)
    return PL_OK;
  if (n >= sizeof buf)
    return PL_ERR_PARSE;
  memcpy(buf, cell, n);
  buf[n] = '\0';
  return pl_double_parse(buf, out, NULL);
}

enum pl_status validate_int(const char *cell, int64_t *out, bool *present) {
  double v = 0;
  enum pl_status st = validate_num(cell, &v, present);
  if (st != PL_OK || !*present)
    return st;
  if (!(v >= 1 && v <= 9e15) || v != (double)(int64_t)v)
    return PL_ERR_RANGE;
  *out = (int64_t)v;
  return PL_OK;
}

/* Lowercase letters and digits of s only: "FSDP FULL_SHARD" -> "fsdpfullshard". */
static void squash(const char *s, char *out, size_t n) {
  size_t j = 0;
  for (; *s != '\0' && j + 1 < n; s++)
    if (isalnum((unsigned char)*s))
      out[j++] = (char)tolower((unsigned char)*s);
  out[j] = '\0';
}

void validate_squash(const char *s, char *out, size_t n) {
  squash(s, out, n);
}

/* An integer column: stated (true), or empty (false, *out untouched). A
 * malformed value skips the row. */
static bool int_col(const struct validate_in *in, const char *col, int64_t *out, bool *ok,
                    struct pl_vrow *row) {
  bool present = false;
  if (validate_int(cell(in, col), out, &present) != PL_OK) {
    *ok = validate_skip(row, "column '%s': '%s' is not a positive integer", col, cell(in, col));
    return false;
  }
  return present;
}

/* ---------------------------------------------------------------- model */

/* The dimension columns, unless the source's model rule filled them
 * (m->layers set); then the sequence length, always from its column. */
static bool column_dims(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  bool ok = true;
  bool have = int_col(in, "layers", &m->layers, &ok, row);
  have = int_col(in, "hidden", &m->hidden, &ok, row) && have;
  have = int_col(in, "heads", &m->heads, &ok, row) && have;
  if (!ok)
    return false;
  if (!have)
    return validate_skip(row, "model dimensions not stated (layers, hidden, heads)");
  if (!int_col(in, "kv_heads", &m->kv_heads, &ok, row)) {
    m->kv_heads = m->heads;
    validate_note(row, "kv_heads=heads (MHA)");
  }
  if (!int_col(in, "ffn_hidden", &m->ffn_hidden, &ok, row)) {
    m->ffn_hidden = 4 * m->hidden;
    validate_note(row, "ffn_hidden=4h");
  }
  return ok;
}

static bool model_dims(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  bool ok = true;
  if (m->layers == 0 && !column_dims(in, m, row))
    return false;
  if (!int_col(in, "seq_len", &m->seq_len, &ok, row))
    return ok ? validate_skip(row, "sequence length not stated") : false;
  if (m->head_dim > 0) /* a preset's own head width (Qwen3: 128 with hidden/heads 64) */
    return ok;
  if (m->hidden % m->heads != 0)
    return validate_skip(row, "hidden %lld is not a multiple of heads %lld", (long long)m->hidden,
                         (long long)m->heads);
  m->head_dim = m->hidden / m->heads;
  return ok;
}

static bool model_vocab(const struct validate_source *src, const struct validate_in *in, int64_t tp,
                        struct pl_model *m, struct pl_vrow *row) {
  bool ok = true;
  if (m->vocab == 0 && !int_col(in, "vocab", &m->vocab, &ok, row)) {
    if (!ok)
      return false;
    if (src->vocab_default == 0)
      return validate_skip(row, "vocabulary size not stated");
    m->vocab = src->vocab_default;
    validate_note(row, "vocab=%lld (%s)", (long long)m->vocab, src->vocab_why);
  }
  if (src->megatron_vocab_pad) {
    int64_t div = src->vocab_divisor > 0 ? src->vocab_divisor : MEGATRON_VOCAB_DIVISOR;
    int64_t mult = div * tp, padded = (m->vocab + mult - 1) / mult * mult;
    if (padded != m->vocab)
      validate_note(row, "vocab %lld padded to %lld (Megatron: multiple of %lld tp)",
                    (long long)m->vocab, (long long)padded, (long long)div);
    m->vocab = padded;
  }
  return true;
}

static bool row_model(const struct validate_source *src, const struct validate_in *in, int64_t tp,
                      struct pl_model *m, struct pl_vrow *row) {
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", cell(in, "model"));
  m->mlp = PL_MLP_GELU;
  m->norm = PL_NORM_LAYER;
  m->pos = src->pos;
  m->tied_embeddings = true;
  m->linear_bias = src->linear_bias;
  m->dropout = src->dropout;
  if (src->model != NULL && !src->model(in, m, row))
    return false;
  if (!model_dims(in, m, row) || !model_vocab(src, in, tp, m, row))
    return false;
  m->max_positions = m->pos == PL_POS_LEARNED ? m->seq_len : 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_model_check(m, &d) != PL_OK)
    return validate_skip(row, "%s", d.msg);
  return true;
}

/* ------------------------------------------------------------- hardware */

/* GPU strings as the sources print them -> presets. Every needle must occur
 * in the squashed string; the first matching entry wins. Names only: every
 * number comes from the presets in data/. */
static const struct hw_map {
  const char *needles[2];
  const char *gpu;
  const char *cluster;
  const char *note; /* said in row->assumed, NULL for an exact match */
} hw_maps[] = {
    {{"a100", "80gb"}, "a100-80g", "dgx-a100", NULL},
    {{"a100", "40gb"}, "a100-40g", "dgx-a100", NULL},
    {{"a100", NULL},
     "a100-40g",
     "dgx-a100",
     "A100 memory not stated: 40 GB, the only DGX A100 GPU before November 2020"},
    {{"h100", NULL}, "h100", "dgx-h100", NULL},
    {{"h200", NULL}, "h200", "dgx-h200", NULL},
    /* Blackwell racks and Blackwell Ultra before "b200" ("gb200" contains it):
     * Megatron-Bridge's "DGX-GB200", "DGX-GB300", "DGX-B300"; the Megatron MoE
     * model zoo's "GB200 (readme: NVLink domain size 72 ...)". "gb300" first:
     * the zoo's GB300 rows name the launcher's GB200_CLUSTER=1 setting too
     * ("GB300 (readme: ... sbatch_benchmarking.sh GB200_CLUSTER=1)") */
    {{"gb300", NULL}, "gb300", "gb300-nvl72", NULL},
    {{"gb200", NULL}, "gb200", "gb200-nvl72", NULL},
    {{"b300", NULL}, "b300", "dgx-b300", NULL},
    /* MLPerf v4.1's preview "NVIDIA Blackwell GPU (B200-SXM-180GB)"; NeMo's "B200 (DGX-B200)" */
    {{"b200", NULL}, "b200", "dgx-b200", NULL},
    {{"v100", NULL}, "v100", "dgx-v100", NULL},
};

/* Fabric words in the GPU string that name a cluster with its own preset
 * (a per-fabric constant, never a per-row one): that preset replaces the
 * DGX-class default for the GPU. */
static const struct {
  const char *needle;
  const char *gpu;
  const char *cluster;
} fabric_clusters[] = {
    /* BLOOM on Jean Zay: 4 x 100 Gb/s Omni-Path per 8-GPU node */
    {"omnipath", "a100-80g", "jean-zay-a100"},
    /* AWS p4de.24xlarge: 8 A100 80 GB, 4 x 100 Gb/s EFA per node (torchtitan's
     * 2024-04 A100 runs: its multinode_trainer.slurm @ 1ea476e9f is "optimized
     * for AWS with EFA", FI_PROVIDER=efa "Enable for A100") */
    {"p4de", "a100-80g", "aws-p4de"},
};

/* Fabric words in the GPU string that the chosen cluster preset does not
 * describe: said, not corrected. */
static const struct {
  const char *needle;
  const char *note;
} fabric_notes[] = {
    {"roce", "row's inter-node fabric is RoCE; the preset's InfiniBand figures are used"},
    {"dgx2", "DGX-2 (16 GPUs on NVSwitch) approximated by the preset's 8-GPU node"},
    {"mosaicml", "MosaicML platform fabric not stated; the preset's is used"},
};

/* validate --cluster / --gpu (struct pl_vhardware): the row's GPU (preset
 * name gpu) must be the one the what-if gives, which then replaces the
 * presets the row would load; *c takes the what-if cluster when one is
 * given. The note says what ran. */
static bool whatif_machine(const struct pl_vhardware *wi, const char *gpu, struct pl_cluster *c,
                           struct pl_vrow *row) {
  bool have_c = wi->cluster_arg[0] != '\0', have_g = wi->gpu_arg[0] != '\0';
  const char *held = have_g ? wi->gpu.name : have_c ? wi->cluster.gpu.name : gpu;
  if (strcmp(held, gpu) != 0)
    return validate_skip(row, "validate --%s '%.60s' is %s %s; the row ran on %s (validate its "
                         "rows apart)", have_g ? "gpu" : "cluster",
                         have_g ? wi->gpu_arg : wi->cluster_arg, have_g ? "GPU" : "a cluster of",
                         held, gpu);
  if (have_c)
    *c = wi->cluster;
  if (have_c || have_g)
    validate_note(row, "what-if:%s%.60s%s%.60s (validate --cluster/--gpu)", have_c ? " cluster " : "",
                  have_c ? wi->cluster_arg : "", have_g ? " gpu " : "", have_g ? wi->gpu_arg : "");
  return true;
}

static bool row_hardware(const struct validate_source *src, const struct validate_in *in,
                         const struct pl_layout *l, struct pl_cluster *c, struct pl_vrow *row) {
  char s[256];
  squash(cell(in, "gpu"), s, sizeof s);
  const struct hw_map *hw = NULL;
  for (size_t i = 0; i < sizeof hw_maps / sizeof hw_maps[0] && hw == NULL; i++)
    if (strstr(s, hw_maps[i].needles[0]) != NULL &&
        (hw_maps[i].needles[1] == NULL || strstr(s, hw_maps[i].needles[1]) != NULL))
      hw = &hw_maps[i];
  if (hw == NULL)
    return validate_skip(row, "gpu '%s' has no preset mapping", cell(in, "gpu"));
  const char *cluster = hw->cluster, *gpu = hw->gpu;
  /* the memory size left open: the source's own choice, when it has one */
  if (hw->note != NULL && src->unstated_gpu != NULL)
    gpu = src->unstated_gpu;
  for (size_t i = 0; i < sizeof fabric_clusters / sizeof fabric_clusters[0]; i++)
    if (strstr(s, fabric_clusters[i].needle) != NULL &&
        strcmp(gpu, fabric_clusters[i].gpu) == 0)
      cluster = fabric_clusters[i].cluster;
  /* the source's own machine (a per-source hardware description, never a
   * per-row one): its preset names the GPU it holds */
  if (src->cluster != NULL && strcmp(cluster, hw->cluster) == 0) {
    struct pl_cluster own_c;
    struct pl_diag od;
    pl_diag_clear(&od);
    enum pl_status ost = pl_cluster_load(src->cluster, &own_c, &od);
    if (ost != PL_OK) {
      if (ost == PL_ERR_NOMEM)
        *in->fatal = ost;
      return validate_skip(row, "cluster preset: %s", od.msg);
    }
    if (strcmp(own_c.gpu.name, gpu) == 0)
      cluster = src->cluster; /* the row's cluster column names it */
  }
  struct pl_diag d;
  pl_diag_clear(&d);
  const struct pl_vhardware *wi = in->hardware; /* validate's hardware what-if */
  if (wi != NULL && !whatif_machine(wi, gpu, c, row))
    return false;
  enum pl_status st = PL_OK;
  if (wi != NULL && wi->cluster_arg[0] != '\0')
    cluster = c->name;
  else if ((st = pl_cluster_load(cluster, c, &d)) != PL_OK) {
    if (st == PL_ERR_NOMEM)
      *in->fatal = st;
    return validate_skip(row, "cluster preset: %s", d.msg);
  }
  if (wi != NULL && wi->gpu_arg[0] != '\0') {
    c->gpu = wi->gpu;
    snprintf(c->gpu_name, sizeof c->gpu_name, "%s", gpu);
  } else if (strcmp(c->gpu.name, gpu) != 0) {
    if ((st = pl_gpu_load(gpu, &c->gpu, &d)) != PL_OK) {
      if (st == PL_ERR_NOMEM)
        *in->fatal = st;
      return validate_skip(row, "gpu preset: %s", d.msg);
    }
    snprintf(c->gpu_name, sizeof c->gpu_name, "%s", gpu);
  }
  snprintf(row->gpu, sizeof row->gpu, "%s", gpu);
  snprintf(row->cluster, sizeof row->cluster, "%s", cluster);
  if (hw->note != NULL)
    validate_note(row, "%s", src->gpu_unstated_note != NULL ? src->gpu_unstated_note : hw->note);
  for (size_t i = 0; i < sizeof fabric_notes / sizeof fabric_notes[0]; i++)
    if (strstr(s, fabric_notes[i].needle) != NULL)
      validate_note(row, "%s", fabric_notes[i].note);
  if (src->hardware != NULL)
    src->hardware(in, l, c, row);
  if (wi != NULL && !row->skipped && validate_whatif_flags(wi, c, &d) != PL_OK)
    return validate_skip(row, "validate what-if: %s", d.msg);
  char text[512] = "";
  for (size_t i = 0, at = 0; wi != NULL && i < wi->n_flags && at < sizeof text; i++)
    at += (size_t)snprintf(text + at, sizeof text - at, " --%s %s", wi->flag_name[i],
                           wi->flag_value[i]);
  if (text[0] != '\0')
    validate_note(row, "what-if flags (validate):%s", text);
  return !row->skipped; /* a hardware rule may skip the row (a limit the GPU cannot take) */
}

/* --------------------------------------------------------------- layout */

static bool parse_shard(const char *text, enum pl_shard *out) {
  char s[256];
  squash(text, s, sizeof s);
  if (strstr(s, "fullshard") || strstr(s, "zero3") || strstr(s, "zerostage3") ||
      strstr(s, "fullyshardeddataparallel"))
    *out = PL_SHARD_ZERO3;
  else if (strstr(s, "shardgradop") || strstr(s, "zero2") || strstr(s, "zerostage2"))
    *out = PL_SHARD_ZERO2;
  else if (strstr(s, "zero1") || strstr(s, "zerostage1"))
    *out = PL_SHARD_ZERO1;
  /* Megatron's distributed optimizer (--use-distributed-optimizer, NeMo's
   * USE_DIST_OPTIMIZER): optimizer states sharded over the data-parallel
   * group, gradients reduce_scattered, parameters all_gathered: ZeRO-1 as
   * layout.h models it (Megatron-LM docs/distrib_optimizer.md) */
  else if (strstr(s, "distributedoptimizer"))
    *out = PL_SHARD_ZERO1;
  else if (strncmp(s, "none", 4) == 0)
    *out = PL_SHARD_DDP;
  else
    return false;
  return true;
}

static bool parse_recompute(const char *text, enum pl_recompute *out) {
  char s[256];
  squash(text, s, sizeof s);
  if (strstr(s, "selective"))
    *out = PL_RECOMPUTE_SELECTIVE;
  else if (strncmp(s, "full", 4) == 0)
    *out = PL_RECOMPUTE_FULL;
  else if (strncmp(s, "none", 4) == 0 || strstr(s, "granularitynull") != NULL)
    *out = PL_RECOMPUTE_NONE; /* NeMo activations_checkpoint_granularity null: none */
  /* Megatron-DeepSpeed --checkpoint-activations (vTrain's use_checkpoint):
   * every layer checkpointed, recomputed in full */
  else if (strncmp(s, "activationcheckpointing", 23) == 0)
    *out = PL_RECOMPUTE_FULL;
  else
    return false;
  return true;
}

/* The sharding and recompute words every source's rows use, for a source's
 * own modes rule (source_generic.c). */
bool validate_parse_shard(const char *text, enum pl_shard *out) {
  return parse_shard(text, out);
}

bool validate_parse_recompute(const char *text, enum pl_recompute *out) {
  return parse_recompute(text, out);
}

/* A degree column: stated, or 1 (noted when say is true). */
static bool degree(const struct validate_in *in, const char *col, bool say, int64_t *out,
                   struct pl_vrow *row) {
  bool ok = true;
  if (!int_col(in, col, out, &ok, row)) {
    *out = 1;
    if (ok && say)
      validate_note(row, "%s=1 (not stated)", col);
  }
  return ok;
}

static bool layout_degrees(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  bool ok = true;
  if (!int_col(in, "num_gpus", &l->gpus, &ok, row))
    return ok ? validate_skip(row, "GPU count not stated") : false;
  int64_t vp = 1;
  if (!degree(in, "tp", true, &l->tp, row) || !degree(in, "pp", true, &l->pp, row) ||
      !degree(in, "cp", false, &l->cp, row) || !degree(in, "vp", false, &vp, row))
    return false;
  if (vp > 1) {
    l->vp = vp;
    l->schedule = PL_SCHEDULE_INTERLEAVED;
  }
  return true;
}

/* A stated dp must agree with the GPU count ([consistency check] rows). */
static bool check_dp(const struct validate_in *in, const struct pl_layout *l, struct pl_vrow *row) {
  bool ok = true;
  int64_t dp = 0;
  if (int_col(in, "dp", &dp, &ok, row) && dp * l->tp * l->pp * l->cp != l->gpus)
    return validate_skip(row, "dp %lld x tp %lld x pp %lld x cp %lld != %lld GPUs", (long long)dp,
                         (long long)l->tp, (long long)l->pp, (long long)l->cp, (long long)l->gpus);
  return ok;
}

static bool layout_batch(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  bool ok = true;
  int_col(in, "micro_batch", &l->mbs, &ok, row); /* 0 = not stated: the source decides */
  if (ok && !int_col(in, "global_batch", &l->gbs, &ok, row))
    return ok ? validate_skip(row, "global batch not stated") : false;
  return ok;
}

static bool layout_modes(const struct validate_source *src, const struct validate_in *in,
                         struct pl_layout *l, struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  l->shard = PL_SHARD_DDP;
  l->shard_set = true;
  if (src->modes != NULL) {
    if (!src->modes(in, l, row))
      return false;
  } else if (shard[0] != '\0' && !parse_shard(shard, &l->shard)) {
    return validate_skip(row, "sharding '%s' not understood", shard);
  } else if (rc[0] != '\0' && !parse_recompute(rc, &l->recompute)) {
    return validate_skip(row, "recompute '%s' not understood", rc);
  }
  /* Sequence parallelism: the recompute column of Korthikanti et al. says
   * it per row; otherwise the source's software decides. */
  if (strstr(rc, "no sequence parallelism") != NULL)
    l->no_sp = true;
  else if (strstr(rc, "sequence parallelism") != NULL)
    l->no_sp = false;
  else
    l->no_sp = !src->sequence_parallel;
  char p[128];
  squash(cell(in, "precision"), p, sizeof p);
  /* Megatron-Bridge writes MXFP8 as "MXFP8" or "FP8-MX", current-scaling FP8 as "FP8-CS" */
  if (strstr(p, "mxfp8") != NULL || strstr(p, "fp8mx") != NULL)
    l->dtype = PL_DTYPE_MXFP8;
  else if (strstr(p, "nvfp4") != NULL)
    l->dtype = PL_DTYPE_NVFP4;
  else
    l->dtype = strstr(p, "fp8") != NULL ? PL_DTYPE_FP8 : PL_DTYPE_BF16;
  /* "FP8-CS": Megatron-Bridge's fp8_cs precision, mixed_precision.py
   * bf16_with_fp8_current_scaling_mixed (fp8_recipe "tensorwise": TE
   * Float8CurrentScaling) -> plateau's fp8-current */
  if (strstr(p, "fp8cs") != NULL)
    l->fp8_recipe = PL_FP8_RECIPE_CURRENT;
  l->eager_attention = src->eager_attention;
  l->attention_triton = src->triton_attention;
  l->grad_reduce_after_backward = src->grad_reduce_after_backward;
  l->kernels = src->unfused_kernels ? PL_KERNELS_UNFUSED : PL_KERNELS_FUSED;
  return true;
}

bool validate_row_run(const struct validate_source *src, const struct validate_in *in,
                      struct pl_run *run, struct pl_vrow *row) {
  memset(run, 0, sizeof *run);
  struct pl_layout *l = &run->layout;
  if (src->skip_all != NULL)
    return validate_skip(row, "%s", src->skip_all);
  if (!layout_degrees(in, l, row) || !layout_batch(in, l, row) || !layout_modes(src, in, l, row))
    return false;
  if (src->layout != NULL && !src->layout(in, l, row))
    return false;
  if (!check_dp(in, l, row))
    return false;
  if (l->mbs == 0) {
    l->mbs = 1;
    validate_note(row, "micro-batch 1 (not stated)");
  }
  if (!row_model(src, in, l->tp, &run->model, row))
    return false;
  l->seq = run->model.seq_len;
  return row_hardware(src, in, l, &run->cluster, row);
}
