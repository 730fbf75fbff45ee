/* source_bridge_qwen3.c: the Megatron-Bridge Qwen3 MoE rows whose stated
 * layout is not the one their release's performance configuration runs (part
 * of source_bridge.c's reading, which calls it). The same rule as the Llama 3
 * 70B and GPT-OSS rows of source_bridge_runtime.c validate_bridge_offload: a
 * row is compared with a configuration only where it is the configuration of
 * its section's release for its model, GPU and GPU count; a row that states
 * another parallel layout or micro-batch is not a run the release's scripts
 * made, and is skipped with both layouts in its reason.
 *
 * Each section was read in the release of its month (as
 * validate_bridge_ep_overlap): 25.11 is v0.2.0-v0.2.2
 * scripts/performance/configs/qwen3/workload_base_configs.py (the three tags
 * agree on every configuration used here), 26.02.01 v0.3.1
 * scripts/performance/configs/qwen/qwen3_workload_base_configs.py;
 * WorkloadBaseConfig (scripts/performance/
 * utils/utils.py) defaults micro_batch_size 1 and no virtual pipeline, and
 * the FP8_MX configs are the FP8_CS ones. Only the sections below disagree:
 * every Qwen3 row of 26.02 (v0.3.0), 26.04 (v0.4.0) and 26.04.01 (v0.4.2)
 * states its configuration's tp, pp, vp, ep, micro-batch and global batch
 * (session 21, qwen21: each release's configs evaluated and compared with
 * every Qwen3 row of the table). The 25.11 rows on 256 GB200/GB300 have no
 * 256-GPU configuration in v0.2.x and are not compared.
 *
 * What the published figures say besides: the 25.11 H100 Qwen3-30B-A3B row
 * (5,275 tokens/s/GPU at the stated pp 2 vp 24, micro-batch 2) is the 26.02
 * row of the configuration v0.2.x names (pp 2 vp 12, micro-batch 1: 5,113),
 * and the 26.02.01 H100 row (9,058 at the stated pp 2 vp 12 ep 8) the 26.04
 * and 26.04.01 rows of the pp 1 ep 16 configuration v0.3.1 names (8,901,
 * 8,960); the 26.02.01 B300 row (2,644 at the stated vp 4) is close to 26.02's
 * vp 4 run (2,691), not to a run of v0.3.1's pp 8 without a virtual pipeline.
 * Either way the row's layout and its release disagree, and which one ran is
 * not known. */
#include <stdint.h>
#include <string.h>

#include <plateau/layout.h>

#include "validate/source_bridge_int.h"
#include "validate/validate_int.h"

bool validate_bridge_qwen3_layout(const struct validate_in *in, const struct pl_layout *l,
                                  struct pl_vrow *row) {
  static const struct {
    const char *section, *model, *gpu; /* gpu: the name after "DGX-" */
    int64_t gpus;
    int64_t tp, pp, vp, ep, mbs, gbs; /* the configuration's; vp 1: none */
    const char *config;
  } cfg[] = {
      /* v0.2.0-v0.2.2 configs/qwen3/workload_base_configs.py */
      {"25.11", "Qwen3_30B", "GB300", 8, 1, 1, 1, 8, 8, 512,
       "v0.2.x QWEN3_30B_A3B_GB300_FP8_CS_BASE_CONFIG"},
      {"25.11", "Qwen3_30B", "GB200", 8, 1, 1, 1, 8, 4, 512,
       "v0.2.x QWEN3_30B_A3B_GB200_FP8_CS_BASE_CONFIG"},
      {"25.11", "Qwen3_30B", "B200", 8, 1, 1, 1, 8, 1, 512,
       "v0.2.x QWEN3_30B_A3B_B200_FP8_CS_BASE_CONFIG"},
      {"25.11", "Qwen3_30B", "H100", 16, 1, 2, 12, 8, 1, 512,
       "v0.2.x QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG"},
      {"25.11", "Qwen3_235B", "B200", 64, 1, 8, 4, 8, 1, 1024,
       "v0.2.x QWEN3_235B_A22B_B200_FP8_CS_BASE_CONFIG"},
      {"25.11", "Qwen3_235B", "H100", 256, 2, 8, 4, 32, 1, 2048,
       "v0.2.x QWEN3_235B_A22B_H100_FP8_CS_BASE_CONFIG"},
      /* v0.3.1 configs/qwen/qwen3_workload_base_configs.py */
      {"26.02.01", "Qwen3_30B", "GB300", 8, 1, 1, 1, 8, 8, 512,
       "v0.3.1 QWEN3_30B_A3B_PRETRAIN_CONFIG_GB300_FP8_CS_V1"},
      {"26.02.01", "Qwen3_30B", "GB200", 8, 1, 1, 1, 8, 4, 512,
       "v0.3.1 QWEN3_30B_A3B_PRETRAIN_CONFIG_GB200_FP8_CS_V1"},
      {"26.02.01", "Qwen3_30B", "B300", 8, 1, 1, 1, 8, 8, 512,
       "v0.3.1 QWEN3_30B_A3B_PRETRAIN_CONFIG_B300_FP8_CS_V1"},
      {"26.02.01", "Qwen3_30B", "B200", 8, 1, 1, 1, 8, 4, 512,
       "v0.3.1 QWEN3_30B_A3B_PRETRAIN_CONFIG_B200_FP8_CS_V1"},
      {"26.02.01", "Qwen3_30B", "H100", 16, 1, 1, 1, 16, 1, 1024,
       "v0.3.1 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1"},
      {"26.02.01", "Qwen3_235B", "GB300", 256, 1, 4, 1, 32, 2, 8192,
       "v0.3.1 QWEN3_235B_A22B_PRETRAIN_CONFIG_GB300_FP8_CS_V2"},
      {"26.02.01", "Qwen3_235B", "GB200", 256, 1, 8, 1, 32, 1, 8192,
       "v0.3.1 QWEN3_235B_A22B_PRETRAIN_CONFIG_GB200_FP8_CS_V2"},
      {"26.02.01", "Qwen3_235B", "B300", 256, 1, 8, 1, 8, 1, 8192,
       "v0.3.1 QWEN3_235B_A22B_PRETRAIN_CONFIG_B300_FP8_CS_V2"},
      {"26.02.01", "Qwen3_235B", "H100", 256, 2, 8, 4, 32, 1, 8192,
       "v0.3.1 QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V2"},
  };
  int64_t vp = l->vp > 1 ? l->vp : 1; /* an empty vp cell reads 0 here: none */
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_names_are(in, cfg[i].section, cfg[i].model, cfg[i].gpu) || l->gpus != cfg[i].gpus)
      continue;
    if (l->tp == cfg[i].tp && l->pp == cfg[i].pp && vp == cfg[i].vp && l->ep == cfg[i].ep &&
        l->mbs == cfg[i].mbs && l->gbs == cfg[i].gbs)
      return true;
    return validate_skip(row,
                         "the row's layout (tp %lld pp %lld vp %lld ep %lld, mbs %lld gbs %lld) "
                         "is not the release's (%s: tp %lld pp %lld vp %lld ep %lld, mbs %lld "
                         "gbs %lld)",
                         (long long)l->tp, (long long)l->pp, (long long)vp, (long long)l->ep,
                         (long long)l->mbs, (long long)l->gbs, cfg[i].config, (long long)cfg[i].tp,
                         (long long)cfg[i].pp, (long long)cfg[i].vp, (long long)cfg[i].ep,
                         (long long)cfg[i].mbs, (long long)cfg[i].gbs);
  }
  return true;
}
