/* cluster_flags.c: the edits a run makes to its cluster and GPU presets as
 * predict flags (include/plateau/run_flags.h): what a machine differs in
 * from the preset it is closest to. Validate's loaders make the same edits
 * from a row's columns (board power limit and HBM: torchtitan's machines;
 * NIC bandwidth: IBM's clusters; SHARP: the MLPerf configs; the NVLink
 * segment of a GB200/GB300 NVL72 job), and its `command` writes them as
 * these flags, so a row is reproduced by its printed line. */
#include <plateau/run_flags.h>
#include <plateau/units.h>

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flag_text.h"

/* In the order they are applied and written. */
static const char *const names[] = {"power-cap", "hbm", "hbm-bandwidth", "nic-bandwidth", "sharp",
                                    "gpus-per-node", "gpu-variability", "nccl-min-channels",
                                    "nccl-tuner"};
#define N_NAMES (sizeof names / sizeof names[0])

const char *pl_cluster_flag_name(size_t i) { return i < N_NAMES ? names[i] : NULL; }

/* A positive quantity of kind (what names it in the message) into *out when
 * given: 0 absent or set, else the error. */
static enum pl_status quantity(pl_flag_get_fn get, void *ctx, const char *name,
                               enum pl_unit_kind kind, const char *what, const char *example,
                               double *out, bool *given, struct pl_diag *diag) {
  const char *v = get(ctx, name);
  *given = v != NULL;
  if (v == NULL)
    return PL_OK;
  double x = 0;
  if (pl_unit_parse(v, kind, &x, NULL) != PL_OK || !(x > 0))
    return pl_diag_set(diag, PL_ERR_PARSE, "--%s: '%s' is not %s above 0 (e.g. '%s')", name, v,
                       what, example);
  *out = x;
  return PL_OK;
}

/* --power-cap W: watts, with or without the unit ("500", "500 W"). */
static enum pl_status power_cap(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                struct pl_diag *diag) {
  const char *v = get(ctx, "power-cap");
  if (v == NULL)
    return PL_OK;
  double w = 0;
  if (pl_unit_parse(v, PL_UNIT_WATTS, &w, NULL) != PL_OK && pl_double_parse(v, &w, NULL) != PL_OK)
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "--power-cap: '%s' is not a power (expected watts, e.g. 500 or '500 W')", v);
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_gpu_set_power_cap(&c->gpu, w, &d);
  if (st != PL_OK)
    return pl_diag_set(diag, st, "--power-cap: %s", d.msg);
  return PL_OK;
}

/* --gpus-per-node N: the node (the NVLink domain) smaller than the preset's,
 * as a GB200/GB300 NVL72 job placed in NVLink segments (Slurm --segment,
 * 4 GPUs per tray) sees it; its NICs per GPU kept. */
static enum pl_status gpus_per_node(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                    struct pl_diag *diag) {
  const char *v = get(ctx, "gpus-per-node");
  if (v == NULL)
    return PL_OK;
  int64_t g = 0;
  bool count = pl_int_parse(v, &g, NULL) == PL_OK; /* not a count: bad on any cluster */
  if (!count || g > c->gpus_per_node)
    return pl_diag_set(diag, count ? PL_ERR_RANGE : PL_ERR_PARSE,
                       "--gpus-per-node: '%s' is not a GPU count from 1 to the cluster's %" PRId64,
                       v, c->gpus_per_node);
  if ((c->nics_per_node * g) % c->gpus_per_node != 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "--gpus-per-node: %" PRId64 " GPUs would hold a part of a NIC (the cluster "
                       "has %" PRId64 " NICs per %" PRId64 " GPUs)",
                       g, c->nics_per_node, c->gpus_per_node);
  c->nics_per_node = c->nics_per_node * g / c->gpus_per_node;
  c->gpus_per_node = g;
  c->segment_gpus = 0; /* the node size the user gave: placed as given (pl_cluster_place) */
  return PL_OK;
}

