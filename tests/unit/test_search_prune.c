/* test_search_prune.c: pruning is safe. On small spaces the pruned search
 * returns exactly the top K of a brute-force enumeration that simulates
 * every layout that fits, and the bound behind the pruning is below the
 * simulated step time of every such layout (docs/search.md, "Pruning"). */
#include <stdlib.h>

#include <plateau/plateau.h>

#include "check.h"
#include "search/search_int.h"

static struct pl_run run;

static void setup_on(const char *model, const char *cluster, int64_t gpus, int64_t gbs) {
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load(model, &run.model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load(cluster, &run.cluster, &d), PL_OK, &d);
  run.layout.gpus = gpus;
  run.layout.gbs = gbs;
}

static void setup(const char *model, int64_t gpus, int64_t gbs) { setup_on(model, "dgx-h100", gpus, gbs); }

/* Every fitting layout of the space, simulated: its key and its score under
 * each objective. */
struct sim_rec {
  int64_t key;
  double score[3]; /* indexed by enum pl_objective; cost as USD per Mtok */
};

static struct sim_rec *recs;
static int64_t n_recs;

/* Simulate every fitting layout, checking bound <= simulated step time. */
static void simulate_all(const struct pl_search_opts *o) {
  struct search_ctx ctx;
  struct search_space_out sp;
  struct pl_diag d;
  CHECK_STATUS(search_ctx_init(&ctx, &run, o, &d), PL_OK, &d);
  CHECK_STATUS(search_enumerate(&ctx, NULL, &sp, &d), PL_OK, &d);
  static struct pl_run r;
  static struct pl_prediction p;
  pl_free(recs);
  recs = pl_calloc((size_t)sp.n_cands + 1, sizeof *recs);
  n_recs = sp.n_cands;
  int64_t bad = 0;
  for (int64_t i = 0; i < sp.n_cands; i++) {
    const struct search_cand *c = &sp.cands[i];
    r.model = run.model;
    r.cluster = run.cluster;
    search_cand_layout(&ctx, c, &r.layout);
    CHECK_STATUS(pl_predict(&r, &p, &d), PL_OK, &d);
    CHECK(p.step.simulated);
    recs[i].key = c->key;
    recs[i].score[PL_OBJECTIVE_THROUGHPUT] = p.step.tokens_per_s;
    recs[i].score[PL_OBJECTIVE_TOKENS_PER_J] = p.step.tokens_per_j;
    recs[i].score[PL_OBJECTIVE_COST] = pl_search_objective(&p, PL_OBJECTIVE_COST, 2.5);
    CHECK(c->lb_step_s > 0);
    if (!(c->lb_step_s <= p.step.step_time_s * (1 + 1e-12)) && bad++ < 5)
      fprintf(stderr, "bound %.9g s > step %.9g s: tp=%d pp=%d cp=%d dp=%d vp=%d mbs=%d %s/%d %s %s\n",
              c->lb_step_s, p.step.step_time_s, c->tp, c->pp, c->cp, c->dp, c->vp, c->mbs,
              pl_shard_name((enum pl_shard)c->shard), c->shard_group,
              pl_recompute_name((enum pl_recompute)c->recompute),
              pl_schedule_name((enum pl_schedule)c->schedule));
  }
  CHECK_EQ_INT(bad, 0);
  pl_free(sp.cands);
  search_ctx_free(&ctx);
}

static enum pl_objective sort_obj;

/* Best first; cost lowest first; ties by key. */
static int cmp_rec(const void *a, const void *b) {
  const struct sim_rec *x = a, *y = b;
  double sx = x->score[sort_obj], sy = y->score[sort_obj];
  if (sort_obj == PL_OBJECTIVE_COST) {
    sx = -sx;
    sy = -sy;
  }
  if (sx != sy)
    return sx > sy ? -1 : 1;
  return x->key < y->key ? -1 : (x->key > y->key ? 1 : 0);
}

/* The pruned search returns the brute-force top K. */
static void same_top(struct pl_search_opts *o) {
  struct pl_search_result pruned;
  struct pl_diag d;
  sort_obj = o->objective;
  qsort(recs, (size_t)n_recs, sizeof *recs, cmp_rec);
  CHECK_STATUS(pl_search_run(&run, o, &pruned, &d), PL_OK, &d);
  CHECK_EQ_INT(pruned.considered, pruned.rejected_total + pruned.pruned + pruned.evaluated);
  CHECK_EQ_INT(pruned.n_hits, n_recs < o->top_k ? n_recs : o->top_k);
  for (int64_t i = 0; i < pruned.n_hits; i++) {
    CHECK_EQ_INT(pruned.hits[i].index, recs[i].key);
    CHECK_NEAR_REL(pruned.hits[i].objective, recs[i].score[o->objective], 1e-12);
  }
  printf("%s on %lld GPUs, gbs %lld, objective %d, top %lld: %lld considered, %lld fit, "
         "%lld simulated when pruned\n",
         run.model.name, (long long)run.layout.gpus, (long long)run.layout.gbs, (int)o->objective,
         (long long)o->top_k, (long long)pruned.considered, (long long)n_recs,
         (long long)pruned.evaluated);
  pl_search_result_free(&pruned);
}

/* --exhaustive simulates every fitting layout and ranks like the rest. */
static void exhaustive(struct pl_search_opts *o) {
  struct pl_search_result all;
  struct pl_diag d;
  o->exhaustive = true;
  CHECK_STATUS(pl_search_run(&run, o, &all, &d), PL_OK, &d);
  o->exhaustive = false;
  CHECK_EQ_INT(all.pruned, 0);
  CHECK_EQ_INT(all.evaluated, n_recs);
  sort_obj = o->objective;
  qsort(recs, (size_t)n_recs, sizeof *recs, cmp_rec);
  for (int64_t i = 0; i < all.n_hits; i++)
    CHECK_EQ_INT(all.hits[i].index, recs[i].key);
  pl_search_result_free(&all);
}

