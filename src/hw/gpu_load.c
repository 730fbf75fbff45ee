/* gpu_load.c: read a GPU description (data/gpus/<name>.json or a file) into
 * struct pl_gpu. Every quantity is a string with its unit, optionally wrapped
 * as {"value": ..., "source": ...}; the source text is for people and is not
 * kept. Keys this loader does not know are ignored, so other parts of plateau
 * can add sections (the step simulator's "efficiency" object, for one).
 * Format and field list: docs/hardware.md. */
#include <plateau/alloc.h>
#include <plateau/data.h>
#include <plateau/hw.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/gpu_efficiency.h"
#include "hw/hw_int.h"

static const char *const arch_names[] = {"volta", "ampere", "hopper", "blackwell", "cdna2",
                                         "cdna3", "other", NULL};
static const char *const vendor_names[] = {"nvidia", "amd", "other", NULL};

/* "compute_capability": optional, NVIDIA's "major.minor" (developer.nvidia.com/
 * cuda-gpus), kept as major x 10 + minor, the form Transformer Engine's
 * cuda::sm_arch returns (100 for 10.0); 0 when not given. */
static enum pl_status read_compute_capability(yajl_val doc, const char *origin, struct pl_gpu *g,
                                              struct pl_diag *diag) {
  char cc[16] = "";
  enum pl_status st = hw_str(doc, "compute_capability", false, origin, cc, sizeof cc, diag);
  if (st != PL_OK || cc[0] == '\0')
    return st;
  /* digits "." one digit, nothing else */
  char *end = NULL;
  long major = strtol(cc, &end, 10);
  bool ok = end != cc && cc[0] >= '0' && cc[0] <= '9' && major >= 1 && major <= 99 &&
            end[0] == '.' && end[1] >= '0' && end[1] <= '9' && end[2] == '\0';
  if (!ok)
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: field 'compute_capability' is '%s', expected major.minor such as "
                       "\"10.0\"",
                       origin, cc);
  int minor = end[1] - '0';
  g->sm_arch = (int)major * 10 + minor;
  return PL_OK;
}

static enum pl_status read_compute(yajl_val doc, const char *origin, struct pl_gpu *g,
                                   struct pl_diag *diag) {
  enum pl_status st;
  if ((st = hw_unit(doc, "peak_bf16", PL_UNIT_FLOPS_PER_S, true, true, origin,
                    &g->peak_bf16_flops_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "peak_fp8", PL_UNIT_FLOPS_PER_S, false, false, origin,
                    &g->peak_fp8_flops_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "peak_tf32", PL_UNIT_FLOPS_PER_S, false, false, origin,
                    &g->peak_tf32_flops_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "peak_mxfp8", PL_UNIT_FLOPS_PER_S, false, false, origin,
                    &g->peak_mxfp8_flops_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "peak_nvfp4", PL_UNIT_FLOPS_PER_S, false, false, origin,
                    &g->peak_nvfp4_flops_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_int(doc, "sm_count", true, origin, &g->sm_count, diag)) != PL_OK)
    return st;
  if (g->sm_count < 1 || g->sm_count > 100000)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'sm_count' is %lld, expected 1..100000",
                       origin, (long long)g->sm_count);
  return read_compute_capability(doc, origin, g, diag);
}

static enum pl_status read_memory_power(yajl_val doc, const char *origin, struct pl_gpu *g,
                                        struct pl_diag *diag) {
  enum pl_status st;
  if ((st = hw_unit(doc, "hbm_capacity", PL_UNIT_BYTES, true, true, origin, &g->hbm_bytes,
                    diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "hbm_bandwidth", PL_UNIT_BYTES_PER_S, true, true, origin,
                    &g->hbm_bytes_per_s, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "tdp", PL_UNIT_WATTS, true, true, origin, &g->tdp_w, diag)) != PL_OK)
    return st;
  if ((st = hw_unit(doc, "idle_power", PL_UNIT_WATTS, true, false, origin, &g->idle_w, diag)) !=
      PL_OK)
    return st;
  if (g->idle_w > g->tdp_w)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'idle_power' (%g W) exceeds 'tdp' (%g W)",
                       origin, g->idle_w, g->tdp_w);
  return PL_OK;
}

