/* test_run_flags.c: the framework, hardware and layout flag tables
 * (include/plateau/run_flags.h). What a table writes it reads back to the
 * same run (every preset, and counts and times set); hardware edits by hand;
 * quantities written in the unit a person reads and read back exactly. */
#include <plateau/data.h>
#include <plateau/run_flags.h>

#include <string.h>

#include "base/flag_text.h"
#include "check.h"

/* Flags as written (" --name value --name 'a b'"), split into name/value
 * pairs for a getter. */
struct argv_pairs {
  char buf[4096];
  const char *name[160], *value[160];
  int n;
};

static void split(const char *text, struct argv_pairs *a) {
  snprintf(a->buf, sizeof a->buf, "%s", text);
  a->n = 0;
  char *p = a->buf;
  while ((p = strstr(p, "--")) != NULL && a->n < 160) {
    char *name = p + 2, *sp = strchr(name, ' ');
    if (sp == NULL)
      break;
    *sp = '\0';
    char *v = sp + 1, *end;
    if (*v == '\'') {
      v++;
      end = strchr(v, '\'');
    } else {
      end = strchr(v, ' ');
    }
    if (end != NULL)
      *end++ = '\0';
    a->name[a->n] = name;
    a->value[a->n++] = v;
    p = end != NULL ? end : v + strlen(v);
  }
}

static const char *get(void *ctx, const char *name) {
  const struct argv_pairs *a = ctx;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->name[i], name) == 0)
      return a->value[i];
  return NULL;
}

/* The framework of a run resolved and written, read back onto an empty
 * framework and resolved again: the same text (every row of the table is
 * written by a resolved framework, so every row is read back). */
static void round_trip(const struct pl_framework *given, const char *what) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  pl_framework_apply(given, &l);
  struct pl_framework r;
  pl_framework_resolved(given, &l, &r);
  char first[4096], second[4096];
  size_t need = pl_framework_flags_format(&r, first, sizeof first);
  CHECK(need > 0 && need < sizeof first);
  struct argv_pairs a;
  split(first, &a);
  struct pl_framework back;
  memset(&back, 0, sizeof back);
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_framework_flags_read(&back, get, &a, &d), PL_OK, dp);
  struct pl_layout l2;
  memset(&l2, 0, sizeof l2);
  pl_framework_apply(&back, &l2);
  struct pl_framework r2;
  pl_framework_resolved(&back, &l2, &r2);
  pl_framework_flags_format(&r2, second, sizeof second);
  CHECK_STR(second, first);
  if (strcmp(first, second) != 0)
    fprintf(stderr, "  (%s)\n", what);
}

static void test_framework_round_trip(void) {
  for (size_t i = 0; pl_data_name("frameworks", i) != NULL; i++) {
    struct pl_framework fw;
    struct pl_diag d;
    CHECK(pl_framework_preset(pl_data_name("frameworks", i), &fw, &d) == PL_OK);
    round_trip(&fw, pl_data_name("frameworks", i));
  }
  /* the fields with no preset value: counts and times set, eager cross-entropy on */
  struct pl_framework fw;
  memset(&fw, 0, sizeof fw);
  fw.step_syncs_set = true;
  fw.step_sync_all_reduces = 3;
  fw.step_sync_broadcasts = 1;
  fw.step_sync_all_gathers = 4;
  fw.opt_syncs_per_tensor_set = true;
  fw.opt_syncs_per_tensor = 1;
  fw.host_per_kernel_set = true;
  fw.host_per_kernel_s = 37e-6;
  fw.eager_xent = PL_SETTING_ON;
  fw.bucket_mb = 1907.3486328125; /* 2e9 B, DeepSpeed's bucket of 5e8 fp32 elements */
  round_trip(&fw, "counts and times");
  char text[4096];
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  pl_framework_apply(&fw, &l);
  struct pl_framework r;
  pl_framework_resolved(&fw, &l, &r);
  pl_framework_flags_format(&r, text, sizeof text);
  CHECK(strstr(text, " --step-sync-all-reduces 3 --step-sync-broadcasts 1 "
                     "--step-sync-all-gathers 4 --opt-syncs-per-tensor 1") != NULL);
  CHECK(strstr(text, " --host-per-kernel '37 us'") != NULL);
  CHECK(strstr(text, " --eager-cross-entropy on") != NULL);
  CHECK(strstr(text, " --bucket-mb 1907.3486328125") != NULL);
}

