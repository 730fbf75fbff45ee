/* moe_comm.c: the expert-parallel collectives of one MoE block for one
 * micro-batch on one GPU (docs/step-model.md section 4), priced beside the
 * block's other collectives by segments.c.
 *
 * Expert parallelism (MoE blocks; Megatron-Core token dispatchers,
 * megatron/core/transformer/moe/token_dispatcher.py), per block in the
 * forward, the same again in the backward (and in the recomputed forward
 * with full recomputation): alltoall (MoEAlltoAllTokenDispatcher): dispatch
 * and combine, each an all_to_all over ep of the rank's routed copies,
 * tokens_n * top_k * h bf16, times the imbalance on the busiest rank; with
 * etp > 1 an all_gather over etp after the dispatch and a reduce_scatter
 * before the combine, of etp times that. allgather
 * (MoEAllGatherTokenDispatcher): an all_gather of the hidden states over the
 * etp*ep ranks before the router's permutation and a reduce_scatter of the
 * outputs. deepep (MoEFlexTokenDispatcher + DeepEP): the all_to_all with
 * DeepEP's one send per target node across the network (deepep_dedup);
 * inside one NVLink 5 domain at DeepEP's (hybridep: HybridEP's) measured rate
 * on the rows each rank receives (flex_nvl5_call_s); deepep inside one Hopper
 * node at DeepEP's H800 rate carried to the node's NVLink, capped by its
 * SM-bound rate (deepep_hopper_nvl_call_s); hybridep (deepep) across
 * Hopper nodes at Hybrid-EP's H100 (DeepEP's H800) measured IB rate on the
 * rank's tokens once per destination node (flex_ib_call_s).
 * A model with dense and MoE blocks prices its average block: the bytes are
 * scaled by the MoE share (calls stay whole). They block the next block
 * unless layout.ep_comm_overlap (Megatron's
 * --overlap-moe-expert-parallel-comm), where lower.c runs them beside the
 * block's compute (ep_beside).
 */
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

#include "model/constants.h"

/* One expert-parallel collective kind: fwd calls per block in the forward,
 * bwd in the backward (the recomputed forward's included). */
static enum pl_status moe_comm_one(struct sim_step *st, struct sim_seg *s, int slot,
                                   enum pl_coll_op op, const char *group, double bytes,
                                   int32_t fwd, int32_t bwd, struct pl_diag *diag) {
  int32_t c;
  enum pl_status r = sim_coll_add(st, op, group, bytes, &c, diag);
  if (r == PL_OK) {
    sim_comm_set(&s->tp[PL_PASS_FWD][slot], c, fwd);
    sim_comm_set(&s->tp[PL_PASS_BWD][slot], c, bwd);
  }
  return r;
}

/* DeepEP's deduplicated sends (deepseek-ai/DeepEP README, normal kernels:
 * "forwarding data from NVLink domain to RDMA domain"; DeepSeek-V3
 * technical report, arXiv 2412.19437, Sec. 3.2.2: a token crosses the
 * network once per target node, to the GPU of the same in-node index, which
 * forwards it over NVLink to that node's experts). With the ep group over N
 * nodes and top-k experts drawn uniformly (the benchmarks force-balance the
 * router; no node-limited routing assumed), a token has k (N - 1) / N
 * remote copies but only (N - 1) (1 - (1 - 1/N)^k) distinct remote nodes:
 * the all_to_all's bytes are scaled by that ratio, so its network share is
 * what DeepEP sends (its NVLink share is then under-counted, which the
 * network bounds). 1 within a node. */
/* Nodes the ep group spans: its ranks per node are the node's GPUs over etp
 * (Megatron-Core orders expert ranks etp-ep-edp-pp, groups.c). */
/* The ranks of the ep group on one node: a node's GPUs over etp, at most ep
 * (the group's ranks fill nodes in order, the last node perhaps partly). */
static int64_t ep_node_ranks(const struct pl_run *run) {
  const struct pl_layout *l = &run->layout;
  int64_t gpn = run->cluster.gpus_per_node > 0 ? run->cluster.gpus_per_node : 1;
  if (gpn > l->gpus)
    gpn = l->gpus;
  int64_t etp = l->etp > 0 ? l->etp : 1, per_node = gpn / etp > 1 ? gpn / etp : 1;
  return per_node > l->ep ? l->ep : per_node;
}

