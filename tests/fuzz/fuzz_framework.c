/* fuzz_framework.c: framework files (--framework FILE, the presets in data/frameworks/)
 * from memory (pl_framework_parse), then what predict does with one: applied
 * onto a layout and read back as the resolved behaviours. Every error says
 * why; whatever parses gives finite host times and bucket sizes and names
 * every on/off behaviour "on", "off" or "unset". */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

static void check_names(const struct pl_framework *fw) {
  enum pl_setting v;
  for (size_t i = 0; pl_framework_setting(fw, i, &v) != NULL; i++) {
    const char *name = pl_setting_name(v);
    if (strcmp(name, "on") != 0 && strcmp(name, "off") != 0 && strcmp(name, "unset") != 0)
      abort();
  }
  const char *key = NULL;
  for (size_t i = 0; i < 64; i++)
    if (pl_framework_flag_word(fw, i, &key) != NULL && key == NULL)
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct pl_diag d;
  pl_diag_clear(&d);
  struct pl_framework fw;
  if (pl_framework_parse((const char *)data, size, "fuzz", &fw, &d) != PL_OK) {
    if (d.msg[0] == '\0')
      abort(); /* every error says why */
    return 0;
  }
  if (!isfinite(fw.host_per_kernel_s) || fw.host_per_kernel_s < 0 ||
      !isfinite(fw.host_per_gemm_s) || fw.host_per_gemm_s < 0 || fw.host_per_gemm_s > 1e-3 ||
      !isfinite(fw.host_per_launch_s) || fw.host_per_launch_s < 0 || fw.host_per_launch_s > 1e-3 ||
      !isfinite(fw.zero3_list_copy_s) || fw.zero3_list_copy_s < 0 || !isfinite(fw.bucket_mb) ||
      fw.bucket_mb < 0 || fw.logit_metric_passes < 0)
    abort();
  check_names(&fw);
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  pl_framework_apply(&fw, &l);
  if (!isfinite(l.bucket_bytes) || l.bucket_bytes < 0)
    abort();
  struct pl_framework resolved;
  pl_framework_resolved(&fw, &l, &resolved);
  check_names(&resolved);
  if (!isfinite(resolved.bucket_mb))
    abort();
  return 0;
}