/* One flag given alone over a preset: llm-foundry's step syncs (3, 1, 4 in
 * data/frameworks/llm-foundry.json) keep the two not given. */
static void test_framework_one_flag(void) {
  struct argv_pairs a;
  split(" --framework llm-foundry --step-sync-broadcasts 0", &a);
  struct pl_framework fw, preset;
  memset(&fw, 0, sizeof fw);
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_framework_flags_read(&fw, get, &a, &d), PL_OK, dp);
  CHECK(pl_framework_preset("llm-foundry", &preset, &d) == PL_OK);
  CHECK_EQ_INT(fw.step_sync_broadcasts, 0);
  CHECK_EQ_INT(fw.step_sync_all_reduces, preset.step_sync_all_reduces);
  CHECK_EQ_INT(fw.step_sync_all_gathers, preset.step_sync_all_gathers);
  split(" --step-sync-broadcasts 65", &a);
  CHECK_STATUS(pl_framework_flags_read(&fw, get, &a, &d), PL_ERR_PARSE, dp);
  CHECK_STR(d.msg, "--step-sync-broadcasts: '65' is not a call count 0..64");
}

/* Hardware edits by hand. aws-p4de: 8 GPUs and 4 EFA NICs per node, so 2
 * GPUs per node keep 4 x 2 / 8 = 1 NIC, and 3 GPUs would hold 1.5 NICs. */