static int64_t ep_nodes(const struct pl_run *run) {
  int64_t per_node = ep_node_ranks(run);
  return (run->layout.ep + per_node - 1) / per_node;
}

/* layout.moe_fake_gate: NeMo AutoModel's FakeBalancedGate
 * (NVIDIA-NeMo/Automodel components/moe/layers.py FakeBalancedGate.forward,
 * 89e3a9fdd .. 36044ad3d, noise 0): indices = arange(tokens * k).view(-1, k)
 * % E, so token t of every rank's micro-batch takes experts (t k + j) mod E,
 * j < k, the same pattern on every rank, repeating every P = E / gcd(k, E)
 * tokens. The experts are dealt to the ep ranks in contiguous blocks of E / ep
 * (GroupedExpertsDeepEP.init_token_dispatcher: local_expert_indices_offset =
 * ep_rank * num_local_experts) and the ranks to nodes in blocks of per_node
 * (ep_nodes). Counted exactly over one period: the share of a rank's tokens
 * that the busiest group (rank, or node with per_node > 1) receives, and the
 * mean number of groups a token reaches (*mean). Returns -1 when the group
 * count is beyond the table (the uniform draw's flex_rank_share applies). */
#define FAKE_GATE_MAX_GROUPS 4096
double sim_moe_fake_gate_share(const struct pl_model *m, int64_t ep, int64_t per_node,
                               double *mean) {
  int64_t pn = per_node > 0 ? per_node : 1;
  int64_t E = m->experts, k = m->top_k, groups = (ep + pn - 1) / pn; /* the last node may hold fewer */
  if (E < 1 || k < 1 || ep < 1 || E % ep != 0 || groups < 1 || groups > FAKE_GATE_MAX_GROUPS)
    return -1.0;
  int64_t a = k, b = E;
  while (b != 0) { /* gcd(k, E) */
    int64_t r = a % b;
    a = b;
    b = r;
  }
  int64_t P = E / a, local = E / ep;
  /* per thread: search and sweep price runs on a worker pool (search/pool.c),
   * as compute.c's makespan memo */
  static _Thread_local int64_t count[FAKE_GATE_MAX_GROUPS], seen[FAKE_GATE_MAX_GROUPS];
  memset(count, 0, (size_t)groups * sizeof count[0]);
  for (int64_t g = 0; g < groups; g++)
    seen[g] = -1;
  double reached = 0;
  for (int64_t t = 0; t < P; t++)
    for (int64_t j = 0; j < k; j++) {
      int64_t g = ((t * k + j) % E) / local / pn;
      if (seen[g] != t) { /* each group once per token */
        seen[g] = t;
        count[g]++;
        reached += 1.0;
      }
    }
  int64_t most = 0;
  for (int64_t g = 0; g < groups; g++)
    most = count[g] > most ? count[g] : most;
  if (mean != NULL)
    *mean = reached / (double)P;
  return (double)most / (double)P;
}

static double deepep_dedup(const struct pl_run *run) {
  double N = (double)ep_nodes(run), k = (double)run->model.top_k;
  if (N < 2 || k < 1)
    return 1.0;
  /* the fake gate: a token's remote nodes over its remote copies, both
   * (N - 1) / N of its nodes and copies by the pattern's symmetry */
  double nodes = 0;
  if (run->layout.moe_fake_gate &&
      sim_moe_fake_gate_share(&run->model, run->layout.ep, ep_node_ranks(run), &nodes) >= 0)
    return nodes / k;
  double remote_copies = k * (N - 1.0) / N;
  double remote_nodes = (N - 1.0) * (1.0 - pow(1.0 - 1.0 / N, k));
  return remote_nodes / remote_copies;
}

