/* cluster_load.c: read a cluster description (data/clusters/<name>.json or a
 * file written by hand or by `plateau calibrate nccl`) into struct pl_cluster
 * and resolve its GPU. Sections: "intra" (NVLink/NVSwitch/xGMI fabric inside
 * a node) and "inter" (the network between nodes). Bandwidths are per GPU or
 * per NIC and per direction; "node_bandwidth", when given, must agree with
 * NICs x NIC bandwidth (it is where a figure quoted per node, like the
 * study's Table 1, is checked). Unknown keys are ignored. Format:
 * docs/hardware.md. */
#include <plateau/hw.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/data.h>

#include "hw/hw_int.h"

/* Defaults for optional fields; docs/hardware.md says why. */
#define DEFAULT_NCCL_CHANNELS 16 /* NCCL's usual ring channel count on NVLink nodes */
#define MAX_GPUS_PER_NODE 1024
#define MAX_NICS_PER_NODE 1024

static const char *const intra_kinds[] = {"nvswitch", "hybrid-cube-mesh", "nvlink", "xgmi", "pcie",
                                          NULL};
static const char *const inter_kinds[] = {"infiniband", "efa",      "roce",      "tcpxo",
                                          "ethernet",   "omnipath", "slingshot", "none", NULL};
static const char *const cpu_vendors[] = {"intel", "amd", "arm", "other", NULL};
/* NCCL's PATH_* names, nearest first (src/graph/topo.h) */
static const char *const nic_paths[] = {"pix", "pxb", "pxn", "phb", "sys", NULL};
/* struct pl_cluster nccl_tuner; src/net/ofi_regions.c carries the plugin's map */
static const char *const nccl_tuners[] = {PL_NCCL_TUNER_NCCL, PL_NCCL_TUNER_AWS_OFI_P5, NULL};
_Static_assert(sizeof PL_NCCL_TUNER_AWS_OFI_P5 <= sizeof((struct pl_cluster *)0)->nccl_tuner &&
                   sizeof PL_NCCL_TUNER_NCCL <= sizeof((struct pl_cluster *)0)->nccl_tuner,
               "cluster.nccl_tuner holds every tuner name");

const char *pl_nccl_tuner_name(size_t i) {
  return i < sizeof nccl_tuners / sizeof nccl_tuners[0] - 1 ? nccl_tuners[i] : NULL;
}

const char *pl_cluster_nccl_tuner(const struct pl_cluster *c) {
  return c->nccl_tuner[0] != '\0' ? c->nccl_tuner : PL_NCCL_TUNER_NCCL;
}

static enum pl_status read_intra(yajl_val doc, const char *origin, struct pl_cluster *c,
                                 struct pl_diag *diag) {
  enum pl_status st;
  yajl_val sec = hw_section(doc, "intra", true, origin, diag, &st);
  if (sec == NULL)
    return st;
  char sub[HW_ORIGIN_MAX + 32];
  snprintf(sub, sizeof sub, "%s, section 'intra'", origin);
  bool multi = c->gpus_per_node > 1;
  if ((st = hw_word(sec, "kind", true, sub, intra_kinds, c->intra_kind, sizeof c->intra_kind,
                    diag)) != PL_OK)
    return st;
  if ((st = hw_unit(sec, "bandwidth", PL_UNIT_BYTES_PER_S, multi, multi, sub,
                    &c->intra_bytes_per_s, diag)) != PL_OK)
    return st;
  c->intra_nccl_bytes_per_s = c->intra_bytes_per_s;
  if ((st = hw_unit(sec, "nccl_bandwidth", PL_UNIT_BYTES_PER_S, false, multi, sub,
                    &c->intra_nccl_bytes_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(sec, "latency", PL_UNIT_SECONDS, multi, false, sub, &c->intra_latency_s,
                    diag)) != PL_OK)
    return st;
  return hw_bool(sec, "nvls", false, sub, &c->nvls, diag);
}

static enum pl_status check_node_bandwidth(yajl_val sec, const char *sub,
                                           const struct pl_cluster *c, struct pl_diag *diag) {
  double node = -1.0;
  enum pl_status st = hw_unit(sec, "node_bandwidth", PL_UNIT_BYTES_PER_S, false, false, sub, &node,
                              diag);
  if (st != PL_OK || node < 0.0)
    return st;
  double sum = pl_cluster_node_net_bytes_per_s(c);
  if (fabs(node - sum) > 0.01 * fmax(node, sum))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: field 'node_bandwidth' (%.4g GB/s) disagrees with nics_per_node x "
                       "nic_bandwidth (%.4g GB/s); both are per direction",
                       sub, node / 1e9, sum / 1e9);
  return PL_OK;
}

