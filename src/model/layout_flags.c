/* layout_flags.c: a run's layout as predict flags, one table
 * (include/plateau/run_flags.h): the parallel degrees, batch, pipeline split,
 * recomputation, offload, CUDA graphs, precision and MoE dispatch. The CLI
 * reads predict's, search's and sweep's layout options through it
 * (src/cli/run_opts.c), validate reads a user's own row's `layout_flags`
 * column through it (src/validate/source_generic.c) and writes each row's run
 * back with it (its `command`, src/validate/command.c), so the three take and
 * give the same words. Each flag read overrides only what it names. */
#include <plateau/run_flags.h>
#include <plateau/units.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/flag_text.h"

/* The integer flags, read with pl_int_parse (ranges are pl_predict's). */
#define L(f) offsetof(struct pl_layout, f)
static const struct {
  const char *name;
  size_t off;
} ints[] = {
    {"gpus", L(gpus)}, {"nodes", L(nodes)}, {"tp", L(tp)}, {"pp", L(pp)},
    {"cp", L(cp)}, {"vp", L(vp)}, {"shard-group", L(shard_group)},
    {"seq", L(seq)}, {"mbs", L(mbs)}, {"gbs", L(gbs)}, {"batch-per-gpu", L(batch_per_gpu)},
    {"ep", L(ep)}, {"etp", L(etp)},
    {"first-stage-layers", L(first_stage_layers)},
    {"last-stage-layers", L(last_stage_layers)},
    {"recompute-layers", L(recompute_layers)},
    {"recompute-every", L(recompute_every)},
    {"act-offload-layers", L(act_offload_layers)},
    {"mtp-layers", L(mtp_layers)},
    {"bf16-last-blocks", L(bf16_last_blocks)},
    {"lora-rank", L(lora_rank)},
    {"packed-sample-len", L(packed_sample_len)},
    {"cp-a2a-size", L(cp_a2a)},
    {"pp-schedules", L(pp_schedules)},
};
#undef L
#define N_INTS (sizeof ints / sizeof ints[0])

/* The other flags, in the order they are read (read_words, read_modes). */
static const char *const words[] = {
    "pipeline-layout", "moe-imbalance",    "shard",           "recompute",
    "recompute-modules", "offload-modules", "bf16-modules", "cuda-graph-scope", "recompute-method",
    "account-embed-loss", "schedule",       "dtype",           "moe-dispatch",
    "moe-pad-capacity", "moe-force-balance", "moe-fake-gate", "moe-act-compiled", "moe-fc1-bias-eager", "fsdp-ga-nosync", "task",            "lora-targets",
    "defer-embedding-wgrad", "cp-comm-type",
};
#define N_WORDS (sizeof words / sizeof words[0])

const char *pl_layout_flag_name(size_t i) {
  if (i < N_INTS)
    return ints[i].name;
  return i - N_INTS < N_WORDS ? words[i - N_INTS] : NULL;
}

