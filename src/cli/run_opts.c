/* run_opts.c: turn the shared run options into a struct pl_run. */
#include "run_opts.h"

#include <string.h>

#include <plateau/units.h>

static int load_hardware(const struct cli_args *args, struct pl_run *run) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *gpu = cli_get(args, "gpu");
  const char *cluster = cli_get(args, "cluster");
  if (cluster == NULL) {
    const char *g = gpu ? gpu : "h100";
    cluster = pl_cluster_default_for_gpu(g);
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
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (cli_get_int(args, ints[i].name, ints[i].field) != 0)
      return 1;
  if (l->gpus > 0 && l->nodes > 0)
    return cli_fail("give --gpus or --nodes, not both");
  if (l->gbs > 0 && l->batch_per_gpu > 0)
    return cli_fail("give --gbs or --batch-per-gpu, not both");
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
  if ((v = cli_get(args, "schedule")) != NULL && pl_schedule_parse(v, &l->schedule, &d) != PL_OK)
    return cli_fail("--schedule: %s", d.msg);
  if ((v = cli_get(args, "dtype")) != NULL && pl_dtype_parse(v, &l->dtype, &d) != PL_OK)
    return cli_fail("--dtype: %s", d.msg);
  bool on;
  int given;
  if ((given = two_way(args, "attention", "attention", "flash", "eager", &on)) < 0)
    return 1;
  if (given)
    l->eager_attention = on;
  if ((given = two_way(args, "kernels", "kernels", "fused", "unfused", &on)) < 0)
    return 1;
  if (given)
    l->kernels = on ? PL_KERNELS_UNFUSED : PL_KERNELS_FUSED;
  if ((given = two_way(args, "fsdp-comm", "value", "one", "separate", &on)) < 0)
    return 1;
  if (given)
    l->fsdp_separate_comms = on;
  if ((given = two_way(args, "fsdp-prefetch", "value", "on", "off", &on)) < 0)
    return 1;
  if (given)
    l->gather_no_prefetch = on;
  return 0;
}

/* --tokens, --gpu-hour-price, --energy-price (absent from a command's table: unset). */
static int load_train(const struct cli_args *args, struct pl_train_opts *t) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *v = cli_get(args, "tokens");
  if (v != NULL && pl_count_parse(v, &t->tokens, &d) != PL_OK)
    return cli_fail("--tokens: %s", d.msg);
  const char *price[2] = {"gpu-hour-price", "energy-price"};
  double *field[2] = {&t->gpu_hour_usd, &t->kwh_usd};
  for (int i = 0; i < 2; i++) {
    if (cli_get_double(args, price[i], field[i]) != 0)
      return 1;
    if (cli_get(args, price[i]) != NULL && !(*field[i] > 0))
      return cli_fail("--%s: %s is not a positive price", price[i], cli_get(args, price[i]));
  }
  return 0;
}

int run_from_args(const struct cli_args *args, struct pl_run *run) {
  memset(run, 0, sizeof *run);
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *model = cli_get(args, "model");
  if (pl_model_load(model ? model : "llama2-7b", &run->model, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (load_hardware(args, run) != 0 || load_ints(args, &run->layout) != 0 ||
      load_train(args, &run->train) != 0)
    return 1;
  return load_modes(args, &run->layout);
}