/* --nccl-min-channels N: the floor NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS put
 * under every communicator's channels (cluster.nccl_min_channels, 0..64 as
 * the cluster file's field; src/net/tuner.c, src/net/ctas.c). The MLPerf
 * loader sets it from the configs' environment. */
static enum pl_status nccl_min_channels(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                        struct pl_diag *diag) {
  const char *v = get(ctx, "nccl-min-channels");
  if (v == NULL)
    return PL_OK;
  int64_t n = 0;
  if (pl_int_parse(v, &n, NULL) != PL_OK || n < 0 || n > 64)
    return pl_diag_set(diag, PL_ERR_PARSE, "--nccl-min-channels: '%s' is not a channel count 0..64",
                       v);
  c->nccl_min_channels = n;
  return PL_OK;
}

/* --nccl-tuner nccl|aws-ofi-nccl-p5: who picks each call's algorithm and
 * protocol (cluster.nccl_tuner, the values of pl_nccl_tuner_name; the
 * plugin's map src/net/ofi_regions.c). A run whose NCCL loads no tuner
 * plugin (NCCL < 2.19 has no tuner interface, 2.19-2.20 load one only when
 * NCCL_TUNER_PLUGIN names it) says nccl on a cluster whose preset turns the
 * plugin on (aws-p5). */
static enum pl_status nccl_tuner(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                 struct pl_diag *diag) {
  const char *v = get(ctx, "nccl-tuner");
  if (v == NULL)
    return PL_OK;
  const char *name;
  char known[96] = "";
  for (size_t i = 0; (name = pl_nccl_tuner_name(i)) != NULL; i++) {
    if (strcmp(v, name) == 0) {
      snprintf(c->nccl_tuner, sizeof c->nccl_tuner, "%s", name);
      return PL_OK;
    }
    size_t at = strlen(known);
    snprintf(known + at, sizeof known - at, "%s%s", at > 0 ? "|" : "", name);
  }
  return pl_diag_set(diag, PL_ERR_PARSE, "--nccl-tuner: unknown value '%s' (expected %s)", v,
                     known);
}

/* --gpu-variability CV|off: the spread of the GPUs' sustained clocks
 * (standard deviation over mean, '0.02' or '2%'), src/hw/variability.c. */
static enum pl_status gpu_variability(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                      struct pl_diag *diag) {
  const char *v = get(ctx, "gpu-variability");
  if (v == NULL)
    return PL_OK;
  double cv = 0;
  size_t n = strlen(v);
  char buf[64];
  if (strcmp(v, "off") == 0) {
    cv = 0;
  } else if (n > 1 && n < sizeof buf && v[n - 1] == '%') {
    memcpy(buf, v, n - 1);
    buf[n - 1] = '\0';
    if (pl_double_parse(buf, &cv, NULL) != PL_OK)
      cv = -1;
    else
      cv /= 100.0;
  } else if (pl_double_parse(v, &cv, NULL) != PL_OK) {
    cv = -1;
  }
  if (!(cv >= 0 && cv <= PL_GPU_CLOCK_CV_MAX))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "--gpu-variability: '%s' is not a clock spread from 0 to %g (standard "
                       "deviation over mean, e.g. 0.02 or '2%%'; off)",
                       v, PL_GPU_CLOCK_CV_MAX);
  return pl_gpu_set_variability(&c->gpu, cv, diag);
}