/* HybridEP's measured rate inside one NVLink 5 domain (NVIDIA, deepseek-ai/DeepEP
 * branch hybrid-ep 94a9f8f, docs/README_Hybrid-EP.md "Performance Results",
 * tests/test_hybrid_ep.py test_hybrid_ep_benchmark): 4096 tokens per rank,
 * hidden 7168, top-8 uniform routing, 8 local experts; "Torch API" (the
 * dispatch and combine calls as a framework makes them), 16 SMs, which is
 * Megatron-Core's moe_hybridep_num_sms default (transformer_config.py,
 * core_v0.16.0); bandwidth = received token rows x hidden x 2 B / time, a
 * token's row counted once per destination rank. BF16 dispatch and combine,
 * bytes/s. GB200 by ranks; DGX B200 at 8 ranks. GB300/B300 (same NVLink 5) use
 * these as an estimate; above 36 ranks the 36-rank figure is kept. */
/* a measured rate table: from `ranks` ranks on, until the next entry */
struct ep_rate {
  int64_t ranks;
  double dispatch_bps, combine_bps;
};

/* The entry of a rate table (ascending ranks) that applies to an ep group:
 * the last whose ranks do not exceed it, the first below the first entry. */
static const struct ep_rate *ep_rate_at(const struct ep_rate *t, size_t n, int64_t ep) {
  size_t i = 0;
  while (i + 1 < n && t[i + 1].ranks <= ep)
    i++;
  return &t[i];
}

static const struct ep_rate hybridep_gb200[] = {{8, 550.10e9, 538.44e9},
                      {16, 472.84e9, 474.48e9},
                      {24, 441.89e9, 444.40e9},
                      {32, 485.50e9, 423.19e9},
                      {36, 469.96e9, 418.27e9}};
/* The same GB200 table at 32 SMs (README_Hybrid-EP.md, "SM Count" 32 rows), the
 * count Megatron-Bridge's performance scripts give HybridEP (layout.hybridep_sms:
 * v0.2.2 scripts/performance/utils/helpers.py, v0.3.0-v0.5.0 utils/overrides.py set
 * moe_hybridep_num_sms = 32 for every hybridep run). DGX B200 and H100 have no
 * 32-SM figure: their 16-SM rates stay (H100's IB rate is saturated by 8-16 SMs). */
static const struct ep_rate hybridep_gb200_32sm[] = {{8, 545.71e9, 568.94e9},
                           {16, 523.48e9, 521.55e9},
                           {24, 507.32e9, 483.76e9},
                           {32, 484.22e9, 464.54e9},
                           {36, 479.02e9, 447.89e9}};
#define HYBRIDEP_B200_DISPATCH_BPS 535.94e9
#define HYBRIDEP_B200_COMBINE_BPS 530.86e9

/* DeepEP's own measured rate inside one NVLink 5 domain, from the same
 * README_Hybrid-EP.md (branch hybrid-ep 94a9f8f): the "B200 Platform" table's
 * DeepEP rows (8 ranks, Torch API, the same test configuration and bandwidth
 * definition as HybridEP's row of that table) and the "GB200 Platform" DeepEP
 * table (8/16/24 ranks), BF16 dispatch and combine, bytes/s, by SM count:
 * the entry with the largest SM count not above DEEPEP_DEFAULT_SMS (the 20
 * Megatron-Core gives DeepEP) applies, i.e. the 16-SM rows. DeepEP's normal
 * kernels are SM-bound there (B200: 348 / 494 / 619 GB/s dispatch at 16 / 24 /
 * 32 SMs), well below HybridEP's 536 at 16 SMs, which plateau had used for
 * both. Above 24 ranks the 24-rank figure is kept (its combine, 126.53 GB/s
 * at 16 SMs, is the table's). */
struct ep_sm_rate {
  int64_t sms;
  struct ep_rate r;
};
static const struct ep_sm_rate deepep_b200[] = {{16, {8, 348e9, 302e9}}, {24, {8, 494e9, 420e9}}};
static const struct ep_sm_rate deepep_gb200[] = {
    {16, {8, 362.01e9, 310.21e9}},  {16, {16, 328.80e9, 278.34e9}}, {16, {24, 324.64e9, 126.53e9}},
    {24, {8, 512.72e9, 425.95e9}},  {24, {16, 442.47e9, 378.32e9}}, {24, {24, 450.22e9, 163.62e9}}};