static enum pl_status read_inter(yajl_val doc, const char *origin, struct pl_cluster *c,
                                 struct pl_diag *diag) {
  enum pl_status st;
  yajl_val sec = hw_section(doc, "inter", false, origin, diag, &st);
  snprintf(c->inter_kind, sizeof c->inter_kind, "none");
  if (sec == NULL)
    return st;
  char sub[HW_ORIGIN_MAX + 32];
  snprintf(sub, sizeof sub, "%s, section 'inter'", origin);
  if ((st = hw_word(sec, "kind", true, sub, inter_kinds, c->inter_kind, sizeof c->inter_kind,
                    diag)) != PL_OK)
    return st;
  if ((st = hw_int(sec, "nics_per_node", true, sub, &c->nics_per_node, diag)) != PL_OK)
    return st;
  if (c->nics_per_node < 0 || c->nics_per_node > MAX_NICS_PER_NODE)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'nics_per_node' is %lld, expected 0..%d",
                       sub, (long long)c->nics_per_node, MAX_NICS_PER_NODE);
  bool need = c->nics_per_node > 0;
  if ((st = hw_unit(sec, "nic_bandwidth", PL_UNIT_BITS_PER_S, need, need, sub, &c->nic_bytes_per_s,
                    diag)) != PL_OK)
    return st;
  if ((st = hw_unit(sec, "latency", PL_UNIT_SECONDS, need, false, sub, &c->inter_latency_s,
                    diag)) != PL_OK)
    return st;
  if ((st = hw_unit(sec, "message_overhead", PL_UNIT_SECONDS, false, false, sub,
                    &c->inter_msg_s, diag)) != PL_OK)
    return st;
  if (c->inter_msg_s < 0.0)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'message_overhead' must be >= 0", sub);
  snprintf(c->gpu_nic_path, sizeof c->gpu_nic_path, "pxb");
  if ((st = hw_word(sec, "gpu_nic_path", false, sub, nic_paths, c->gpu_nic_path,
                    sizeof c->gpu_nic_path, diag)) != PL_OK)
    return st;
  if ((st = hw_bool(sec, "sharp", false, sub, &c->sharp, diag)) != PL_OK)
    return st;
  return check_node_bandwidth(sec, sub, c, diag);
}