/* "links": {"count", "bandwidth", "nccl_bandwidth"}; optional (PCIe-only GPUs). */
static enum pl_status read_links(yajl_val doc, const char *origin, struct pl_gpu *g,
                                 struct pl_diag *diag) {
  enum pl_status st;
  yajl_val sec = hw_section(doc, "links", false, origin, diag, &st);
  if (sec == NULL)
    return st;
  char sub[HW_ORIGIN_MAX + 32];
  snprintf(sub, sizeof sub, "%s, section 'links'", origin);
  if ((st = hw_int(sec, "count", true, sub, &g->link_count, diag)) != PL_OK)
    return st;
  if (g->link_count < 0 || g->link_count > 64)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field 'count' is %lld, expected 0..64", sub,
                       (long long)g->link_count);
  bool need = g->link_count > 0;
  if ((st = hw_unit(sec, "bandwidth", PL_UNIT_BYTES_PER_S, need, need, sub, &g->link_bytes_per_s,
                    diag)) != PL_OK)
    return st;
  g->nccl_link_bytes_per_s = g->link_bytes_per_s;
  return hw_unit(sec, "nccl_bandwidth", PL_UNIT_BYTES_PER_S, false, need, sub,
                 &g->nccl_link_bytes_per_s, diag);
}

/* What the GPU is called elsewhere: its default cluster preset and the
 * driver's device names (docs/hardware.md). */
static enum pl_status read_names(yajl_val doc, const char *origin, struct pl_gpu *g,
                                 struct pl_diag *diag) {
  enum pl_status st = hw_str(doc, "default_cluster", false, origin, g->default_cluster,
                             sizeof g->default_cluster, diag);
  yajl_val names = base_json_get(doc, "device_names");
  if (st != PL_OK || names == NULL)
    return st;
  if (!YAJL_IS_ARRAY(names) || names->u.array.len > PL_GPU_DEVICE_NAMES)
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: field 'device_names' must be an array of at most %d strings", origin,
                       PL_GPU_DEVICE_NAMES);
  for (size_t i = 0; i < names->u.array.len; i++) {
    const char *s = YAJL_GET_STRING(names->u.array.values[i]);
    if (s == NULL || s[0] == '\0' || strlen(s) >= sizeof g->device_names[0])
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: field 'device_names': element %zu must be a string of 1 to %zu "
                         "characters",
                         origin, i + 1, sizeof g->device_names[0] - 1);
    snprintf(g->device_names[g->n_device_names++], sizeof g->device_names[0], "%s", s);
  }
  return PL_OK;
}

static enum pl_status read_gpu(yajl_val doc, const char *origin, struct pl_gpu *g,
                               struct pl_diag *diag) {
  enum pl_status st;
  if ((st = hw_word(doc, "vendor", true, origin, vendor_names, g->vendor, sizeof g->vendor,
                    diag)) != PL_OK)
    return st;
  if ((st = hw_word(doc, "arch", true, origin, arch_names, g->arch, sizeof g->arch, diag)) != PL_OK)
    return st;
  if ((st = hw_str(doc, "description", false, origin, g->description, sizeof g->description,
                   diag)) != PL_OK)
    return st;
  if ((st = read_compute(doc, origin, g, diag)) != PL_OK)
    return st;
  if ((st = read_memory_power(doc, origin, g, diag)) != PL_OK)
    return st;
  if ((st = read_links(doc, origin, g, diag)) != PL_OK)
    return st;
  return read_names(doc, origin, g, diag);
}

/* The preset name, the file's "name" field, or the file's base name. */
static enum pl_status set_name(yajl_val doc, const char *name_or_path, bool is_file,
                               const char *origin, struct pl_gpu *g, struct pl_diag *diag) {
  if (!is_file) {
    snprintf(g->name, sizeof g->name, "%s", name_or_path);
    return PL_OK;
  }
  enum pl_status st = hw_str(doc, "name", false, origin, g->name, sizeof g->name, diag);
  if (st != PL_OK || g->name[0] != '\0')
    return st;
  const char *base = strrchr(name_or_path, '/');
  base = base ? base + 1 : name_or_path;
  size_t n = strcspn(base, ".");
  snprintf(g->name, sizeof g->name, "%.*s", (int)(n < sizeof g->name ? n : sizeof g->name - 1),
           base);
  return PL_OK;
}