static void test_cluster_flags(void) {
  struct pl_cluster c, base;
  struct pl_diag d, *dp = &d;
  CHECK(pl_cluster_load("aws-p4de", &base, &d) == PL_OK);
  c = base;
  struct argv_pairs a;
  split(" --gpus-per-node 2 --hbm '40 GiB' --hbm-bandwidth '1.5 TB/s' --nic-bandwidth '50 Gb/s'"
        " --power-cap '300 W'",
        &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  CHECK_EQ_INT(c.gpus_per_node, 2);
  CHECK_EQ_INT(c.nics_per_node, 1);
  CHECK_NEAR_REL(c.gpu.hbm_bytes, 40.0 * 1073741824.0, 0);
  CHECK_NEAR_REL(c.gpu.hbm_bytes_per_s, 1.5e12, 0);
  CHECK_NEAR_REL(c.nic_bytes_per_s, 50e9 / 8, 0); /* 6.25 GB/s */
  CHECK_NEAR_REL(c.gpu.power_cap_w, 300, 0);
  char text[512];
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, " --power-cap '300 W' --hbm '40 GiB' --hbm-bandwidth '1.5 TB/s'"
                  " --nic-bandwidth '50 Gb/s' --gpus-per-node 2");
  pl_cluster_flags_format(&base, &base, text, sizeof text);
  CHECK_STR(text, ""); /* nothing changed, nothing written */
  c = base;
  split(" --gpus-per-node 3", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_ERR_RANGE, dp);
  c = base;
  split(" --gpus-per-node 9", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_ERR_RANGE, dp);
  c = base; /* EFA: no SHARP */
  split(" --sharp on", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_ERR_RANGE, dp);
  CHECK(pl_cluster_load("dgx-h100", &base, &d) == PL_OK);
  c = base;
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  CHECK(c.sharp);
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, " --sharp on");
  /* --gpu-variability: a fraction or a percentage, written back as a fraction */
  c = base;
  split(" --gpu-variability 2%", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  CHECK_NEAR_REL(c.gpu.clock_cv, 0.02, 1e-15);
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, " --gpu-variability 0.02");
  split(" --gpu-variability 0.013", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, " --gpu-variability 0.013");
  split(" --gpu-variability off", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  CHECK_NEAR_REL(c.gpu.clock_cv, 0, 0);
  split(" --gpu-variability 12%", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_ERR_RANGE, dp);
  CHECK_STR(d.msg, "--gpu-variability: '12%' is not a clock spread from 0 to 0.1 (standard "
                   "deviation over mean, e.g. 0.02 or '2%'; off)");
  split(" --gpu-variability x%", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_ERR_RANGE, dp);
  /* --nccl-tuner: dgx-h100 has NCCL's own tuner; the plugin's map is an edit, written back;
   * aws-p5 sets the plugin, so nccl is the edit there and its own value writes nothing */
  c = base;
  CHECK_STR(c.nccl_tuner, "nccl");
  split(" --nccl-tuner aws-ofi-nccl-p5", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  CHECK_STR(c.nccl_tuner, "aws-ofi-nccl-p5");
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, " --nccl-tuner aws-ofi-nccl-p5");
  CHECK(pl_cluster_load("aws-p5", &base, &d) == PL_OK);
  CHECK_STR(base.nccl_tuner, "aws-ofi-nccl-p5");
  c = base;
  split(" --nccl-tuner nccl", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  CHECK_STR(c.nccl_tuner, "nccl");
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, " --nccl-tuner nccl");
  c = base;
  split(" --nccl-tuner aws-ofi-nccl-p5", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_OK, dp);
  pl_cluster_flags_format(&c, &base, text, sizeof text);
  CHECK_STR(text, "");
  split(" --nccl-tuner aws-ofi-nccl", &a);
  CHECK_STATUS(pl_cluster_flags_read(&c, get, &a, &d), PL_ERR_PARSE, dp);
  CHECK_STR(d.msg, "--nccl-tuner: unknown value 'aws-ofi-nccl' (expected nccl|aws-ofi-nccl-p5)");
  CHECK_STR(c.nccl_tuner, "aws-ofi-nccl-p5"); /* a refused value leaves the cluster's */
  CHECK_STR(pl_nccl_tuner_name(0), "nccl");
  CHECK_STR(pl_nccl_tuner_name(1), "aws-ofi-nccl-p5");
  CHECK(pl_nccl_tuner_name(2) == NULL);
}

/* The layout table over an empty layout: each flag sets its field and
 * nothing else; --recompute-modules without --recompute makes recompute
 * selective (Megatron-Core reads recompute_modules with
 * --recompute-granularity selective); bad values give the CLI's one-line
 * errors. */
