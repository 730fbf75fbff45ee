/* run_opts.c: turn the shared run options into a struct pl_run. */
#include "run_opts.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/run_flags.h>
#include <plateau/units.h>

/* The run options' value of a flag the library's tables name
 * (include/plateau/run_flags.h). */
static const char *flag_get(void *ctx, const char *name) {
  return cli_get((const struct cli_args *)ctx, name);
}

/* Every flag of the library's framework and hardware tables is one of the
 * command's options (RUN_OPTS): a flag added to a table without its help
 * here would be ignored, so the command refuses to run. */
static int tables_in_options(const struct cli_args *args) {
  const char *name;
  for (size_t i = 0; (name = pl_framework_flag_name(i)) != NULL; i++)
    if (!cli_has_opt(args->cmd, name))
      return cli_fail("internal: framework flag --%s is missing from the run options", name);
  for (size_t i = 0; (name = pl_cluster_flag_name(i)) != NULL; i++)
    if (!cli_has_opt(args->cmd, name))
      return cli_fail("internal: hardware flag --%s is missing from the run options", name);
  return 0;
}

static int load_hardware(const struct cli_args *args, struct pl_run *run) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *gpu = cli_get(args, "gpu");
  const char *cluster = cli_get(args, "cluster");
  if (cluster == NULL) {
    const char *g = gpu ? gpu : "h100";
    cluster = pl_cluster_default_for_gpu(g);
    struct pl_gpu named; /* a GPU file (e.g. from calibrate compute): its "name" picks the system */
    if (cluster == NULL && pl_gpu_load(g, &named, &d) == PL_OK)
      cluster = pl_cluster_default_for_gpu(named.name);
    else if (cluster == NULL) /* not a GPU at all: say so, with the nearest presets */
      return cli_fail("--gpu: %s", d.msg);
    if (cluster == NULL)
      return cli_fail("--gpu '%s': no default cluster for this GPU; give --cluster", g);
  }
  if (pl_cluster_load(cluster, &run->cluster, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (gpu != NULL && strcmp(gpu, run->cluster.gpu_name) != 0) {
    /* A cluster built from another GPU: keep its fabric, swap the GPU. */
    if (pl_gpu_load(gpu, &run->cluster.gpu, &d) != PL_OK)
      return cli_fail("%s", d.msg);
  }
  if (pl_cluster_flags_read(&run->cluster, flag_get, (void *)args, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

static int load_ints(const struct cli_args *args, struct pl_layout *l) {
  struct {
    const char *name;
    int64_t *field;
  } ints[] = {
      {"gpus", &l->gpus}, {"nodes", &l->nodes}, {"tp", &l->tp},   {"pp", &l->pp},
      {"cp", &l->cp},     {"vp", &l->vp},       {"shard-group", &l->shard_group},
      {"seq", &l->seq},   {"mbs", &l->mbs},     {"gbs", &l->gbs}, {"batch-per-gpu", &l->batch_per_gpu},
      {"ep", &l->ep},     {"etp", &l->etp},
      {"first-stage-layers", &l->first_stage_layers},
      {"last-stage-layers", &l->last_stage_layers},
      {"recompute-layers", &l->recompute_layers},
      {"recompute-every", &l->recompute_every},
      {"act-offload-layers", &l->act_offload_layers},
      {"mtp-layers", &l->mtp_layers},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (cli_get_int(args, ints[i].name, ints[i].field) != 0)
      return 1;
  const char *pipe = cli_get(args, "pipeline-layout");
  if (pipe != NULL && (pipe[0] == '\0' || strlen(pipe) >= sizeof l->pipeline_layout))
    return cli_fail("--pipeline-layout: '%s' must be 1 to %d characters", pipe,
                    (int)sizeof l->pipeline_layout - 1);
  if (pipe != NULL)
    memcpy(l->pipeline_layout, pipe, strlen(pipe) + 1);
  if (l->gpus > 0 && l->nodes > 0)
    return cli_fail("give --gpus or --nodes, not both");
  if (l->gbs > 0 && l->batch_per_gpu > 0)
    return cli_fail("give --gbs or --batch-per-gpu, not both");
  if (cli_get_double(args, "moe-imbalance", &l->moe_imbalance) != 0)
    return 1;
  if (cli_get(args, "moe-imbalance") != NULL && !(l->moe_imbalance >= 1.0))
    return cli_fail("--moe-imbalance: must be at least 1 (balanced), not '%s'",
                    cli_get(args, "moe-imbalance"));
  return 0;
}

/* An option taking one of two words: 1 with *second set when given, 0 when
 * absent, -1 (after printing why) for any other word. what names the value
 * in the message ("unknown kernels 'x'"). */
static int two_way(const struct cli_args *args, const char *name, const char *what,
                   const char *first, const char *second, bool *is_second) {
  const char *v = cli_get(args, name);
  if (v == NULL)
    return 0;
  if (strcmp(v, first) != 0 && strcmp(v, second) != 0) {
    cli_fail("--%s: unknown %s '%s' (expected %s|%s)", name, what, v, first, second);
    return -1;
  }
  *is_second = strcmp(v, second) == 0;
  return 1;
}

/* Every behaviour flag overrides the framework preset's value. */
static int load_behaviours(const struct cli_args *args, struct pl_framework *fw) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_flags_read(fw, flag_get, (void *)args, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

static int load_modes(const struct cli_args *args, struct pl_layout *l) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *v;
  if ((v = cli_get(args, "shard")) != NULL) {
    if (pl_shard_parse(v, &l->shard, &d) != PL_OK)
      return cli_fail("--shard: %s", d.msg);
    l->shard_set = true;
  }
  if ((v = cli_get(args, "recompute")) != NULL && pl_recompute_parse(v, &l->recompute, &d) != PL_OK)
    return cli_fail("--recompute: %s", d.msg);
  /* --recompute-modules LIST: Megatron-Core --recompute-modules, read with
   * --recompute-granularity selective; selective when --recompute is not given */
  if ((v = cli_get(args, "recompute-modules")) != NULL) {
    if (pl_recompute_modules_parse(v, &l->recompute_modules, &d) != PL_OK)
      return cli_fail("--recompute-modules: %s", d.msg);
    if (cli_get(args, "recompute") == NULL)
      l->recompute = PL_RECOMPUTE_SELECTIVE;
    else if (l->recompute != PL_RECOMPUTE_SELECTIVE)
      return cli_fail("--recompute-modules: needs --recompute selective (Megatron-Core reads "
                      "recompute_modules with selective granularity only), not %s",
                      pl_recompute_name(l->recompute));
  }
  /* --offload-modules LIST: Megatron-Core --fine-grained-activation-offloading
   * --offload-modules (layout.h enum pl_offload_module) */
  if ((v = cli_get(args, "offload-modules")) != NULL &&
      pl_offload_modules_parse(v, &l->offload_modules, &d) != PL_OK)
    return cli_fail("--offload-modules: %s", d.msg);
  /* --cuda-graph-scope LIST: Megatron-Core cuda_graph_scope (layout.h enum
   * pl_cuda_graph_scope): the ops it captures cost the host nothing per kernel */
  if ((v = cli_get(args, "cuda-graph-scope")) != NULL &&
      pl_cuda_graph_scopes_parse(v, &l->cuda_graph_scopes, &d) != PL_OK)
    return cli_fail("--cuda-graph-scope: %s", d.msg);
  bool uniform = false;
  int method = two_way(args, "recompute-method", "method", "block", "uniform", &uniform);
  if (method < 0)
    return 1;
  if (method > 0 && l->recompute != PL_RECOMPUTE_FULL)
    return cli_fail("--recompute-method: needs --recompute full (Megatron applies it to the "
                    "full granularity only)");
  l->recompute_uniform = uniform;
  bool account = false; /* --account-embed-loss: Megatron-Core's pipeline split flags */
  int given = two_way(args, "account-embed-loss", "value", "off", "on", &account);
  if (given < 0)
    return 1;
  if (given > 0)
    l->account_embed_loss = account;
  if ((v = cli_get(args, "schedule")) != NULL && pl_schedule_parse(v, &l->schedule, &d) != PL_OK)
    return cli_fail("--schedule: %s", d.msg);
  if ((v = cli_get(args, "dtype")) != NULL && pl_layout_dtype_parse(v, l, &d) != PL_OK)
    return cli_fail("--dtype: %s", d.msg);
  if ((v = cli_get(args, "moe-dispatch")) != NULL &&
      pl_moe_dispatch_parse(v, &l->dispatch, &d) != PL_OK)
    return cli_fail("--moe-dispatch: %s", d.msg);
  return 0;
}

int run_opts_price(const struct cli_args *args, const char *name, double *usd) {
  const char *v = cli_get(args, name);
  if (cli_get_double(args, name, usd) != 0)
    return 1;
  if (v != NULL && !(*usd > 0))
    return cli_fail("--%s: %s is not a positive price", name, v);
  if (v != NULL && *usd > PL_TRAIN_MAX_USD)
    return cli_fail("--%s: %s is above the limit of %g USD", name, v, PL_TRAIN_MAX_USD);
  return 0;
}

/* --tokens, --gpu-hour-price, --energy-price (absent from a command's table: unset). */
static int load_train(const struct cli_args *args, struct pl_train_opts *t) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *v = cli_get(args, "tokens");
  if (v != NULL && pl_count_parse(v, &t->tokens, &d) != PL_OK)
    return cli_fail("--tokens: %s", d.msg);
  if (v != NULL && t->tokens > PL_TRAIN_MAX_TOKENS)
    return cli_fail("--tokens: %s is above the limit of %g tokens", v, PL_TRAIN_MAX_TOKENS);
  if (run_opts_price(args, "gpu-hour-price", &t->gpu_hour_usd) != 0 ||
      run_opts_price(args, "energy-price", &t->kwh_usd) != 0)
    return 1;
  return 0;
}

int run_from_args(const struct cli_args *args, struct pl_run *run) {
  memset(run, 0, sizeof *run);
  if (tables_in_options(args) != 0)
    return 1;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *model = cli_get(args, "model");
  if (pl_model_load(model ? model : "llama2-7b", &run->model, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (load_hardware(args, run) != 0 || load_ints(args, &run->layout) != 0 ||
      load_train(args, &run->train) != 0)
    return 1;
  if (load_modes(args, &run->layout) != 0 || load_behaviours(args, &run->framework) != 0)
    return 1;
  pl_framework_apply(&run->framework, &run->layout);
  return 0;
}

int run_opts_search_refused(const struct cli_args *args) {
  static const char *const refused[] = {"first-stage-layers", "last-stage-layers",
                                        "pipeline-layout",
                                        "recompute-layers", "recompute-every",
                                        "recompute-method", "recompute-modules",
                                        "act-offload-layers"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    if (cli_get(args, refused[i]) != NULL)
      return cli_fail("--%s: a layout search does not take it (it enumerates pp and "
                      "recompute itself); use plateau predict or sweep --layout given", refused[i]);
  return 0;
}