static enum pl_status read_model_settings(yajl_val doc, const char *origin, struct pl_cluster *c,
                                          struct pl_diag *diag) {
  enum pl_status st;
  snprintf(c->cpu_vendor, sizeof c->cpu_vendor, "intel");
  if ((st = hw_word(doc, "cpu_vendor", false, origin, cpu_vendors, c->cpu_vendor,
                    sizeof c->cpu_vendor, diag)) != PL_OK)
    return st;
  c->nccl_channels = DEFAULT_NCCL_CHANNELS;
  if ((st = hw_int(doc, "nccl_channels", false, origin, &c->nccl_channels, diag)) != PL_OK)
    return st;
  if (c->nccl_channels < 1 || c->nccl_channels > 64)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'nccl_channels' is %lld, expected 1..64",
                       origin, (long long)c->nccl_channels);
  c->nccl_min_channels = 0;
  if ((st = hw_int(doc, "nccl_min_channels", false, origin, &c->nccl_min_channels, diag)) != PL_OK)
    return st;
  if (c->nccl_min_channels < 0 || c->nccl_min_channels > 64)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: field 'nccl_min_channels' is %lld, expected 0..64", origin,
                       (long long)c->nccl_min_channels);
  snprintf(c->nccl_tuner, sizeof c->nccl_tuner, "%s", PL_NCCL_TUNER_NCCL);
  if ((st = hw_word(doc, "nccl_tuner", false, origin, nccl_tuners, c->nccl_tuner,
                    sizeof c->nccl_tuner, diag)) != PL_OK)
    return st;
  c->nccl_version = 0;
  char ver[32] = "";
  if ((st = hw_str(doc, "nccl_version", false, origin, ver, sizeof ver, diag)) != PL_OK)
    return st;
  struct pl_diag vd;
  pl_diag_clear(&vd);
  if (ver[0] != '\0' && (st = pl_nccl_version_parse(ver, &c->nccl_version, &vd)) != PL_OK)
    return pl_diag_set(diag, st, "%s: field 'nccl_version': %s", origin, vd.msg);
  if ((st = hw_unit(doc, "launch_overhead", PL_UNIT_SECONDS, false, false, origin,
                    &c->coll_launch_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "call_floor", PL_UNIT_SECONDS, false, false, origin, &c->coll_floor_s,
                    diag)) != PL_OK)
    return st;
  if (base_json_get(doc, "calibration") != NULL)
    c->calibrated = true;
  return hw_unit(doc, "node_other_power", PL_UNIT_WATTS, true, false, origin, &c->node_other_w,
                 diag);
}

static enum pl_status read_cluster(yajl_val doc, const char *origin, struct pl_cluster *c,
                                   struct pl_diag *diag) {
  enum pl_status st;
  if ((st = hw_str(doc, "description", false, origin, c->description, sizeof c->description,
                   diag)) != PL_OK)
    return st;
  if ((st = hw_str(doc, "gpu", true, origin, c->gpu_name, sizeof c->gpu_name, diag)) != PL_OK)
    return st;
  if ((st = hw_int(doc, "gpus_per_node", true, origin, &c->gpus_per_node, diag)) != PL_OK)
    return st;
  if (c->gpus_per_node < 1 || c->gpus_per_node > MAX_GPUS_PER_NODE)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'gpus_per_node' is %lld, expected 1..%d",
                       origin, (long long)c->gpus_per_node, MAX_GPUS_PER_NODE);
  if ((st = hw_int(doc, "segment_gpus", false, origin, &c->segment_gpus, diag)) != PL_OK)
    return st;
  if (c->segment_gpus < 0 || c->segment_gpus > c->gpus_per_node ||
      (c->segment_gpus > 0 && c->gpus_per_node % c->segment_gpus != 0))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: field 'segment_gpus' is %lld, expected 0 or a divisor of "
                       "gpus_per_node (%lld)",
                       origin, (long long)c->segment_gpus, (long long)c->gpus_per_node);
  if ((st = read_intra(doc, origin, c, diag)) != PL_OK)
    return st;
  if ((st = read_inter(doc, origin, c, diag)) != PL_OK)
    return st;
  return read_model_settings(doc, origin, c, diag);
}

static void set_name(yajl_val doc, const char *name_or_path, bool is_file, struct pl_cluster *c) {
  if (is_file) {
    snprintf(c->source_path, sizeof c->source_path, "%s", name_or_path);
    if (hw_str(doc, "name", false, "", c->name, sizeof c->name, NULL) == PL_OK && c->name[0])
      return;
    const char *base = strrchr(name_or_path, '/');
    base = base ? base + 1 : name_or_path;
    size_t n = strcspn(base, ".");
    snprintf(c->name, sizeof c->name, "%.*s", (int)(n < sizeof c->name ? n : sizeof c->name - 1),
             base);
    return;
  }
  snprintf(c->name, sizeof c->name, "%s", name_or_path);
}

/* A GPU given as a relative file path is looked for next to the cluster file
 * first, so a cluster and its GPU file can travel together. */