/* Read a parsed document; takes ownership of doc. */
static enum pl_status gpu_from_doc(yajl_val doc, const char *name_or_path, bool is_file,
                                   const char *origin, struct pl_gpu *out, struct pl_diag *diag) {
  struct pl_gpu g;
  memset(&g, 0, sizeof g);
  /* every top-level key read here and by the modules' sections ("efficiency"), and
   * "source": a near miss of one ("peak_fp8s", "idle_powr") would be dropped
   * silently, so it is an error */
  static const char *const keys[] = {
      "name", "description", "source", "vendor", "arch", "default_cluster", "device_names",
      "compute_capability", "peak_bf16", "peak_fp8", "peak_tf32", "peak_mxfp8", "peak_nvfp4",
      "sm_count", "hbm_capacity", "hbm_bandwidth", "tdp", "idle_power", "links", "efficiency"};
  enum pl_status st = base_json_near_miss(doc, keys, sizeof keys / sizeof keys[0], origin, diag);
  if (st == PL_OK)
    st = set_name(doc, name_or_path, is_file, origin, &g, diag);
  if (st == PL_OK)
    st = read_gpu(doc, origin, &g, diag);
  /* Sections owned by other modules are read here, after the core fields. */
  if (st == PL_OK)
    st = hw_gpu_efficiency_load(doc, origin, &g, diag);
  base_json_free(doc);
  if (st == PL_OK)
    *out = g;
  return st;
}

enum pl_status pl_gpu_load(const char *name_or_path, struct pl_gpu *out, struct pl_diag *diag) {
  yajl_val doc = NULL;
  char origin[HW_ORIGIN_MAX];
  bool is_file = false;
  enum pl_status st = hw_open("gpus", name_or_path, &doc, origin, sizeof origin, &is_file, diag);
  if (st != PL_OK)
    return st;
  return gpu_from_doc(doc, name_or_path, is_file, origin, out, diag);
}

enum pl_status pl_gpu_parse(const char *text, size_t len, const char *origin, struct pl_gpu *out,
                            struct pl_diag *diag) {
  yajl_val doc = NULL;
  const char *o = origin != NULL ? origin : "gpu text";
  /* base_json_parse reads only len bytes (text need not end in NUL). */
  enum pl_status st = base_json_parse(text, len, o, &doc, diag);
  if (st != PL_OK)
    return st;
  return gpu_from_doc(doc, o, true, o, out, diag);
}

double pl_gpu_peak_flops_per_s(const struct pl_gpu *g, enum pl_dtype dtype) {
  switch (dtype) {
  case PL_DTYPE_BF16: return g->peak_bf16_flops_per_s;
  case PL_DTYPE_FP8: return g->peak_fp8_flops_per_s;
  case PL_DTYPE_MXFP8: return g->peak_mxfp8_flops_per_s;
  case PL_DTYPE_NVFP4: return g->peak_nvfp4_flops_per_s;
  }
  return g->peak_bf16_flops_per_s;
}

/* Formats: OCP Microscaling Formats (MX) v1.0 (MXFP8: k = 32, E8M0 scale);
 * NVIDIA "Introducing NVFP4" (16-value blocks, E4M3 scale). */
bool pl_gpu_fp8_non_tn_gemm(const struct pl_gpu *g) {
  return (g->sm_arch >= 100 && g->sm_arch < 120) || g->sm_arch >= 130;
}

double pl_dtype_element_bytes(enum pl_dtype dtype) {
  switch (dtype) {
  case PL_DTYPE_BF16: return 2.0;
  case PL_DTYPE_FP8: return 1.0;
  case PL_DTYPE_MXFP8: return 1.0 + 1.0 / 32.0;
  case PL_DTYPE_NVFP4: return 0.5 + 1.0 / 16.0;
  }
  return 2.0;
}

const char *pl_gpu_preset_for_device(const char *device) {
  const char *best = NULL, *name;
  size_t best_len = 0;
  for (size_t i = 0; device != NULL && (name = pl_data_name("gpus", i)) != NULL; i++) {
    struct pl_gpu g;
    if (pl_gpu_load(name, &g, NULL) != PL_OK)
      continue;
    for (int k = 0; k < g.n_device_names; k++) {
      size_t n = strlen(g.device_names[k]);
      if (n > best_len && strstr(device, g.device_names[k]) != NULL) {
        best = name;
        best_len = n;
      }
    }
  }
  return best;
}