/* The space without recompute, ranked by throughput: the bound below every
 * simulated step and the pruned top 3 the brute-force one (the caller sets
 * the rest of o->space). */
static void throughput_top3(struct pl_search_opts *o, int64_t min_fit) {
  o->objective = PL_OBJECTIVE_THROUGHPUT;
  o->space.recompute_mask = 1u << PL_RECOMPUTE_NONE;
  simulate_all(o);
  CHECK(n_recs > min_fit);
  o->top_k = 3;
  same_top(o);
}

int main(void) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.gpu_hour_usd = 2.5;
  /* Llama-2 7B on 8 GPUs, gbs 8: every tp, pp, cp, shard mode and group,
   * micro-batch and schedule; recompute none and full (the test
   * must stay quick under AddressSanitizer). */
  setup("llama2-7b", 8, 8);
  o.space.recompute_mask = (1u << PL_RECOMPUTE_NONE) | (1u << PL_RECOMPUTE_FULL);
  simulate_all(&o);
  CHECK(n_recs > 500);
  o.top_k = 1;
  same_top(&o);
  o.top_k = 10;
  same_top(&o);
  o.top_k = 3;
  o.objective = PL_OBJECTIVE_TOKENS_PER_J;
  same_top(&o);
  o.objective = PL_OBJECTIVE_COST;
  same_top(&o);
  /* Llama-2 70B on 32 GPUs (4 nodes), gbs 32, micro-batch 1, no HSDP, no
   * recompute: fits only sharded, with tp or pp; dp crosses nodes. */
  setup("llama2-70b", 32, 32);
  o.objective = PL_OBJECTIVE_THROUGHPUT;
  o.space.shard_group = -1;
  o.space.mbs = 1;
  o.space.recompute_mask = 1u << PL_RECOMPUTE_NONE;
  simulate_all(&o);
  CHECK(n_recs > 100);
  o.top_k = 3;
  same_top(&o);
  o.objective = PL_OBJECTIVE_TOKENS_PER_J;
  same_top(&o);
  /* Llama-2 7B on 64 GPUs (8 nodes), gbs 64, tp 32: tp and the cp ring both
   * cross nodes and share the network (the bound's fabric work), and the
   * ring's uncovered part may not count as idle time at the slowed
   * attention's length. */
  setup("llama2-7b", 64, 64);
  memset(&o.space, 0, sizeof o.space);
  o.space.tp = 32;
  throughput_top3(&o, 20);
  /* NVFP4 on 8 GB300 of one NVL72 rack, gbs 8, no recompute: Transformer
   * Engine gathers the 4-bit activations for tensor parallelism
   * (segments.c tp_gather_bytes), so the bound's tp all_gathers must be the
   * simulator's smaller ones, not 16-bit. */
  setup_on("llama2-7b", "gb300-nvl72", 8, 8);
  memset(&o.space, 0, sizeof o.space);
  run.layout.dtype = PL_DTYPE_NVFP4;
  throughput_top3(&o, 20);
  /* LoRA (layout.task, src/model/finetune.c) on 8 H100, gbs 8: frozen base
   * GEMMs, the optimizer and gathers over the adapters alone (search/comm.c
   * seg_params as the simulator's sim_seg_params), so the bound stays below */
  setup("llama2-7b", 8, 8);
  memset(&o.space, 0, sizeof o.space);
  run.layout.task = PL_RUN_LORA;
  throughput_top3(&o, 5);
  /* torch.optim.SGD over bf16 parameters (layout.opt_sgd) on 8 H100, gbs 8,
   * eager kernels: its step moves 12 B per parameter, below AdamW's 22 B
   * floor, so the bound counts SGD's own 12 B (search/comm.c) */
  setup("llama2-7b", 8, 8);
  memset(&o.space, 0, sizeof o.space);
  run.layout.opt_sgd = true;
  run.layout.grad_reduce_bf16 = true;
  run.layout.kernels = PL_KERNELS_UNFUSED;
  run.layout.no_grad_clip = true;
  throughput_top3(&o, 5);
  /* A hybrid Mamba-2 + attention + MoE stack on 8 GB200, gbs 8: one tp
   * collective per block and pass (segments.c layer_tp), not two. */
  setup_on("nemotron-3-nano", "gb200-nvl72", 8, 8);
  memset(&o.space, 0, sizeof o.space);
  throughput_top3(&o, 5);
  /* A MoE model under the nemo preset's behaviours on 8 GB200, gbs 8: host
   * floors per kernel and per GEMM call, the host's wait in each MoE block's
   * forward (moe_sync.c) and the per-expert quantize launches; the bound
   * leaves host time out, so it must stay below the simulated step. */
  setup_on("qwen3-30b-a3b", "gb200-nvl72", 8, 8);
  {
    struct pl_framework fw;
    struct pl_diag d;
    CHECK_STATUS(pl_framework_load("nemo", &fw, &d), PL_OK, &d);
    pl_framework_apply(&fw, &run.layout);
  }
  memset(&o.space, 0, sizeof o.space);
  throughput_top3(&o, 5);
  /* A small space through the exhaustive path. */
  setup("llama2-7b", 4, 4);
  memset(&o.space, 0, sizeof o.space);
  o.objective = PL_OBJECTIVE_THROUGHPUT;
  o.top_k = 5;
  simulate_all(&o);
  exhaustive(&o);
  pl_free(recs);
  return check_finish();
}
