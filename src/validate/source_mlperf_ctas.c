/* source_mlperf_ctas.c: the NCCL CTA caps of the MLPerf NeMo submissions'
 * communicators (layout.nccl_max_ctas_*, src/net/ctas.c).
 *
 * The llama31_405b (v5.0, v5.1) and llama31_8b (v5.1) implementations export
 * NCCL_CFG_PATH=conf/nccl/custom_communicator_cta.yaml (config_common.sh),
 * which conf/custom.yaml passes as model.nccl_communicator_config_path to
 * Megatron-Core: parallel_state.py get_nccl_options sets each named process
 * group's ProcessGroupNCCL.Options config.max_ctas / min_ctas /
 * cga_cluster_size from it. The yaml (the same in every one of these
 * implementations, mlcommons/training_results_v5.0 @ 0fdc28f0 and v5.1 @
 * 441d65f4): dp, tp, dp_cp max_ctas 8; pp 2; cp 1; min_ctas 1.
 * NCCL then applies its own rules (NCCL 2.21-2.29):
 *  - src/init.cc envConfigOverride: NCCL_MAX_CTAS / NCCL_MIN_CTAS, where
 *    set, replace every communicator's config values ("Comm config maxCTAs
 *    reset to NCCL_MAX_CTAS"): the v5.1 config_common.sh export
 *    NCCL_MIN_CTAS=16 and NCCL_MAX_CTAS=32 ("Add Min/max NCCL CTAs for NCCL
 *    communicators"), so there every communicator's cap is 32 (MAXCHANNELS:
 *    none in effect) and the yaml's caps are inert;
 *  - src/graph/connect.cc ncclTopoPostset: nChannels = min(nChannels,
 *    maxCTAs), then copied up to max(NCCL_MIN_NCHANNELS, minCTAs): the v5.0
 *    config_common.sh export NCCL_MIN_NCHANNELS=4 (and no NCCL_M*_CTAS), so
 *    their cp (1) and pp (2) communicators run 4 channels, dp/dp_cp and tp 8.
 * The row's columns hold the yaml's max_ctas ("tp=8 cp=1 dp=8 dp_cp=8 pp=2",
 * empty where NCCL_CFG_PATH is unset) and the two environment variables; the
 * cap set here is max(NCCL_MAX_CTAS or the yaml's, NCCL_MIN_NCHANNELS).
 * Before the yaml (GPT-3 v3.1, mlcommons/training_results_v3.1 @ d06288b2,
 * NVIDIA's and Azure+NVIDIA's pytorch/config_common.sh) the same caps came
 * from the environment: the image's Megatron-Core (Dockerfile
 * MEGATRON_REVISION=df7271285d3e29c13865515a51dbbd6e25f68f5f,
 * megatron/core/parallel_state.py initialize_model_parallel) sets each group's
 * ProcessGroupNCCL.Options config.max_ctas = MEGATRON_CORE_{DP,TP,P2P}_MAX_CTAS
 * (default 32; P2P is the pipeline group), which those configs export as 8, 8
 * and 2. Column CTAS_MCORE_COL ("tp=8 dp=8 pp=2") holds them, read where the
 * yaml column is empty, by the same rules.
 * docs/collectives.md "Per-communicator CTA caps". */
#include <stdlib.h>
#include <string.h>

#include <plateau/hw.h>
#include <plateau/layout.h>

#include "validate/sources_int.h"

#define CTAS_YAML_COL "NCCL_CFG_PATH max_ctas (conf/nccl/custom_communicator_cta.yaml)"
#define CTAS_MIN_NCH_COL "NCCL_MIN_NCHANNELS (config_common.sh)"
#define CTAS_MAX_ENV_COL "NCCL_MAX_CTAS (config_common.sh)"
#define CTAS_MIN_ENV_COL "NCCL_MIN_CTAS (config_common.sh)"
#define CTAS_MCORE_COL "MEGATRON_CORE_*_MAX_CTAS (config_common.sh)"

/* The value of "key=N" in a space-separated list; 0 when absent, -1 when
 * malformed. */
static long yaml_cap(const char *list, const char *key) {
  size_t k = strlen(key);
  for (const char *p = list; *p != '\0';) {
    while (*p == ' ')
      p++;
    if (strncmp(p, key, k) == 0 && p[k] == '=') {
      char *end = NULL;
      long v = strtol(p + k + 1, &end, 10);
      return end != p + k + 1 && (*end == ' ' || *end == '\0') && v >= 1 && v <= 64 ? v : -1;
    }
    while (*p != ' ' && *p != '\0')
      p++;
  }
  return 0;
}