/* The rate of a DeepEP table (entries by ascending SM count, then ranks) for
 * ep ranks at DEEPEP_DEFAULT_SMS: among the entries of the largest SM count
 * not above it, the one ep_rate_at picks. */
static struct ep_rate deepep_rate_at(const struct ep_sm_rate *t, size_t n, int64_t ep) {
  int64_t sms = t[0].sms;
  for (size_t i = 0; i < n; i++)
    if (t[i].sms <= DEEPEP_DEFAULT_SMS && t[i].sms > sms)
      sms = t[i].sms;
  struct ep_rate rows[8];
  size_t k = 0;
  for (size_t i = 0; i < n && k < sizeof rows / sizeof rows[0]; i++)
    if (t[i].sms == sms)
      rows[k++] = t[i].r;
  return *ep_rate_at(rows, k, ep);
}

/* Share of a rank's tokens one other rank of the ep group receives under the
 * flex dispatcher (HybridEP and DeepEP send a token once to each rank that
 * holds one of its top-k experts and permute it there): 1 - C(E - e, k) /
 * C(E, k) for E experts, e = E / ep on each rank, k distinct experts drawn
 * uniformly (the benchmarks force-balance the router). */
static double uniform_rank_share(const struct pl_model *m, int64_t ep) {
  double E = (double)m->experts, e = E / (double)ep, miss = 1.0;
  for (int64_t i = 0; i < m->top_k; i++)
    miss *= E - e - (double)i > 0.0 ? (E - e - (double)i) / (E - (double)i) : 0.0;
  return 1.0 - miss;
}

/* flex_rank_share over ep ranks, or over the nodes (per_node ranks each) for
 * the network share: the uniform draw's, or the fake gate's exact count
 * (layout.moe_fake_gate). */
static double flex_rank_share(const struct pl_run *run, int64_t groups, int64_t per_node) {
  if (run->layout.moe_fake_gate) {
    double f = sim_moe_fake_gate_share(&run->model, run->layout.ep, per_node, NULL);
    if (f >= 0)
      return f;
  }
  return uniform_rank_share(&run->model, groups);
}

/* One dispatch or combine call of the flex dispatcher (their mean: a block's
 * passes run as many of each) when its ep group is inside one NVLink 5
 * domain (Blackwell behind NVSwitch, etp 1): the token rows the rank receives,
 * token_bytes (its tokens x hidden bytes) from each of ep ranks at
 * flex_rank_share, at the backend's measured rate (DeepEP's or HybridEP's).
 * 0 otherwise (NCCL's all_to_all prices the call; across nodes deepep_dedup
 * applies). */
static double flex_nvl5_call_s(const struct pl_run *run, double token_bytes) {
  const struct pl_layout *l = &run->layout;
  const struct pl_cluster *c = &run->cluster;
  int64_t gpn = c->gpus_per_node < l->gpus ? c->gpus_per_node : l->gpus;
  if (!PL_MOE_IS_FLEX(l->dispatch) || l->etp > 1 || l->ep < 2 || l->ep > gpn ||
      strcmp(c->gpu.arch, "blackwell") != 0 || strcmp(c->intra_kind, "nvswitch") != 0 ||
      run->model.experts < l->ep)
    return 0.0;
  double d = HYBRIDEP_B200_DISPATCH_BPS, cb = HYBRIDEP_B200_COMBINE_BPS;
  if (l->dispatch == PL_MOE_DEEPEP) { /* DeepEP's own rows of the same tables */
    struct ep_rate r = c->gpus_per_node > 8
                           ? deepep_rate_at(deepep_gb200, sizeof deepep_gb200 / sizeof deepep_gb200[0],
                                            l->ep)
                           : deepep_rate_at(deepep_b200, sizeof deepep_b200 / sizeof deepep_b200[0],
                                            l->ep);
    d = r.dispatch_bps;
    cb = r.combine_bps;
  } else if (c->gpus_per_node > 8) {
    const struct ep_rate *r =
        l->dispatch == PL_MOE_HYBRIDEP && l->hybridep_sms >= 32
            ? ep_rate_at(hybridep_gb200_32sm,
                         sizeof hybridep_gb200_32sm / sizeof hybridep_gb200_32sm[0], l->ep)
            : ep_rate_at(hybridep_gb200, sizeof hybridep_gb200 / sizeof hybridep_gb200[0], l->ep);
    d = r->dispatch_bps;
    cb = r->combine_bps;
  }
  double rows_bytes = token_bytes * (double)l->ep * flex_rank_share(run, l->ep, 1);
  return 0.5 * (rows_bytes / d + rows_bytes / cb);
}

