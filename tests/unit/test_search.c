/* test_search.c: the parts of search that need no simulation: diminishing-
 * returns figures, strategy names, --fix constraints, and the enumeration's
 * counts on a space small enough to count by hand. */
#include <plateau/plateau.h>

#include "check.h"
#include "search/search_int.h"

static void test_scaling_figures(void) {
  /* T = 800, 1500, 2400 tokens/s on 8, 16, 32 GPUs: per GPU at 8 = 100.
   * 16: E = 1500/16/100 = 0.9375; M = (1500-800)/8 = 87.5; e = 0.875.
   * 32: E = 2400/32/100 = 0.75;   M = (2400-1500)/16 = 56.25; e = 0.5625. */
  struct pl_scaling_point p[3] = {
      {.gpus = 8, .tokens_per_s = 800, .valid = true},
      {.gpus = 16, .tokens_per_s = 1500, .valid = true},
      {.gpus = 32, .tokens_per_s = 2400, .valid = true},
  };
  struct pl_knee k;
  pl_scaling_figures(p, 3, 0.6, &k);
  CHECK(p[0].has_efficiency);
  CHECK_NEAR_REL(p[0].scaling_efficiency, 1.0, 1e-15);
  CHECK(!p[0].has_marginal);
  CHECK_NEAR_REL(p[1].scaling_efficiency, 0.9375, 1e-15);
  CHECK_NEAR_REL(p[1].marginal_tokens_per_s_per_gpu, 87.5, 1e-15);
  CHECK_NEAR_REL(p[1].marginal_efficiency, 0.875, 1e-15);
  CHECK_NEAR_REL(p[2].scaling_efficiency, 0.75, 1e-15);
  CHECK_NEAR_REL(p[2].marginal_tokens_per_s_per_gpu, 56.25, 1e-15);
  CHECK_NEAR_REL(p[2].marginal_efficiency, 0.5625, 1e-15);
  /* 0.875 >= 0.6, 0.5625 < 0.6: the knee is at 32, coming from 16. */
  CHECK(k.found);
  CHECK_EQ_INT(k.gpus, 32);
  CHECK_EQ_INT(k.prev_gpus, 16);
  pl_scaling_figures(p, 3, 0.5, &k);
  CHECK(!k.found);

  /* A point that does not fit is skipped: the base becomes 16 (1500/16 =
   * 93.75 per GPU) and 32 is measured from 16. */
  p[0].valid = false;
  pl_scaling_figures(p, 3, 0.5, &k);
  CHECK(!p[0].has_efficiency);
  CHECK(!p[1].has_marginal);
  CHECK_NEAR_REL(p[1].scaling_efficiency, 1.0, 1e-15);
  /* 32: E = 75 / 93.75 = 0.8; e = 56.25 / 93.75 = 0.6 */
  CHECK_NEAR_REL(p[2].scaling_efficiency, 0.8, 1e-15);
  CHECK_NEAR_REL(p[2].marginal_efficiency, 0.6, 1e-15);

  /* Throughput that falls: negative marginal, below any positive threshold. */
  struct pl_scaling_point q[2] = {
      {.gpus = 8, .tokens_per_s = 800, .valid = true},
      {.gpus = 16, .tokens_per_s = 700, .valid = true},
  };
  pl_scaling_figures(q, 2, 0.5, &k);
  CHECK_NEAR_REL(q[1].marginal_tokens_per_s_per_gpu, -12.5, 1e-15);
  CHECK(k.found);
  CHECK_EQ_INT(k.gpus, 16);
}