enum pl_status pl_cluster_flags_read(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                     struct pl_diag *diag) {
  enum pl_status st = power_cap(c, get, ctx, diag);
  bool given = false;
  if (st == PL_OK)
    st = quantity(get, ctx, "hbm", PL_UNIT_BYTES, "a memory size", "80 GiB", &c->gpu.hbm_bytes,
                  &given, diag);
  if (st == PL_OK)
    st = quantity(get, ctx, "hbm-bandwidth", PL_UNIT_BYTES_PER_S, "a bandwidth", "3.35 TB/s",
                  &c->gpu.hbm_bytes_per_s, &given, diag);
  if (st == PL_OK)
    st = quantity(get, ctx, "nic-bandwidth", PL_UNIT_BITS_PER_S, "a bandwidth", "400 Gb/s",
                  &c->nic_bytes_per_s, &given, diag);
  if (st == PL_OK && given && c->nics_per_node <= 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "--nic-bandwidth: cluster '%s' has no NICs", c->name);
  const char *v = get(ctx, "sharp");
  if (st == PL_OK && v != NULL) {
    if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
      return pl_diag_set(diag, PL_ERR_PARSE, "--sharp: unknown value '%s' (expected on|off)", v);
    if (strcmp(v, "on") == 0 && strcmp(c->inter_kind, "infiniband") != 0)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "--sharp: on needs an InfiniBand network (cluster '%s' has '%s')",
                         c->name, c->inter_kind);
    c->sharp = strcmp(v, "on") == 0;
  }
  if (st == PL_OK)
    st = gpus_per_node(c, get, ctx, diag);
  if (st == PL_OK)
    st = gpu_variability(c, get, ctx, diag);
  if (st == PL_OK)
    st = nccl_min_channels(c, get, ctx, diag);
  if (st == PL_OK)
    st = nccl_tuner(c, get, ctx, diag);
  return st;
}

size_t pl_cluster_flags_format(const struct pl_cluster *c, const struct pl_cluster *base,
                               char *out, size_t n) {
  struct flag_text t = {out, n, 0};
  if (n > 0)
    out[0] = '\0';
  if (c->gpu.power_cap_w != base->gpu.power_cap_w && c->gpu.power_cap_w > 0) {
    flag_text_put(&t, " --power-cap ");
    flag_text_quantity(&t, c->gpu.power_cap_w, PL_UNIT_WATTS);
  }
  const struct {
    const char *flag;
    double v, was;
    enum pl_unit_kind kind;
  } q[] = {
      {"hbm", c->gpu.hbm_bytes, base->gpu.hbm_bytes, PL_UNIT_BYTES},
      {"hbm-bandwidth", c->gpu.hbm_bytes_per_s, base->gpu.hbm_bytes_per_s, PL_UNIT_BYTES_PER_S},
      {"nic-bandwidth", c->nic_bytes_per_s, base->nic_bytes_per_s, PL_UNIT_BITS_PER_S},
  };
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
    if (q[i].v != q[i].was && q[i].v > 0) {
      flag_text_put(&t, " --%s ", q[i].flag);
      flag_text_quantity(&t, q[i].v, q[i].kind);
    }
  if (c->sharp != base->sharp)
    flag_text_put(&t, " --sharp %s", c->sharp ? "on" : "off");
  if (c->gpus_per_node != base->gpus_per_node)
    flag_text_put(&t, " --gpus-per-node %" PRId64, c->gpus_per_node);
  if (c->gpu.clock_cv != base->gpu.clock_cv) {
    /* the fewest digits that read back as the same double */
    char num[32];
    snprintf(num, sizeof num, "%.15g", c->gpu.clock_cv);
    if (strtod(num, NULL) != c->gpu.clock_cv)
      snprintf(num, sizeof num, "%.17g", c->gpu.clock_cv);
    flag_text_put(&t, " --gpu-variability %s", c->gpu.clock_cv > 0 ? num : "off");
  }
  if (c->nccl_min_channels != base->nccl_min_channels)
    flag_text_put(&t, " --nccl-min-channels %" PRId64, c->nccl_min_channels);
  if (strcmp(pl_cluster_nccl_tuner(c), pl_cluster_nccl_tuner(base)) != 0)
    flag_text_put(&t, " --nccl-tuner %s", c->nccl_tuner);
  return t.need;
}