/* DeepEP's (V1 normal kernels) measured rate inside one H800 node
 * (deepseek-ai/DeepEP docs/legacy.md @ 0297fc80, "Intranode 8": 153 GB/s
 * dispatch, 158 GB/s combine, "(NVLink)" the bottleneck; tests/
 * test_intranode.py: bandwidth = received token rows (a token once per
 * destination rank) x hidden bytes / time, flex_nvl5_call_s's definition). */
#define DEEPEP_H800_NVL_DISPATCH_BPS 153e9
#define DEEPEP_H800_NVL_COMBINE_BPS 158e9

/* One dispatch or combine call of the deepep flex dispatcher inside one Hopper
 * NVSwitch node (etp 1): the rows the rank receives, as flex_nvl5_call_s, at
 * DeepEP's H800 rate carried to this node's NVLink. H800 is NVLink-bound
 * (153 of its ~160 GB/s): its rate scales with the link, intra_bytes_per_s /
 * H800_NVLINK_BYTES_PER_S (2.25 on H100 / H200: 344 / 356 GB/s). With that
 * much link the kernel is bound by its SMs instead: DeepEP's SM-bound B200
 * rate at DEEPEP_DEFAULT_SMS (deepep_b200's 16-SM row, 348 / 302 GB/s: B200's
 * NVLink 5 is not its bound there) caps it. Each bound is a measurement of
 * DeepEP's own kernels; which one binds is not measured on H100 itself.
 * Megatron-Core and NeMo AutoModel call DeepEP with 20 SMs (transformer_config.py
 * and AutoModel components/moe/megatron/token_dispatcher.py MoEConfig
 * moe_deepep_num_sms 20). 0 otherwise. */
static double deepep_hopper_nvl_call_s(const struct pl_run *run, double token_bytes) {
  const struct pl_layout *l = &run->layout;
  const struct pl_cluster *c = &run->cluster;
  int64_t gpn = c->gpus_per_node < l->gpus ? c->gpus_per_node : l->gpus;
  if (l->dispatch != PL_MOE_DEEPEP || l->etp > 1 || l->ep < 2 || l->ep > gpn ||
      strcmp(c->gpu.arch, "hopper") != 0 || strcmp(c->intra_kind, "nvswitch") != 0 ||
      run->model.experts < l->ep || c->intra_bytes_per_s <= 0.0)
    return 0.0;
  double link = c->intra_bytes_per_s / H800_NVLINK_BYTES_PER_S;
  struct ep_rate sm = deepep_rate_at(deepep_b200, sizeof deepep_b200 / sizeof deepep_b200[0], 8);
  double d = fmin(DEEPEP_H800_NVL_DISPATCH_BPS * link, sm.dispatch_bps);
  double cb = fmin(DEEPEP_H800_NVL_COMBINE_BPS * link, sm.combine_bps);
  double rows_bytes = token_bytes * (double)l->ep * flex_rank_share(run, l->ep, 1);
  return 0.5 * (rows_bytes / d + rows_bytes / cb);
}

/* Hybrid-EP's measured rate across nodes on H100 (NVIDIA, deepseek-ai/DeepEP
 * branch hybrid-ep 94a9f8f, docs/README_Hybrid-EP.md "H100 Platform", IB
 * bandwidth; tests/test_hybrid_ep.py test_hybrid_ep_benchmark): 4096 tokens
 * per rank, hidden 7168, top-8 uniform routing, 8 local experts, 8 ranks per
 * node; Torch API, 16 SMs (Megatron-Core's moe_hybridep_num_sms default, as
 * above); bandwidth = rdma_send_bytes / time, where rdma_send_bytes counts
 * each token once per node that holds one of its experts, the rank's own node
 * included (tests/utils.py count_rdma_send_from_routing_map: "we do not set
 * the local node map to zeros"), x hidden x 2 B. BF16 dispatch and combine,
 * bytes/s, by ranks; above 64 ranks the 64-rank figure is kept. */