/* A count column: its value, 0 when empty, -1 when malformed. */
static long env_count(const char *s) {
  if (s[0] == '\0')
    return 0;
  char *end = NULL;
  long v = strtol(s, &end, 10);
  return end != s && *end == '\0' && v >= 1 && v <= 64 ? v : -1;
}

bool validate_mlperf_nccl_ctas(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  const char *col = CTAS_YAML_COL, *from = "NCCL_CFG_PATH";
  const char *yaml = cell(in, CTAS_YAML_COL);
  if (yaml[0] == '\0') {
    col = CTAS_MCORE_COL; /* v3.1: Megatron-Core's environment caps */
    from = "MEGATRON_CORE_*_MAX_CTAS";
    yaml = cell(in, CTAS_MCORE_COL);
  }
  if (yaml[0] == '\0')
    return true;
  long floor_nch = env_count(cell(in, CTAS_MIN_NCH_COL));
  long env_max = env_count(cell(in, CTAS_MAX_ENV_COL));
  if (floor_nch < 0 || env_max < 0)
    return validate_skip(row, "NCCL_MIN_NCHANNELS '%s', NCCL_MAX_CTAS '%s': not counts 1..64",
                         cell(in, CTAS_MIN_NCH_COL), cell(in, CTAS_MAX_ENV_COL));
  const char *keys[4] = {"tp", "cp", l->cp > 1 ? "dp_cp" : "dp", "pp"};
  int64_t *dst[4] = {&l->nccl_max_ctas_tp, &l->nccl_max_ctas_cp, &l->nccl_max_ctas_dp,
                     &l->nccl_max_ctas_pp};
  for (int i = 0; i < 4; i++) {
    long v = yaml_cap(yaml, keys[i]);
    if (v < 0)
      return validate_skip(row, "%s '%s': key %s not a count 1..64", col, yaml, keys[i]);
    if (v == 0)
      continue; /* not in the yaml: NCCL's default */
    if (env_max > 0)
      v = env_max; /* envConfigOverride: the environment's maxCTAs */
    if (v < floor_nch)
      v = floor_nch; /* ncclTopoPostset copies channels up to NCCL_MIN_NCHANNELS */
    *dst[i] = v;
  }
  /* short: the row's assumed text is 1 KiB (include/plateau/validate.h) */
  validate_note(row, "NCCL CTAs tp %lld cp %lld dp %lld pp %lld (%s%s)",
                (long long)l->nccl_max_ctas_tp, (long long)l->nccl_max_ctas_cp,
                (long long)l->nccl_max_ctas_dp, (long long)l->nccl_max_ctas_pp, from,
                env_max > 0 ? ", NCCL_MAX_CTAS" : "");
  return true;
}

/* The floor NCCL puts under every communicator's channels from the config's
 * environment (cluster.nccl_min_channels, src/net/tuner.c): NCCL_MIN_CTAS
 * becomes each communicator's minCTAs (src/init.cc envConfigOverride), and
 * ncclTopoPostset copies the coll channels up to max(NCCL_MIN_NCHANNELS,
 * minCTAs) (src/graph/connect.cc); nvls.cc raises the NVLS channels to
 * minCTAs. The v5.1 config_common.sh export NCCL_MIN_CTAS=16 ("Add Min/max
 * NCCL CTAs for NCCL communicators"), every row NCCL_MIN_NCHANNELS=4. A
 * communicator with a lower maxCTAs keeps it (init.cc "minCTAs %d is larger
 * than maxCTAs %d, set both"): that cap is layout.nccl_max_ctas_*, above. */
bool validate_mlperf_nccl_floor(const struct validate_in *in, struct pl_cluster *c,
                                struct pl_vrow *row) {
  long min_ctas = env_count(cell(in, CTAS_MIN_ENV_COL));
  long min_nch = env_count(cell(in, CTAS_MIN_NCH_COL));
  if (min_ctas < 0 || min_nch < 0)
    return validate_skip(row, "NCCL_MIN_CTAS '%s', NCCL_MIN_NCHANNELS '%s': not counts 1..64",
                         cell(in, CTAS_MIN_ENV_COL), cell(in, CTAS_MIN_NCH_COL));
  long floor_ch = min_ctas > min_nch ? min_ctas : min_nch;
  if (floor_ch > c->nccl_min_channels) {
    c->nccl_min_channels = floor_ch;
    validate_note(row, "NCCL channels >= %ld (NCCL_MIN_%s)", floor_ch,
                  min_ctas >= min_nch ? "CTAS" : "NCHANNELS");
  }
  return true;
}
