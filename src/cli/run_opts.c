/* run_opts.c: turn the shared run options into a struct pl_run. */
#include "run_opts.h"

#include <stddef.h>
#include <string.h>

#include <plateau/run_flags.h>
#include <plateau/units.h>

/* Every flag of the library's framework, hardware and layout tables is one
 * of the command's options (RUN_OPTS): a flag added to a table without its
 * help here would be ignored, so the command refuses to run. */
static int tables_in_options(const struct cli_args *args) {
  const char *name;
  for (size_t i = 0; (name = pl_framework_flag_name(i)) != NULL; i++)
    if (!cli_has_opt(args->cmd, name))
      return cli_fail("internal: framework flag --%s is missing from the run options", name);
  for (size_t i = 0; (name = pl_cluster_flag_name(i)) != NULL; i++)
    if (!cli_has_opt(args->cmd, name))
      return cli_fail("internal: hardware flag --%s is missing from the run options", name);
  for (size_t i = 0; (name = pl_layout_flag_name(i)) != NULL; i++)
    if (!cli_has_opt(args->cmd, name))
      return cli_fail("internal: layout flag --%s is missing from the run options", name);
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
  if (pl_cluster_flags_read(&run->cluster, cli_flag_get, (void *)args, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

/* The layout options: the library's layout table (include/plateau/run_flags.h). */
static int load_layout(const struct cli_args *args, struct pl_layout *l) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_layout_flags_read(l, cli_flag_get, (void *)args, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

/* Every behaviour flag overrides the framework preset's value. */
static int load_behaviours(const struct cli_args *args, struct pl_framework *fw) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_flags_read(fw, cli_flag_get, (void *)args, &d) != PL_OK)
    return cli_fail("%s", d.msg);
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
  if (load_hardware(args, run) != 0 || load_layout(args, &run->layout) != 0 ||
      load_train(args, &run->train) != 0 || load_behaviours(args, &run->framework) != 0)
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