static const struct ep_rate hybridep_h100_ib[] = {{16, 54.47e9, 53.35e9}, {32, 47.36e9, 52.53e9}, {64, 41.24e9, 46.57e9}};

/* DeepEP's own (V1 normal kernels) measured rate across nodes on Hopper
 * (deepseek-ai/DeepEP docs/legacy.md @ 0297fc80, "Normal kernels with NVLink
 * and RDMA forwarding"): H800, one CX7 InfiniBand 400 Gb/s NIC per GPU (the
 * DGX H100 / H200 network: one 400 Gb/s ConnectX-7 per GPU, so the RDMA rate
 * carries unchanged), 4096 tokens per rank, hidden 7168, top-8; bandwidth =
 * the same rdma_send_bytes as Hybrid-EP's above (tests/test_internode.py:
 * num_rdma_token_sent counts each token once per node holding one of its
 * experts, its own node included, x hidden bytes), the "bottleneck" being
 * RDMA at 16/32/64 ranks (43/43, 58/57, 51/50 GB/s dispatch/combine). H800's
 * NVLink (~160 GB/s) is slower than H100's, so the NVLink forwarding that the
 * time also holds is not the bound there either. Above 64 ranks the 64-rank
 * figure is kept. */
static const struct ep_rate deepep_h800_ib[] = {{16, 43e9, 43e9}, {32, 58e9, 57e9}, {64, 51e9, 50e9}};

/* One dispatch or combine call of the hybridep or deepep flex dispatcher whose
 * ep group spans N >= 2 Hopper nodes (etp 1): the rank's tokens (token_bytes)
 * once per node that holds one of a token's top-k experts, N x
 * flex_rank_share(N) (the node share: E / N experts per node), at the
 * backend's measured Hopper rate (Hybrid-EP's H100 or DeepEP's H800 table;
 * the mean of dispatch and combine, as flex_nvl5_call_s). This is both
 * backends' hierarchy: one RDMA copy per destination node, then NVLink
 * forwarding inside it (Hybrid-EP README "Hierarchical Communication Design";
 * DeepEP "forwarding data from NVLink domain to RDMA domain"); the measured
 * time holds both. 0 otherwise. */
static double flex_ib_call_s(const struct pl_run *run, double token_bytes) {
  const struct pl_layout *l = &run->layout;
  int64_t N = ep_nodes(run);
  if (!PL_MOE_IS_FLEX(l->dispatch) || l->etp > 1 || N < 2 ||
      strcmp(run->cluster.gpu.arch, "hopper") != 0 || run->model.experts < N)
    return 0.0;
  const struct ep_rate *r =
      l->dispatch == PL_MOE_DEEPEP
          ? ep_rate_at(deepep_h800_ib, sizeof deepep_h800_ib / sizeof deepep_h800_ib[0], l->ep)
          : ep_rate_at(hybridep_h100_ib, sizeof hybridep_h100_ib / sizeof hybridep_h100_ib[0],
                       l->ep);
  double rdma_bytes = token_bytes * (double)N * flex_rank_share(run, N, ep_node_ranks(run));
  return 0.5 * (rdma_bytes / r->dispatch_bps + rdma_bytes / r->combine_bps);
}

/* The ranks of the tp-ep group the dispatcher's metadata gathers span:
 * ep x etp (unset degrees count as 1). */
static int64_t tp_ep_ranks(const struct pl_layout *l) {
  return (l->ep > 0 ? l->ep : 1) * (l->etp > 0 ? l->etp : 1);
}

