/* test_search_prune.c: pruning is safe. On small spaces the pruned search
 * returns exactly the top K of a brute-force enumeration that simulates
 * every layout that fits, and the bound behind the pruning is below the
 * simulated step time of every such layout (docs/search.md, "Pruning"). */
#include <plateau/plateau.h>

#include "check.h"
#include "search/search_int.h"

static struct pl_run run;

static void setup(const char *model, int64_t gpus, int64_t gbs) {
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load(model, &run.model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, &d);
  run.layout.gpus = gpus;
  run.layout.gbs = gbs;
}

/* Every fitting layout of the space: bound <= simulated step time. Returns
 * how many were checked. */
static int64_t check_bound(const struct pl_search_opts *o) {
  struct search_ctx ctx;
  struct search_space_out sp;
  struct pl_diag d;
  CHECK_STATUS(search_ctx_init(&ctx, &run, o, &d), PL_OK, &d);
  CHECK_STATUS(search_enumerate(&ctx, NULL, &sp, &d), PL_OK, &d);
  static struct pl_run r;
  static struct pl_prediction p;
  int64_t bad = 0;
  for (int64_t i = 0; i < sp.n_cands; i++) {
    r.model = run.model;
    r.cluster = run.cluster;
    search_cand_layout(&ctx, &sp.cands[i], &r.layout);
    CHECK_STATUS(pl_predict(&r, &p, &d), PL_OK, &d);
    CHECK(p.step.simulated);
    if (!(sp.cands[i].lb_step_s <= p.step.step_time_s * (1 + 1e-12))) {
      if (bad++ < 5)
        fprintf(stderr, "bound %.9g s > step %.9g s: tp=%d pp=%d cp=%d dp=%d vp=%d mbs=%d %s %s %s\n",
                sp.cands[i].lb_step_s, p.step.step_time_s, sp.cands[i].tp, sp.cands[i].pp,
                sp.cands[i].cp, sp.cands[i].dp, sp.cands[i].vp, sp.cands[i].mbs,
                pl_shard_name((enum pl_shard)sp.cands[i].shard),
                pl_recompute_name((enum pl_recompute)sp.cands[i].recompute),
                pl_schedule_name((enum pl_schedule)sp.cands[i].schedule));
    }
    /* The bound is meant to be tight: compute is most of a step. */
    CHECK(sp.cands[i].lb_step_s > 0);
  }
  CHECK_EQ_INT(bad, 0);
  int64_t n = sp.n_cands;
  pl_free(sp.cands);
  search_ctx_free(&ctx);
  return n;
}

static void same_top(struct pl_search_opts *o) {
  struct pl_search_result brute, pruned;
  struct pl_diag d;
  o->exhaustive = true;
  CHECK_STATUS(pl_search_run(&run, o, &brute, &d), PL_OK, &d);
  o->exhaustive = false;
  CHECK_STATUS(pl_search_run(&run, o, &pruned, &d), PL_OK, &d);
  CHECK_EQ_INT(brute.pruned, 0);
  CHECK_EQ_INT(brute.considered, pruned.considered);
  CHECK_EQ_INT(pruned.considered, pruned.rejected_total + pruned.pruned + pruned.evaluated);
  CHECK(pruned.evaluated <= brute.evaluated);
  CHECK_EQ_INT(pruned.n_hits, brute.n_hits);
  for (int64_t i = 0; i < brute.n_hits && i < pruned.n_hits; i++) {
    CHECK_EQ_INT(pruned.hits[i].index, brute.hits[i].index);
    CHECK(pruned.hits[i].objective == brute.hits[i].objective);
  }
  /* best first, ties by enumeration order */
  for (int64_t i = 1; i < brute.n_hits; i++)
    CHECK(brute.hits[i - 1].objective > brute.hits[i].objective ||
          (brute.hits[i - 1].objective == brute.hits[i].objective &&
           brute.hits[i - 1].index < brute.hits[i].index));
  printf("%s on %lld GPUs, gbs %lld, top %lld: %lld considered, %lld fit, %lld simulated "
         "when pruned\n",
         run.model.name, (long long)run.layout.gpus, (long long)run.layout.gbs, (long long)o->top_k,
         (long long)brute.considered, (long long)brute.evaluated, (long long)pruned.evaluated);
  pl_search_result_free(&brute);
  pl_search_result_free(&pruned);
}

int main(void) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  /* Llama-2 7B on 16 GPUs, gbs 32: every tp, pp, cp, shard mode and
   * schedule; micro-batch 1 and 2 to keep the brute force quick. */
  setup("llama2-7b", 16, 32);
  o.space.mbs = 0;
  o.top_k = 1;
  CHECK(check_bound(&o) > 100);
  same_top(&o);
  o.top_k = 10;
  same_top(&o);
  /* Llama-2 70B on 64 GPUs, gbs 64, no HSDP: needs sharding, tp or pp. */
  setup("llama2-70b", 64, 64);
  o.space.shard_group = -1;
  o.space.recompute_mask = (1u << PL_RECOMPUTE_NONE) | (1u << PL_RECOMPUTE_FULL);
  o.top_k = 3;
  CHECK(check_bound(&o) > 10);
  same_top(&o);
  /* tokens per joule and cost rank the same space differently or alike;
   * pruning must hold for each. */
  setup("llama2-7b", 16, 32);
  memset(&o.space, 0, sizeof o.space);
  o.top_k = 3;
  o.objective = PL_OBJECTIVE_TOKENS_PER_J;
  same_top(&o);
  o.objective = PL_OBJECTIVE_COST;
  o.gpu_hour_usd = 2.5;
  same_top(&o);
  return check_finish();
}
