/* whatif.c: validate's hardware what-if (include/plateau/validate.h, struct
 * pl_vhardware): read once from the command's flags and checked, then
 * applied to every row by row.c through validate_whatif_flags. The flags are
 * predict's own (include/plateau/run_flags.h pl_cluster_flags_read, and
 * --nccl-version), so a row's `command` writes them back as predict takes
 * them. */
#include <string.h>

#include <plateau/run_flags.h>
#include <plateau/validate.h>

#include "validate_int.h"

static const char *stored_get(void *ctx, const char *name) {
  const struct pl_vhardware *hw = ctx;
  for (size_t i = 0; i < hw->n_flags; i++)
    if (strcmp(hw->flag_name[i], name) == 0)
      return hw->flag_value[i];
  return NULL;
}

/* --nccl-version onto c (the cluster file's release, if any, replaced), as
 * predict's --nccl-version (src/cli/opts.c cli_nccl_version). */
static enum pl_status nccl_version(const char *v, struct pl_cluster *c, struct pl_diag *diag) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = v != NULL ? pl_nccl_version_parse(v, &c->nccl_version, &d) : PL_OK;
  return st == PL_OK ? PL_OK : pl_diag_set(diag, st, "--nccl-version: %s", d.msg);
}

enum pl_status validate_whatif_flags(const struct pl_vhardware *hw, struct pl_cluster *c,
                                     struct pl_diag *diag) {
  enum pl_status st = pl_cluster_flags_read(c, stored_get, (void *)hw, diag);
  return st != PL_OK ? st : nccl_version(stored_get((void *)hw, "nccl-version"), c, diag);
}

/* A value some machines take and others refuse: a power cap outside this
 * GPU's range, a NIC bandwidth on a cluster without NICs, SHARP off
 * InfiniBand, more GPUs per node than the cluster's (cluster_flags.c answers
 * these PL_ERR_RANGE). Without --cluster each row's machine decides. */
static bool machine_bound(const char *name, enum pl_status st) {
  static const char *const bound[] = {"power-cap", "nic-bandwidth", "sharp", "gpus-per-node"};
  for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++)
    if (strcmp(name, bound[i]) == 0)
      return st == PL_ERR_RANGE;
  return false;
}

static enum pl_status store(struct pl_vhardware *hw, const char *name, const char *v,
                            struct pl_diag *diag) {
  if (hw->n_flags == PL_VHW_MAX_FLAGS || strlen(name) >= sizeof hw->flag_name[0])
    return pl_diag_set(diag, PL_ERR_RANGE, "--%s: too many hardware flags", name);
  if (strlen(v) >= sizeof hw->flag_value[0])
    return pl_diag_set(diag, PL_ERR_RANGE, "--%s: '%.40s...' is longer than %zu characters", name,
                       v, sizeof hw->flag_value[0] - 1);
  memcpy(hw->flag_name[hw->n_flags], name, strlen(name) + 1);
  memcpy(hw->flag_value[hw->n_flags], v, strlen(v) + 1);
  hw->n_flags++;
  return PL_OK;
}

/* A preset or file argument into arg (bounded), loaded by load. */
static enum pl_status load_arg(const char *flag, const char *v, char *arg, size_t n,
                               struct pl_diag *diag) {
  if (v[0] == '\0' || strlen(v) >= n)
    return pl_diag_set(diag, PL_ERR_RANGE, "--%s: '%.40s' must be 1 to %zu characters", flag, v,
                       n - 1);
  memcpy(arg, v, strlen(v) + 1);
  return PL_OK;
}

/* The machine each flag is checked on: the cluster every row runs on when
 * --cluster is given, else the DGX-class system of --gpu (of the H100 when
 * none), with --gpu's figures. */
static enum pl_status trial_cluster(const struct pl_vhardware *hw, struct pl_cluster *t,
                                    struct pl_diag *diag) {
  if (hw->cluster_arg[0] != '\0') {
    *t = hw->cluster;
  } else {
    const char *def = pl_cluster_default_for_gpu(hw->gpu_arg[0] != '\0' ? hw->gpu.name : "h100");
    enum pl_status st = pl_cluster_load(def != NULL ? def : "dgx-h100", t, diag);
    if (st != PL_OK)
      return st;
  }
  if (hw->gpu_arg[0] != '\0')
    t->gpu = hw->gpu;
  return PL_OK;
}

enum pl_status pl_validation_set_hardware(struct pl_validation *v, pl_flag_get_fn get, void *ctx,
                                          bool *any, struct pl_diag *diag) {
  struct pl_vhardware *hw = &v->hardware;
  memset(hw, 0, sizeof *hw);
  *any = false;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = PL_OK;
  const char *cl = get(ctx, "cluster"), *gpu = get(ctx, "gpu"), *name;
  if (cl != NULL && (st = load_arg("cluster", cl, hw->cluster_arg, sizeof hw->cluster_arg,
                                   diag)) == PL_OK &&
      (st = pl_cluster_load(cl, &hw->cluster, &d)) != PL_OK)
    st = pl_diag_set(diag, st, "--cluster: %s", d.msg);
  if (st == PL_OK && gpu != NULL &&
      (st = load_arg("gpu", gpu, hw->gpu_arg, sizeof hw->gpu_arg, diag)) == PL_OK &&
      (st = pl_gpu_load(gpu, &hw->gpu, &d)) != PL_OK)
    st = pl_diag_set(diag, st, "--gpu: %s", d.msg);
  for (size_t i = 0; st == PL_OK && (name = pl_cluster_flag_name(i)) != NULL; i++)
    if (get(ctx, name) != NULL)
      st = store(hw, name, get(ctx, name), diag);
  if (st == PL_OK && get(ctx, "nccl-version") != NULL)
    st = store(hw, "nccl-version", get(ctx, "nccl-version"), diag);
  struct pl_cluster trial, t;
  if (st == PL_OK && (st = trial_cluster(hw, &trial, diag)) == PL_OK) {
    /* each flag alone on the trial machine: a bad value is an error for the
     * whole command, a machine-bound one (without --cluster) is each row's */
    struct pl_vhardware one;
    for (size_t i = 0; st == PL_OK && i < hw->n_flags; i++) {
      memset(&one, 0, sizeof one);
      store(&one, hw->flag_name[i], hw->flag_value[i], &d);
      t = trial;
      pl_diag_clear(&d);
      enum pl_status fs = validate_whatif_flags(&one, &t, &d);
      if (fs != PL_OK && (hw->cluster_arg[0] != '\0' || !machine_bound(hw->flag_name[i], fs)))
        st = pl_diag_set(diag, fs, "%s", d.msg);
    }
  }
  if (st != PL_OK) {
    memset(hw, 0, sizeof *hw);
    return st;
  }
  *any = hw->cluster_arg[0] != '\0' || hw->gpu_arg[0] != '\0' || hw->n_flags > 0;
  return PL_OK;
}