/* The alltoall dispatcher's two small NCCL calls besides the tokens'
 * all_to_all (Megatron-Core megatron/core/transformer/moe/token_dispatcher.py
 * MoEAlltoAllTokenDispatcher, core_v0.15.0 .. core_v0.18.x):
 *   preprocess (ep or etp > 1): num_local_tokens_per_expert
 *     (routing_map.sum(dim=0), int64, one count per expert) all_gathered over
 *     the tp-ep group (gather_from_sequence_parallel_region(...,
 *     group=self.tp_ep_group): etp x ep ranks) so every rank knows its
 *     receive sizes: one all_gather per forward (and per recomputed forward
 *     of the moe module), none in the backward (no gradient);
 *   token_dispatch: after the tokens, global_probs = all_to_all(ep_group,
 *     permuted_probs, output_splits, input_splits): the routing probability
 *     of each routed copy (probs dtype: fp32 with moe_router_dtype fp32,
 *     model router_fp32, else the 16-bit activations), and its gradient in
 *     the backward (the experts scale their activation by it).
 * Both are latency-bound across nodes (32 KiB gathered over 32 ranks on four
 * DGX H100 nodes: ~160 us as NCCL's ring LL, `plateau collectives --op
 * all_gather --nodes 4 --bytes 32K`), so they are priced as their own NCCL
 * calls (docs/step-model.md 4). The combine sends no probabilities (they are
 * applied in the experts). Not for the flex dispatcher: DeepEP's and
 * HybridEP's layout exchange: hybridep_routing_gather. A model with dense
 * and MoE blocks scales the bytes by the MoE share, as the tokens'. */
static enum pl_status a2a_metadata(struct sim_step *st, struct sim_seg *s, double tokens,
                                   double share, int32_t rep, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  int64_t tp_ep = tp_ep_ranks(l);
  if (l->dispatch != PL_MOE_ALLTOALL || tp_ep < 2)
    return PL_OK;
  /* recomputing the moe module re-runs preprocess (rep 2), full recompute
   * re-runs it on its share of the blocks (rep - 1) */
  int32_t again = rep - 1;
  double counts = (double)tp_ep * (double)m->experts * MOE_COUNT_BYTES * share;
  enum pl_status r = PL_OK;
  if (!l->moe_pad_capacity) /* drop_and_pad returns before the gather (layout.h) */
    r = moe_comm_one(st, s, SIM_SEG_EP_COUNTS, PL_COLL_ALL_GATHER, "ep-etp", counts, 1, again,
                     diag);
  if (r != PL_OK || l->ep < 2)
    return r;
  double prob_bytes = m->router_fp32 ? FP32_BYTES : ACT_BYTES;
  double probs = tokens * (double)m->top_k * prob_bytes * share * pl_moe_imbalance(m, l);
  return moe_comm_one(st, s, SIM_SEG_EP_PROBS, PL_COLL_ALL_TO_ALL, "ep", probs, 1, rep, diag);
}

/* HybridEP's layout exchange (Megatron-Core core_v0.15.0 .. core_v0.17.x
 * token_dispatcher.py _HybridEPManager.dispatch -> fused_a2a.py
 * HybridEPDispatch.forward -> deepseek-ai/DeepEP deep_ep/hybrid_ep_buffer.py
 * HybridEPBuffer.dispatch_with_permute, commit 098da2a6): every forward
 * dispatch is called without a handle, so before its metadata-preprocessing
 * kernel it gathers the rank's routing map (the bool tokens x experts
 * tensor Megatron-Core hands it) from every rank of the dispatcher's group
 * (torch.distributed.all_gather_into_tensor: one NCCL all_gather over the
 * tp-ep group, _HybridEPManager's group), and the host waits for the
 * preprocessing after it (non_blocking False: moe_sync.c). The backward's
 * dispatch and combine reuse the forward's handle: no gather; a recomputed
 * MoE forward gathers again (rep - 1 per backward, as a2a_metadata). The
 * measured HybridEP rates above leave this call out: DeepEP's benchmark of
 * the "torch API" (tests/test_hybrid_ep.py test_hybrid_ep_benchmark, same
 * commit) times dispatch and combine with the cached handle. The
 * preprocessing kernel itself (one read of the gathered map) is not priced.
 * It takes the alltoall dispatcher's counts slot (SIM_SEG_EP_COUNTS): a
 * forward all_gather before the host's wait. */