static void test_layout_flags(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  struct argv_pairs a;
  struct pl_diag d, *dp = &d;
  split(" --gpus 16 --tp 2 --pp 4 --first-stage-layers 3 --pipeline-layout 'Et|tt|tt|tL'"
        " --recompute-modules core_attn,mlp --account-embed-loss on --cuda-graph-scope attn"
        " --moe-imbalance 1.5 --schedule gpipe",
        &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK_EQ_INT(l.gpus, 16);
  CHECK_EQ_INT(l.tp, 2);
  CHECK_EQ_INT(l.pp, 4);
  CHECK_EQ_INT(l.cp, 0); /* not given: left for pl_predict */
  CHECK_EQ_INT(l.first_stage_layers, 3);
  CHECK_STR(l.pipeline_layout, "Et|tt|tt|tL");
  CHECK(l.recompute == PL_RECOMPUTE_SELECTIVE);
  CHECK_EQ_INT(l.recompute_modules, PL_RCM_CORE_ATTN | PL_RCM_MLP); /* 1 + 16 = 17 */
  CHECK(l.account_embed_loss);
  CHECK_EQ_INT(l.cuda_graph_scopes, PL_CGS_ATTN);
  CHECK_NEAR_REL(l.moe_imbalance, 1.5, 0);
  CHECK(l.schedule == PL_SCHEDULE_GPIPE);
  CHECK(!l.shard_set);
  /* over a layout already filled (validate's columns): only the flags given move */
  split(" --recompute-method uniform", &a);
  l.recompute = PL_RECOMPUTE_FULL;
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.recompute_uniform);
  CHECK_EQ_INT(l.gpus, 16);
  static const struct {
    const char *flags, *msg;
  } bad[] = {
      {" --tp two", "--tp: "},
      {" --gpus 8 --nodes 1", "give --gpus or --nodes, not both"},
      {" --moe-imbalance 0.5", "--moe-imbalance: must be at least 1 (balanced), not '0.5'"},
      {" --recompute full --recompute-modules core_attn",
       "--recompute-modules: needs --recompute selective (Megatron-Core reads recompute_modules "
       "with selective granularity only), not full"},
      {" --recompute selective --recompute-method block",
       "--recompute-method: needs --recompute full (Megatron applies it to the full granularity "
       "only)"},
      {" --account-embed-loss yes", "--account-embed-loss: unknown value 'yes' (expected off|on)"},
      {" --cuda-graph-scope everything", "--cuda-graph-scope: "},
      {" --defer-embedding-wgrad 0", "--defer-embedding-wgrad: '0' is not off, all or a micro-batch"},
      {" --defer-embedding-wgrad some", "--defer-embedding-wgrad: 'some' is not off, all"},
      {" --shard zero4", "--shard: "},
      {" --task finetune", "--task: unknown task 'finetune' (expected pretrain|sft|lora)"},
      {" --task lora --lora-targets linear_qkv,qkv", "--lora-targets: unknown target 'qkv'"},
      {" --lora-rank 0x", "--lora-rank: "},
      {" --cp-comm-type allgather", "--cp-comm-type: unknown cp comm type 'allgather' (expected "
                                    "p2p|all_gather|a2a|a2a+p2p)"},
      {" --cp-a2a-size two", "--cp-a2a-size: "},
      {" --pp-schedules four", "--pp-schedules: "},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&l, 0, sizeof l);
    split(bad[i].flags, &a);
    CHECK(pl_layout_flags_read(&l, get, &a, &d) != PL_OK);
    CHECK(strncmp(d.msg, bad[i].msg, strlen(bad[i].msg)) == 0);
  }
  /* the table names each flag once, the ints first */
  CHECK_STR(pl_layout_flag_name(0), "gpus");
  size_t n = 0;
  for (; pl_layout_flag_name(n) != NULL; n++)
    for (size_t k = 0; k < n; k++)
      CHECK(strcmp(pl_layout_flag_name(k), pl_layout_flag_name(n)) != 0);
  CHECK_EQ_INT((int64_t)n, 47); /* 24 counts (bf16-last-blocks, lora-rank, packed-sample-len, cp-a2a-size, pp-schedules the last) + 23 words
                                   (bf16-modules, moe-fake-gate, moe-act-compiled, moe-fc1-bias-eager, fsdp-ga-nosync, task, lora-targets, defer-embedding-wgrad, cp-comm-type the last) */
  /* written and read back: the same text (an MoE layout with every optional flag set) */
  memset(&l, 0, sizeof l);
  split(" --gpus 64 --tp 2 --pp 4 --cp 1 --vp 2 --seq 4096 --mbs 1 --gbs 256 --shard zero1"
        " --dtype mxfp8 --schedule interleaved --recompute selective --recompute-modules"
        " core_attn,moe_act --first-stage-layers 3 --mtp-layers 1 --account-embed-loss on"
        " --ep 8 --etp 1 --moe-dispatch deepep --moe-imbalance 1.25 --cuda-graph-scope"
        " attn,moe_router --moe-pad-capacity on --moe-force-balance on --defer-embedding-wgrad 22",
        &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  char one[1024], two[1024];
  size_t need = pl_layout_flags_format(&l, true, one, sizeof one);
  CHECK_EQ_INT((int64_t)need, (int64_t)strlen(one));
  CHECK_STR(one, " --gpus 64 --tp 2 --pp 4 --cp 1 --vp 2 --seq 4096 --mbs 1 --gbs 256 --shard zero1"
                 " --dtype mxfp8 --schedule interleaved --recompute selective --recompute-modules"
                 " core_attn,moe_act --first-stage-layers 3 --mtp-layers 1 --account-embed-loss on"
                 " --ep 8 --etp 1 --moe-dispatch deepep --moe-imbalance 1.25"
                 " --moe-pad-capacity on --moe-force-balance on --cuda-graph-scope attn,moe_router"
                 " --defer-embedding-wgrad 22");
  struct pl_layout back;
  memset(&back, 0, sizeof back);
  split(one, &a);
  CHECK_STATUS(pl_layout_flags_read(&back, get, &a, &d), PL_OK, dp);
  pl_layout_flags_format(&back, true, two, sizeof two);
  CHECK_STR(two, one);
  pl_layout_flags_format(&back, false, two, sizeof two); /* a dense model: no MoE flags */
  CHECK(strstr(two, "--ep") == NULL && strstr(two, "--moe-dispatch") == NULL &&
        strstr(two, "--moe-pad-capacity") == NULL && strstr(two, "--moe-force-balance") == NULL);
  CHECK(strstr(two, "--task") == NULL); /* pre-training writes no task */
  /* NeMo AutoModel's fake gate (layout.moe_fake_gate) written after the forced balance's place
   * and read back; a dense model writes neither */
  memset(&l, 0, sizeof l);
  split(" --gpus 8 --ep 8 --moe-dispatch deepep --moe-fake-gate on --moe-act-compiled on"
        " --moe-fc1-bias-eager on", &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.moe_fake_gate && l.moe_act_compiled && l.moe_fc1_bias_eager);
  pl_layout_flags_format(&l, true, one, sizeof one);
  CHECK(strstr(one, " --moe-imbalance 0 --moe-fake-gate on --moe-act-compiled on"
                    " --moe-fc1-bias-eager on") != NULL);
  pl_layout_flags_format(&l, false, two, sizeof two);
  CHECK(strstr(two, "--moe-fake-gate") == NULL && strstr(two, "--moe-act-compiled") == NULL &&
        strstr(two, "--moe-fc1-bias-eager") == NULL);
  /* AutoModel's MoEFSDPSyncMixin (layout.fsdp_ga_nosync): read, and written for a dense
   * layout too; off is not written; a bad value is refused */
  memset(&l, 0, sizeof l);
  split(" --gpus 8 --shard zero2 --fsdp-ga-nosync on", &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.fsdp_ga_nosync && !l.fsdp_ga_keep);
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, " --fsdp-ga-nosync on") != NULL);
  memset(&l, 0, sizeof l);
  split(" --gpus 8 --shard zero2 --fsdp-ga-nosync keep", &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.fsdp_ga_nosync && l.fsdp_ga_keep);
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, " --fsdp-ga-nosync keep") != NULL);
  l.fsdp_ga_nosync = l.fsdp_ga_keep = false;
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, "--fsdp-ga-nosync") == NULL);
  memset(&l, 0, sizeof l);
  split(" --gpus 8 --fsdp-ga-nosync yes", &a);
  CHECK(pl_layout_flags_read(&l, get, &a, &d) != PL_OK);
  CHECK(strstr(d.msg, "--fsdp-ga-nosync") != NULL);
  /* the fine-tuning flags (src/model/finetune.c) written and read back */
  memset(&l, 0, sizeof l);
  split(" --gpus 8 --tp 2 --pp 1 --cp 1 --vp 1 --seq 4096 --mbs 1 --gbs 8 --task lora"
        " --lora-rank 16 --lora-targets linear_fc2,linear_qkv", &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.task == PL_RUN_LORA && l.lora_rank == 16 && l.lora_targets == (PL_LORA_QKV | PL_LORA_FC2));
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, " --task lora --lora-rank 16 --lora-targets linear_qkv,linear_fc2") != NULL);
  memset(&back, 0, sizeof back);
  split(one, &a);
  CHECK_STATUS(pl_layout_flags_read(&back, get, &a, &d), PL_OK, dp);
  pl_layout_flags_format(&back, false, two, sizeof two);
  CHECK_STR(two, one);
  /* layout.cp_comm: written when not p2p (the default), with its a2a size */
  memset(&l, 0, sizeof l);
  split(" --gpus 16 --tp 2 --pp 1 --cp 4 --vp 1 --seq 4096 --mbs 1 --gbs 8 --cp-comm-type a2a+p2p"
        " --cp-a2a-size 2",
        &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.cp_comm == PL_CP_A2A_P2P && l.cp_a2a == 2);
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, " --cp 4 ") != NULL && strstr(one, " --cp-comm-type a2a+p2p --cp-a2a-size 2") != NULL);
  memset(&back, 0, sizeof back);
  split(one, &a);
  CHECK_STATUS(pl_layout_flags_read(&back, get, &a, &d), PL_OK, dp);
  CHECK(back.cp_comm == PL_CP_A2A_P2P && back.cp_a2a == 2);
  l.cp_comm = PL_CP_P2P;
  l.cp_a2a = 0;
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, "--cp-comm-type") == NULL && strstr(one, "--cp-a2a-size") == NULL);
  /* layout.pp_schedules: written when above 1, read back */
  memset(&l, 0, sizeof l);
  split(" --gpus 16 --tp 1 --pp 4 --cp 1 --vp 1 --seq 4096 --mbs 1 --gbs 32 --pp-schedules 4", &a);
  CHECK_STATUS(pl_layout_flags_read(&l, get, &a, &d), PL_OK, dp);
  CHECK(l.pp_schedules == 4);
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, " --pp-schedules 4") != NULL);
  memset(&back, 0, sizeof back);
  split(one, &a);
  CHECK_STATUS(pl_layout_flags_read(&back, get, &a, &d), PL_OK, dp);
  CHECK(back.pp_schedules == 4);
  l.pp_schedules = 1;
  pl_layout_flags_format(&l, false, one, sizeof one);
  CHECK(strstr(one, "--pp-schedules") == NULL);
}