/* The counts, the pipeline layout string and the MoE imbalance. */
static enum pl_status read_counts(struct pl_layout *l, pl_flag_get_fn get, void *ctx,
                                  struct pl_diag *diag) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st;
  for (size_t i = 0; i < N_INTS; i++) {
    const char *v = get(ctx, ints[i].name);
    if (v != NULL && (st = pl_int_parse(v, (int64_t *)((char *)l + ints[i].off), &d)) != PL_OK)
      return pl_diag_set(diag, st, "--%s: %s", ints[i].name, d.msg);
  }
  const char *pipe = get(ctx, "pipeline-layout");
  if (pipe != NULL && (pipe[0] == '\0' || strlen(pipe) >= sizeof l->pipeline_layout))
    return pl_diag_set(diag, PL_ERR_RANGE, "--pipeline-layout: '%s' must be 1 to %d characters",
                       pipe, (int)sizeof l->pipeline_layout - 1);
  if (pipe != NULL)
    memcpy(l->pipeline_layout, pipe, strlen(pipe) + 1);
  if (l->gpus > 0 && l->nodes > 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "give --gpus or --nodes, not both");
  if (l->gbs > 0 && l->batch_per_gpu > 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "give --gbs or --batch-per-gpu, not both");
  const char *imb = get(ctx, "moe-imbalance");
  if (imb != NULL && (st = pl_double_parse(imb, &l->moe_imbalance, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--moe-imbalance: %s", d.msg);
  if (imb != NULL && !(l->moe_imbalance >= 1.0))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "--moe-imbalance: must be at least 1 (balanced), not '%s'", imb);
  return PL_OK;
}

/* A flag taking one of two words: PL_OK with *given and *is_second set, or
 * the error naming both words. what names the value ("unknown method 'x'"). */
static enum pl_status two_way(pl_flag_get_fn get, void *ctx, const char *name, const char *what,
                              const char *first, const char *second, bool *given,
                              bool *is_second, struct pl_diag *diag) {
  const char *v = get(ctx, name);
  *given = v != NULL;
  if (v == NULL)
    return PL_OK;
  if (strcmp(v, first) != 0 && strcmp(v, second) != 0)
    return pl_diag_set(diag, PL_ERR_PARSE, "--%s: unknown %s '%s' (expected %s|%s)", name, what,
                       v, first, second);
  *is_second = strcmp(v, second) == 0;
  return PL_OK;
}

/* --recompute-modules LIST: Megatron-Core --recompute-modules, read with
 * --recompute-granularity selective (megatron/training/arguments.py); selective
 * when --recompute is not given. Then --recompute-method block|uniform, which
 * Megatron applies to the full granularity only. */
static enum pl_status read_recompute(struct pl_layout *l, pl_flag_get_fn get, void *ctx,
                                     struct pl_diag *diag) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st;
  const char *v = get(ctx, "recompute");
  if (v != NULL && (st = pl_recompute_parse(v, &l->recompute, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--recompute: %s", d.msg);
  if ((v = get(ctx, "recompute-modules")) != NULL) {
    if ((st = pl_recompute_modules_parse(v, &l->recompute_modules, &d)) != PL_OK)
      return pl_diag_set(diag, st, "--recompute-modules: %s", d.msg);
    if (get(ctx, "recompute") == NULL)
      l->recompute = PL_RECOMPUTE_SELECTIVE;
    else if (l->recompute != PL_RECOMPUTE_SELECTIVE)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "--recompute-modules: needs --recompute selective (Megatron-Core reads "
                         "recompute_modules with selective granularity only), not %s",
                         pl_recompute_name(l->recompute));
  }
  /* --offload-modules LIST: Megatron-Core --fine-grained-activation-offloading
   * --offload-modules (layout.h enum pl_offload_module) */
  if ((v = get(ctx, "offload-modules")) != NULL &&
      (st = pl_offload_modules_parse(v, &l->offload_modules, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--offload-modules: %s", d.msg);
  /* --bf16-modules LIST: Megatron-Core quant_recipe's 16-bit modules (quant_modules.c) */
  if ((v = get(ctx, "bf16-modules")) != NULL &&
      (st = pl_bf16_modules_parse(v, &l->bf16_modules, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--bf16-modules: %s", d.msg);
  /* --cuda-graph-scope LIST: Megatron-Core cuda_graph_scope (layout.h enum
   * pl_cuda_graph_scope): the ops it captures cost the host nothing per kernel */
  if ((v = get(ctx, "cuda-graph-scope")) != NULL &&
      (st = pl_cuda_graph_scopes_parse(v, &l->cuda_graph_scopes, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--cuda-graph-scope: %s", d.msg);
  /* --defer-embedding-wgrad off|all|N: Megatron-Core defer_embedding_wgrad_compute
   * with wgrad_deferral_limit (0 = all micro-batches: all) */
  if ((v = get(ctx, "defer-embedding-wgrad")) != NULL) {
    int64_t n = 0;
    if (strcmp(v, "off") == 0)
      l->wgrad_deferral = 0;
    else if (strcmp(v, "all") == 0)
      l->wgrad_deferral = -1;
    else if (pl_int_parse(v, &n, &d) == PL_OK && n >= 1 && n <= 1000000)
      l->wgrad_deferral = n;
    else
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "--defer-embedding-wgrad: '%s' is not off, all or a micro-batch count "
                         "from 1 to 1000000",
                         v);
  }
  bool given = false, uniform = false;
  if ((st = two_way(get, ctx, "recompute-method", "method", "block", "uniform", &given, &uniform,
                    diag)) != PL_OK)
    return st;
  if (given && l->recompute != PL_RECOMPUTE_FULL)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "--recompute-method: needs --recompute full (Megatron applies it to the "
                       "full granularity only)");
  if (given)
    l->recompute_uniform = uniform;
  return PL_OK;
}

/* Sharding, recomputation, the pipeline split's accounting, schedule, dtype
 * and MoE dispatch: each by its parser of layout.h. */
static enum pl_status read_modes(struct pl_layout *l, pl_flag_get_fn get, void *ctx,
                                 struct pl_diag *diag) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st;
  const char *v;
  if ((v = get(ctx, "shard")) != NULL) {
    if ((st = pl_shard_parse(v, &l->shard, &d)) != PL_OK)
      return pl_diag_set(diag, st, "--shard: %s", d.msg);
    l->shard_set = true;
  }
  if ((st = read_recompute(l, get, ctx, diag)) != PL_OK)
    return st;
  bool given = false, account = false; /* Megatron-Core's pipeline split flags */
  if ((st = two_way(get, ctx, "account-embed-loss", "value", "off", "on", &given, &account,
                    diag)) != PL_OK)
    return st;
  if (given)
    l->account_embed_loss = account;
  if ((v = get(ctx, "schedule")) != NULL && (st = pl_schedule_parse(v, &l->schedule, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--schedule: %s", d.msg);
  if ((v = get(ctx, "dtype")) != NULL && (st = pl_layout_dtype_parse(v, l, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--dtype: %s", d.msg);
  if ((v = get(ctx, "moe-dispatch")) != NULL &&
      (st = pl_moe_dispatch_parse(v, &l->dispatch, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--moe-dispatch: %s", d.msg);
  if ((v = get(ctx, "cp-comm-type")) != NULL && (st = pl_cp_comm_parse(v, &l->cp_comm, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--cp-comm-type: %s", d.msg);
  bool pad = false; /* Megatron-Core's drop-and-pad expert capacity (layout.h) */
  if ((st = two_way(get, ctx, "moe-pad-capacity", "value", "off", "on", &given, &pad, diag)) !=
      PL_OK)
    return st;
  if (given)
    l->moe_pad_capacity = pad;
  bool force = false; /* Megatron-Core's moe_router_force_load_balancing (layout.h) */
  if ((st = two_way(get, ctx, "moe-force-balance", "value", "off", "on", &given, &force, diag)) !=
      PL_OK)
    return st;
  if (given)
    l->moe_force_balance = force;
  bool fake = false; /* NeMo AutoModel's FakeBalancedGate (layout.h) */
  if ((st = two_way(get, ctx, "moe-fake-gate", "value", "off", "on", &given, &fake, diag)) != PL_OK)
    return st;
  if (given)
    l->moe_fake_gate = fake;
  bool compiled = false; /* AutoModel's compiled quick_geglu_deepep (layout.h) */
  if ((st = two_way(get, ctx, "moe-act-compiled", "value", "off", "on", &given, &compiled, diag)) !=
      PL_OK)
    return st;
  if (given)
    l->moe_act_compiled = compiled;
  bool fc1_bias = false; /* AutoModel's eager fc1 expert bias (layout.h) */
  if ((st = two_way(get, ctx, "moe-fc1-bias-eager", "value", "off", "on", &given, &fc1_bias, diag)) !=
      PL_OK)
    return st;
  if (given)
    l->moe_fc1_bias_eager = fc1_bias;
  /* AutoModel's deferred FSDP gradient sync with pp 1 (layout.h): off, on
   * (get_sync_ctx), keep (MoEFSDPSyncMixin, units kept gathered too) */
  if ((v = get(ctx, "fsdp-ga-nosync")) != NULL) {
    if (strcmp(v, "off") != 0 && strcmp(v, "on") != 0 && strcmp(v, "keep") != 0)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "--fsdp-ga-nosync: unknown value '%s' (expected off|on|keep)", v);
    l->fsdp_ga_nosync = strcmp(v, "off") != 0;
    l->fsdp_ga_keep = strcmp(v, "keep") == 0;
  }
  /* --task pretrain|sft|lora and --lora-targets LIST (src/model/finetune.c) */
  if ((v = get(ctx, "task")) != NULL && (st = pl_run_task_parse(v, &l->task, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--task: %s", d.msg);
  if ((v = get(ctx, "lora-targets")) != NULL &&
      (st = pl_lora_targets_parse(v, &l->lora_targets, &d)) != PL_OK)
    return pl_diag_set(diag, st, "--lora-targets: %s", d.msg);
  return PL_OK;
}

enum pl_status pl_layout_flags_read(struct pl_layout *l, pl_flag_get_fn get, void *ctx,
                                    struct pl_diag *diag) {
  enum pl_status st = read_counts(l, get, ctx, diag);
  return st != PL_OK ? st : read_modes(l, get, ctx, diag);
}

/* -------------------------------------------------------------- format */

size_t pl_layout_flags_format(const struct pl_layout *l, bool moe, char *out, size_t n) {
  struct flag_text t = {out, n, 0};
  if (n > 0)
    out[0] = '\0';
  flag_text_put(&t,
                " --gpus %" PRId64 " --tp %" PRId64 " --pp %" PRId64 " --cp %" PRId64
                " --vp %" PRId64 " --seq %" PRId64 " --mbs %" PRId64 " --gbs %" PRId64
                " --shard %s",
                l->gpus, l->tp, l->pp, l->cp, l->vp, l->seq, l->mbs, l->gbs,
                pl_shard_name(l->shard));
  if (l->shard_group > 0 && l->shard_group != l->dp)
    flag_text_put(&t, " --shard-group %" PRId64, l->shard_group);
  flag_text_put(&t, " --dtype %s --schedule %s --recompute %s", pl_layout_dtype_name(l),
                pl_schedule_name(l->schedule), pl_recompute_name(l->recompute));
  if (l->recompute == PL_RECOMPUTE_SELECTIVE && l->recompute_modules != 0) {
    flag_text_put(&t, " --recompute-modules ");
    const char *sep = "";
    for (int bit = 0; bit < 32; bit++)
      if ((l->recompute_modules & (1u << bit)) != 0 && pl_recompute_module_name(bit) != NULL) {
        flag_text_put(&t, "%s%s", sep, pl_recompute_module_name(bit));
        sep = ",";
      }
  }
  if (l->recompute == PL_RECOMPUTE_FULL && l->recompute_uniform)
    flag_text_put(&t, " --recompute-method uniform");
  const struct {
    const char *flag;
    int64_t v;
  } counts[] = {
      {"recompute-layers", l->recompute_layers}, {"recompute-every", l->recompute_every},
      {"first-stage-layers", l->first_stage_layers}, {"last-stage-layers", l->last_stage_layers},
      {"mtp-layers", l->mtp_layers}, {"act-offload-layers", l->act_offload_layers},
      {"bf16-last-blocks", l->bf16_last_blocks},
      {"pp-schedules", l->pp_schedules > 1 ? l->pp_schedules : 0},
  };
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (counts[i].v > 0)
      flag_text_put(&t, " --%s %" PRId64, counts[i].flag, counts[i].v);
  if (l->account_embed_loss)
    flag_text_put(&t, " --account-embed-loss on");
  if (l->pipeline_layout[0] != '\0') {
    flag_text_put(&t, " --pipeline-layout '");
    flag_text_word(&t, l->pipeline_layout);
    flag_text_put(&t, "'");
  }
  if (l->cp_comm != PL_CP_P2P) /* p2p, the default, unwritten */
    flag_text_put(&t, " --cp-comm-type %s", pl_cp_comm_name(l->cp_comm));
  if (l->cp_comm == PL_CP_A2A_P2P && l->cp_a2a > 0)
    flag_text_put(&t, " --cp-a2a-size %" PRId64, l->cp_a2a);
  if (moe)
    flag_text_put(&t, " --ep %" PRId64 " --etp %" PRId64 " --moe-dispatch %s --moe-imbalance %.17g",
                  l->ep, l->etp, pl_moe_dispatch_name(l->dispatch), l->moe_imbalance);
  if (moe && l->moe_pad_capacity)
    flag_text_put(&t, " --moe-pad-capacity on");
  if (moe && l->moe_force_balance)
    flag_text_put(&t, " --moe-force-balance on");
  if (moe && l->moe_fake_gate)
    flag_text_put(&t, " --moe-fake-gate on");
  if (moe && l->moe_act_compiled)
    flag_text_put(&t, " --moe-act-compiled on");
  if (moe && l->moe_fc1_bias_eager)
    flag_text_put(&t, " --moe-fc1-bias-eager on");
  if (l->fsdp_ga_nosync)
    flag_text_put(&t, " --fsdp-ga-nosync %s", pl_fsdp_ga_nosync_name(l));
  char list[160];
  if (l->bf16_modules != 0) {
    pl_bf16_modules_format(l->bf16_modules, list, sizeof list);
    flag_text_put(&t, " --bf16-modules %s", list);
  }
  if (l->offload_modules != 0) {
    pl_offload_modules_format(l->offload_modules, list, sizeof list);
    flag_text_put(&t, " --offload-modules %s", list);
  }
  if (l->cuda_graph_scopes != 0) {
    pl_cuda_graph_scopes_format(l->cuda_graph_scopes, list, sizeof list);
    flag_text_put(&t, " --cuda-graph-scope %s", list);
  }
  if (l->task != PL_RUN_PRETRAIN)
    flag_text_put(&t, " --task %s", pl_run_task_name(l->task));
  if (l->lora_rank > 0)
    flag_text_put(&t, " --lora-rank %" PRId64, l->lora_rank);
  if (l->packed_sample_len > 0)
    flag_text_put(&t, " --packed-sample-len %" PRId64, l->packed_sample_len);
  if (l->lora_targets != 0) {
    pl_lora_targets_format(l->lora_targets, list, sizeof list);
    flag_text_put(&t, " --lora-targets %s", list);
  }
  if (l->wgrad_deferral < 0)
    flag_text_put(&t, " --defer-embedding-wgrad all");
  else if (l->wgrad_deferral > 0)
    flag_text_put(&t, " --defer-embedding-wgrad %" PRId64, l->wgrad_deferral);
  return t.need;
}