static enum pl_status hybridep_routing_gather(struct sim_step *st, struct sim_seg *s, double tokens,
                                              double share, int32_t rep, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  int64_t tp_ep = tp_ep_ranks(l);
  if (l->dispatch != PL_MOE_HYBRIDEP || tp_ep < 2)
    return PL_OK;
  double gathered = (double)tp_ep * tokens * (double)m->experts * MOE_ROUTING_MAP_BYTES * share;
  return moe_comm_one(st, s, SIM_SEG_EP_COUNTS, PL_COLL_ALL_GATHER, "ep-etp", gathered, 1, rep - 1,
                      diag);
}

/* The expert-parallel token traffic of a block (see the file comment):
 * slots 2.. of the blocking list, after the tp collectives. */
enum pl_status sim_layer_moe(struct sim_step *st, struct sim_seg *s, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  if (!pl_model_is_moe(m))
    return PL_OK;
  double share = pl_moe_block_share(m, l);
  double tokens = (double)l->mbs * (double)(l->seq / l->cp) / (double)(l->sp ? l->tp : 1);
  /* a latent MoE dispatches moe_latent-wide tokens (moe_latent.c) */
  double h_bytes = (double)pl_model_moe_width(m) * ACT_BYTES * share;
  /* backward passes of the traffic (recomputed on a share of the blocks:
   * rounded to whole calls, as the tp collectives) */
  int32_t rep = l->recompute == PL_RECOMPUTE_FULL ? 1 + (int32_t)lround(pl_recompute_share(m, l)) : 1;
  /* recompute module moe re-runs the whole MoE layer's forward, its dispatch
   * and combine included (moe_layer.py: tensor_parallel.checkpoint of
   * custom_forward, which calls self.dispatch and self.combine) */
  if (pl_layout_recompute_modules(l) & PL_RCM_MOE)
    rep = 2;
  enum pl_status r;
  if (l->dispatch == PL_MOE_ALLGATHER) {
    double gathered = tokens * h_bytes * (double)(l->ep * l->etp);
    r = moe_comm_one(st, s, SIM_SEG_EP, PL_COLL_ALL_GATHER, "ep-etp", gathered, 1, rep, diag);
    if (r == PL_OK)
      r = moe_comm_one(st, s, SIM_SEG_EP + 1, PL_COLL_REDUCE_SCATTER, "ep-etp", gathered, 1, rep,
                       diag);
    return r;
  }
  double copies = tokens * (double)m->top_k * h_bytes * pl_moe_imbalance(m, l);
  if (PL_MOE_IS_FLEX(l->dispatch))
    copies *= deepep_dedup(st->run);
  int32_t before = st->n_colls;
  r = moe_comm_one(st, s, SIM_SEG_EP, PL_COLL_ALL_TO_ALL, "ep", copies, 2, 2 * rep, diag);
  double token_bytes = tokens * h_bytes * pl_moe_imbalance(m, l);
  double flex_s = flex_nvl5_call_s(st->run, token_bytes);
  if (flex_s <= 0.0)
    flex_s = deepep_hopper_nvl_call_s(st->run, token_bytes);
  if (flex_s <= 0.0)
    flex_s = flex_ib_call_s(st->run, token_bytes);
  int32_t c = s->tp[PL_PASS_FWD][SIM_SEG_EP].coll;
  if (r == PL_OK && flex_s > 0.0 && c >= before)
    st->colls[c].time_s = flex_s;
  if (r == PL_OK && l->etp > 1)
    r = moe_comm_one(st, s, SIM_SEG_EP + 1, PL_COLL_ALL_GATHER, "etp", copies * (double)l->etp, 1,
                     rep, diag);
  if (r == PL_OK && l->etp > 1)
    r = moe_comm_one(st, s, SIM_SEG_EP + 2, PL_COLL_REDUCE_SCATTER, "etp",
                     copies * (double)l->etp, 1, rep, diag);
  if (r == PL_OK)
    r = a2a_metadata(st, s, tokens, share, rep, diag);
  if (r == PL_OK)
    r = hybridep_routing_gather(st, s, tokens, share, rep, diag);
  return r;
}