/* Quantities in the largest unit they are at least 1 of, fewest digits
 * that read back exactly; else the base unit with 17 digits. */
static void quantity_is(double v, enum pl_unit_kind kind, const char *want) {
  char buf[64];
  struct flag_text t = {buf, sizeof buf, 0};
  buf[0] = '\0';
  flag_text_quantity(&t, v, kind);
  CHECK_STR(buf, want);
  CHECK_EQ_INT((int64_t)t.need, (int64_t)strlen(want));
}

static void test_quantity(void) {
  quantity_is(37e-6, PL_UNIT_SECONDS, "'37 us'");
  quantity_is(7.3e-6, PL_UNIT_SECONDS, "'7.3e-06 s'"); /* 7.3 x 1e-6 is not the double 7.3e-6 */
  quantity_is(0, PL_UNIT_SECONDS, "'0 s'");
  quantity_is(2.5, PL_UNIT_SECONDS, "'2.5 s'");
  quantity_is(85899345920.0, PL_UNIT_BYTES, "'80 GiB'"); /* 80 x 2^30 */
  quantity_is(96e9, PL_UNIT_BYTES, "'96000000000 B'"); /* 89.406967163085938 GiB: 17 digits */
  quantity_is(3.35e12, PL_UNIT_BYTES_PER_S, "'3.35 TB/s'");
  quantity_is(5e10, PL_UNIT_BITS_PER_S, "'400 Gb/s'"); /* 50 GB/s x 8 */
  quantity_is(500, PL_UNIT_WATTS, "'500 W'");
  /* a cut buffer still counts the whole length */
  char small[4];
  struct flag_text t = {small, sizeof small, 0};
  flag_text_put(&t, "%s", "--power-cap");
  CHECK_EQ_INT((int64_t)t.need, 11);
  CHECK_STR(small, "--p");
}

int main(void) {
  test_framework_round_trip();
  test_framework_one_flag();
  test_cluster_flags();
  test_layout_flags();
  test_quantity();
  return check_finish();
}