static void gpu_ref(const struct pl_cluster *c, char *out, size_t n) {
  snprintf(out, n, "%s", c->gpu_name);
  const char *slash = strrchr(c->source_path, '/');
  size_t len = strlen(c->gpu_name);
  bool path = strchr(c->gpu_name, '/') != NULL || (len > 5 && strcmp(c->gpu_name + len - 5, ".json") == 0);
  if (!path || c->gpu_name[0] == '/' || slash == NULL)
    return;
  char cand[HW_ORIGIN_MAX * 2];
  snprintf(cand, sizeof cand, "%.*s/%s", (int)(slash - c->source_path), c->source_path, c->gpu_name);
  FILE *f = fopen(cand, "rb");
  if (f != NULL) {
    fclose(f);
    snprintf(out, n, "%s", cand);
  }
}

/* Read a parsed document and resolve its GPU; takes ownership of doc. */
static enum pl_status cluster_from_doc(yajl_val doc, const char *name_or_path, bool is_file,
                                       const char *origin, struct pl_cluster *out,
                                       struct pl_diag *diag) {
  struct pl_cluster c;
  memset(&c, 0, sizeof c);
  set_name(doc, name_or_path, is_file, &c);
  /* every top-level key read above (and "source", a note): a near miss of one
   * ("nccl_channel", "segment_gpu") would be dropped silently, so it is an error */
  static const char *const keys[] = {
      "name", "description", "source", "gpu", "gpus_per_node", "segment_gpus", "intra", "inter",
      "cpu_vendor", "nccl_channels", "nccl_min_channels", "nccl_tuner", "nccl_version",
      "launch_overhead",
      "call_floor", "calibration", "node_other_power"};
  enum pl_status st = base_json_near_miss(doc, keys, sizeof keys / sizeof keys[0], origin, diag);
  if (st == PL_OK)
    st = read_cluster(doc, origin, &c, diag);
  base_json_free(doc);
  if (st != PL_OK)
    return st;
  struct pl_diag inner;
  pl_diag_clear(&inner);
  char ref[HW_ORIGIN_MAX * 2];
  gpu_ref(&c, ref, sizeof ref);
  st = pl_gpu_load(ref, &c.gpu, &inner);
  if (st != PL_OK)
    return pl_diag_set(diag, st, "%s: field 'gpu': %s", origin, inner.msg);
  *out = c;
  return PL_OK;
}

enum pl_status pl_cluster_load(const char *name_or_path, struct pl_cluster *out,
                               struct pl_diag *diag) {
  yajl_val doc = NULL;
  char origin[HW_ORIGIN_MAX];
  bool is_file = false;
  enum pl_status st = hw_open("clusters", name_or_path, &doc, origin, sizeof origin, &is_file,
                              diag);
  if (st != PL_OK)
    return st;
  return cluster_from_doc(doc, name_or_path, is_file, origin, out, diag);
}

enum pl_status pl_cluster_parse(const char *text, size_t len, const char *origin,
                                struct pl_cluster *out, struct pl_diag *diag) {
  yajl_val doc = NULL;
  const char *o = origin != NULL ? origin : "cluster text";
  /* base_json_parse reads only len bytes (text need not end in NUL). */
  enum pl_status st = base_json_parse(text, len, o, &doc, diag);
  if (st != PL_OK)
    return st;
  return cluster_from_doc(doc, o, true, o, out, diag);
}

double pl_cluster_node_net_bytes_per_s(const struct pl_cluster *c) {
  return (double)c->nics_per_node * c->nic_bytes_per_s;
}

/* The GPU file's "default_cluster", as the cluster preset's own name
 * (static storage), so the answer outlives the loaded GPU. */
const char *pl_cluster_default_for_gpu(const char *gpu_name) {
  struct pl_gpu g;
  if (gpu_name == NULL || pl_gpu_load(gpu_name, &g, NULL) != PL_OK ||
      g.default_cluster[0] == '\0')
    return NULL;
  const char *name;
  for (size_t i = 0; (name = pl_data_name("clusters", i)) != NULL; i++)
    if (strcmp(name, g.default_cluster) == 0)
      return name;
  return NULL;
}