static void test_strategies(void) {
  struct pl_search_space s;
  struct pl_diag d;
  unsigned fsdp = (1u << PL_SHARD_ZERO1) | (1u << PL_SHARD_ZERO2) | (1u << PL_SHARD_ZERO3);
  CHECK_STATUS(pl_strategy_parse("best", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.tp, 0);
  CHECK_EQ_INT(s.shard_mask, 0);
  CHECK_STATUS(pl_strategy_parse("fsdp", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.tp, 1);
  CHECK_EQ_INT(s.pp, 1);
  CHECK_EQ_INT(s.cp, 1);
  CHECK_EQ_INT(s.shard_mask, fsdp);
  CHECK_EQ_INT(s.shard_group, -1);
  CHECK_STATUS(pl_strategy_parse("tp2pp4", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.tp, 2);
  CHECK_EQ_INT(s.pp, 4);
  CHECK_EQ_INT(s.cp, 1);
  CHECK_EQ_INT(s.shard_mask, fsdp);
  CHECK_STATUS(pl_strategy_parse("ddp-tp8", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.tp, 8);
  CHECK_EQ_INT(s.shard_mask, 1u << PL_SHARD_DDP);
  CHECK_STATUS(pl_strategy_parse("hsdp", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.shard_group, 0);
  CHECK_STATUS(pl_strategy_parse("cp2", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.cp, 2);
  CHECK_STATUS(pl_strategy_parse("tp", &s, &d), PL_ERR_UNKNOWN, &d);
  CHECK_CONTAINS(d.msg, "unknown strategy 'tp'");
  CHECK_STATUS(pl_strategy_parse("megatron", &s, &d), PL_ERR_UNKNOWN, &d);
  CHECK_STATUS(pl_strategy_parse("", &s, &d), PL_ERR_UNKNOWN, &d);
}

static void test_fix(void) {
  struct pl_search_space s;
  struct pl_diag d;
  memset(&s, 0, sizeof s);
  CHECK_STATUS(pl_search_space_parse("tp=2,shard=zero2|zero3,recompute=full,shard_group=dp,mbs=4",
                                     &s, &d),
               PL_OK, &d);
  CHECK_EQ_INT(s.tp, 2);
  CHECK_EQ_INT(s.mbs, 4);
  CHECK_EQ_INT(s.shard_group, -1);
  CHECK_EQ_INT(s.shard_mask, (1u << PL_SHARD_ZERO2) | (1u << PL_SHARD_ZERO3));
  CHECK_EQ_INT(s.recompute_mask, 1u << PL_RECOMPUTE_FULL);
  CHECK_STATUS(pl_search_space_parse("schedule=interleaved,vp=2", &s, &d), PL_OK, &d);
  CHECK_EQ_INT(s.schedule_mask, 1u << PL_SCHEDULE_INTERLEAVED);
  CHECK_EQ_INT(s.vp, 2);
  CHECK_EQ_INT(s.tp, 2); /* earlier keys kept */
  CHECK_STATUS(pl_search_space_parse("tp=x", &s, &d), PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "'tp=x'");
  CHECK_STATUS(pl_search_space_parse("bogus=1", &s, &d), PL_ERR_UNKNOWN, &d);
  CHECK_CONTAINS(d.msg, "unknown key 'bogus'");
  CHECK_STATUS(pl_search_space_parse("tp", &s, &d), PL_ERR_PARSE, &d);
  CHECK_STATUS(pl_search_space_parse("shard=zero4", &s, &d), PL_ERR_UNKNOWN, &d);
  CHECK_STATUS(pl_search_space_parse("tp=0", &s, &d), PL_ERR_RANGE, &d);
}

static void load_run(struct pl_run *run, const char *model, int64_t gpus, int64_t gbs) {
  struct pl_diag d;
  memset(run, 0, sizeof *run);
  CHECK_STATUS(pl_model_load(model, &run->model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run->cluster, &d), PL_OK, &d);
  run->layout.gpus = gpus;
  run->layout.gbs = gbs;
}

/* Llama-2 7B (32 heads, 32 KV heads, 32 layers, seq 4096) on 2 GPUs, gbs 2.
 * Tuples (tp, pp, cp): (1,1,1) dp 2; (1,1,2), (1,2,1), (2,1,1) dp 1.
 * mbs in {1, 2}, recompute x3. Shard configs: dp 2 -> ddp + zero1..3 over
 * g = 2 = 4; dp 1 -> ddp + zero1..3 over g = 1 = 4. Schedules: pp 1 -> 1;
 * pp 2 -> 1f1b, gpipe, interleaved vp in {2, 4, 8, 16} = 6.
 * Considered: 3 tuples x 2 x 3 x 4 x 1 = 72, plus 2 x 3 x 4 x 6 = 144: 216.
 * Rejected: dp 2 with mbs 2 (2 % 4): 3 x 4 = 12 for batch; pp 2 with
 * mbs 2 has 1 micro-batch, not divisible by pp for the 4 interleaved
 * schedules: 3 x 4 x 4 = 48. */
static void test_enumeration_counts(void) {
  static struct pl_run run;
  load_run(&run, "llama2-7b", 2, 2);
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.top_k = 1;
  struct search_ctx ctx;
  struct search_space_out sp;
  struct pl_diag d;
  CHECK_STATUS(search_ctx_init(&ctx, &run, &o, &d), PL_OK, &d);
  CHECK_EQ_INT(ctx.n_tuples, 4);
  CHECK_STATUS(search_enumerate(&ctx, NULL, &sp, &d), PL_OK, &d);
  CHECK_EQ_INT(sp.considered, 216);
  CHECK_EQ_INT(sp.rejected[PL_REJECT_BATCH], 12);
  CHECK_EQ_INT(sp.rejected[PL_REJECT_INTERLEAVE], 48);
  CHECK_EQ_INT(sp.rejected[PL_REJECT_LAYOUT], 0);
  int64_t total = sp.n_cands;
  for (int r = 0; r < PL_REJECT_N; r++)
    total += sp.rejected[r];
  CHECK_EQ_INT(total, sp.considered);
  for (int64_t i = 1; i < sp.n_cands; i++)
    CHECK(sp.cands[i - 1].key < sp.cands[i].key);
  pl_free(sp.cands);
  search_ctx_free(&ctx);

  /* --fix tp=2: the (2,1,1) tuple only, 24 layouts. */
  o.space.tp = 2;
  CHECK_STATUS(search_ctx_init(&ctx, &run, &o, &d), PL_OK, &d);
  CHECK_STATUS(search_enumerate(&ctx, NULL, &sp, &d), PL_OK, &d);
  CHECK_EQ_INT(sp.considered, 24);
  pl_free(sp.cands);
  search_ctx_free(&ctx);

  /* A fixed degree that does not divide the GPUs is an error naming it. */
  o.space.tp = 3;
  CHECK_STATUS(search_ctx_init(&ctx, &run, &o, &d), PL_ERR_LAYOUT, &d);
  CHECK_CONTAINS(d.msg, "tp=3 does not divide 2 GPUs");

  /* Llama-2 70B has 8 KV heads: on 16 GPUs tp = 16 is rejected by reason. */
  load_run(&run, "llama2-70b", 16, 16);
  memset(&o.space, 0, sizeof o.space);
  o.space.tp = 16;
  CHECK_STATUS(search_ctx_init(&ctx, &run, &o, &d), PL_OK, &d);
  CHECK_STATUS(search_enumerate(&ctx, NULL, &sp, &d), PL_OK, &d);
  CHECK(sp.considered > 0);
  CHECK_EQ_INT(sp.rejected[PL_REJECT_TP_KV_HEADS], sp.considered);
  CHECK_EQ_INT(sp.n_cands, 0);
  pl_free(sp.cands);
  search_ctx_free(&ctx);
}

int main(void) {
  test_scaling_figures();
  test_strategies();
  test_fix();
  test_enumeration_counts();
  return check_finish();
}
