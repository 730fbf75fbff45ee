/* pass_ops.c: the host's side of a list of ops in one pass: what the host
 * issues per op (op_host_s) and the pass's time as the host flow
 * (host_flow.c) of its ops (sim_seg_ops_s, docs/step-model.md 2.6 "Host
 * syncs"). Taken out of compute.c (per-op GPU times), which it calls. */
#include <plateau/layout.h>
#include <plateau/model.h>
#include <plateau/sim.h>

#include <stdbool.h>
#include <string.h>

#include "sim/sim_int.h"

/* What the host issues for an op run `share` times in a pass: its kernels,
 * those whose result it waits for (pl_op.host_waits), its GEMM kernels
 * and cuBLAS calls (sim_op_run_gemms), and the quantize kernels TE launches
 * from C++ per expert (sim_op_split_quantize_kernels). */
struct host_tally {
  double kernels, waits, gemm_kernels, gemm_calls, cpp_launches;
};

static void host_tally_add(struct host_tally *h, const struct pl_layout *l,
                           const struct pl_model *m, const struct pl_op *op, enum pl_pass pass,
                           double share) {
  double k = share * sim_op_run_kernels(l, m, op, pass);
  h->kernels += k;
  h->waits += op->host_waits ? k : 0;
  if (op->kind == PL_OP_GEMM) {
    h->gemm_kernels += k;
    h->gemm_calls += share * sim_op_run_gemms(op, pass);
    h->cpp_launches += share * sim_op_split_quantize_kernels(l, op, pass);
  }
}

/* The host time of a tally: each kernel host_per_kernel_s, each cuBLAS GEMM
 * call host_per_gemm_s instead when that is set (sim_op_run_gemms:
 * Transformer Engine's per-call descriptor, heuristic query and launch; a
 * grouped expert GEMM one call per local expert), each C++ launch
 * host_per_launch_s. */
static double tally_host_s(const struct pl_layout *l, const struct host_tally *h) {
  double host = h->kernels * l->host_per_kernel_s;
  if (l->host_per_gemm_s > 0)
    host += h->gemm_calls * l->host_per_gemm_s - h->gemm_kernels * l->host_per_kernel_s;
  /* layout.host_per_launch_s: TE's per-expert quantize kernels, each launched
   * from C++ (no Python, dispatcher or autograd in between) */
  host += h->cpp_launches * l->host_per_launch_s;
  return host;
}

/* pl_op.host_waits: the host waits for each such kernel's result, so the GPU
 * idles while the host reads it back (a copy) and issues the next kernel: two
 * launches per such kernel that no GPU work hides. Adds the read-backs to the
 * kernels the host issues and returns the GPU time the waits add. */
static double read_backs(const struct pl_layout *l, struct host_tally *h) {
  h->kernels += h->waits;
  return 2.0 * h->waits * l->host_per_kernel_s;
}

/* The host time of op run share times in pass, as sim_seg_ops_s charges it (0
 * when graphed); *wait_gpu_s the GPU time its host waits add (pl_op.host_waits),
 * *launches the calls the host makes (cuBLAS calls of a GEMM with
 * host_per_gemm_s, else kernels). */
static double op_host_s(const struct pl_layout *l, const struct pl_model *m, const struct pl_op *op,
                        enum pl_pass pass, double share, double *wait_gpu_s, double *launches) {
  struct host_tally h = {0, 0, 0, 0, 0};
  if (!sim_op_graphed(l, m, op))
    host_tally_add(&h, l, m, op, pass, share);
  *wait_gpu_s = read_backs(l, &h);
  *launches = (l->host_per_gemm_s > 0 && h.gemm_calls > 0 ? h.gemm_calls : h.kernels) +
              (l->host_per_launch_s > 0 ? h.cpp_launches : 0);
  return tally_host_s(l, &h);
}

/* One item of a pass's issue order: op i's own pass, or (refwd) the forward
 * of a recomputed op re-run in the backward; sync: the host waits for the GPU
 * after it (pl_op.host_sync, the MoE dispatcher's wait); coll_s: a collective
 * the GPU runs after the op, before that wait (the MoE combine, a dispatch the
 * host waits for); after_s: one it runs after the wait (the all_to_all
 * dispatch, whose split sizes the host waits for). */
struct issue {
  int i;
  bool refwd, sync;
  double coll_s, after_s;
};

static bool shared_op(const struct pl_op *op) { return strncmp(op->name, "shared_", 7) == 0; }

static int find_op(const struct pl_op *ops, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(ops[i].name, name) == 0)
      return i;
  return -1;
}

/* The MoE dispatcher's wait (moe_sync.c) sits in a forward with a routing:
 * after the permute, the combine after the unpermute. */
static bool has_routing(const struct pl_op *ops, int n) {
  return find_op(ops, n, "router") >= 0 && find_op(ops, n, "permute") >= 0 &&
         find_op(ops, n, "unpermute") >= 0;
}

static bool recomputed(const struct pl_op *op) {
  struct pl_op part;
  return pl_op_recompute_part(op, &part);
}

/* Ops a..b in forward issue order into idx: list order, but the shared
 * experts before the router when both are in the range (Megatron-Core
 * moe_layer.py MoELayer.forward: custom_forward calls shared_experts_compute
 * before router_and_preprocess, core_v0.15.0, core_v0.16.0). Returns the
 * count. */
static int fwd_order(const struct pl_op *ops, int a, int b, int *idx) {
  int k = 0, router = -1;
  for (int i = a; i <= b; i++)
    if (strcmp(ops[i].name, "router") == 0)
      router = i;
  for (int i = a; i <= b; i++) {
    if (router >= 0 && shared_op(&ops[i]))
      continue;
    for (int j = a; j <= b && i == router; j++)
      if (shared_op(&ops[j]))
        idx[k++] = j;
    idx[k++] = i;
  }
  return k;
}

/* Where the backward issues the recompute of the checkpointed run of ops
 * ending at b (ops[b] recomputed, ops[b + 1] not): before the first backward
 * of the run, that of its last op in forward order (pos: an op's place in
 * fwd_order, idx: the ops in it; tensor_parallel.CheckpointFunction.backward
 * re-runs the wrapped forward when autograd reaches the checkpoint's node,
 * megatron/core/tensor_parallel/random.py, core_v0.15.0), except the modules
 * Megatron-Core re-runs with a CheckpointWithoutOutput, whose recompute is a
 * gradient hook on a later output (discard_output_and_register_recompute):
 * it runs when that gradient is ready, before the backward of the op making
 * it. The experts' activation (moe_act) hooks fc2's output (experts.py
 * TEGroupedMLP.forward); the input norm the attention's output, the pre-MLP
 * norm the MLP's (transformer_layer.py _forward_attention / _forward_mlp,
 * core_v0.15.0): the op before the residual add in forward order. Returns
 * the op before whose backward the run is issued. */
static int recompute_at(const struct pl_op *ops, int n, int b, const int *idx, const int *pos) {
  const char *nm = ops[b].name, *add = NULL;
  if (b + 1 < n && strcmp(nm, "expert_act") == 0 && strcmp(ops[b + 1].name, "expert_fc2") == 0)
    return b + 1;
  if (strcmp(nm, "norm1") == 0)
    add = "resid1";
  else if (strcmp(nm, "norm2") == 0)
    add = "resid2";
  for (int j = b + 2; add != NULL && j < n; j++)
    if (strcmp(ops[j].name, add) == 0)
      return idx[pos[j] - 1];
  int last = b;
  for (int a = b - 1; a >= 0 && recomputed(&ops[a]); a--)
    if (pos[a] > pos[last])
      last = a;
  return last;
}

/* Op i's forward (refwd: re-run in the backward) as an item: with the MoE
 * dispatcher's wait (wait, moe_sync.c) a sync at the permute with its
 * dispatch (alltoall: after the wait, the host waits for the split sizes
 * before it issues the all_to_all; allgather, flex: before it, the host waits
 * for the gathered or dispatched tokens' counts), the combine after the
 * unpermute. A re-run forward re-runs the dispatcher, its wait included
 * (token_dispatcher.py has no recompute case). */
static struct issue fwd_item(const struct pl_layout *l, const struct pl_op *ops, int i, bool refwd,
                             const struct sim_moe_wait *wait) {
  struct issue it = {.i = i, .refwd = refwd, .sync = ops[i].host_sync};
  if (wait != NULL && strcmp(ops[i].name, "permute") == 0) {
    it.sync = true;
    *(l->dispatch == PL_MOE_ALLTOALL ? &it.after_s : &it.coll_s) = wait->dispatch_s;
    it.coll_s += wait->counts_s; /* alltoall: the counts' all_gather before the wait */
  } else if (wait != NULL && strcmp(ops[i].name, "unpermute") == 0) {
    it.coll_s = wait->combine_s;
  }
  return it;
}

static void issue_refwd(const struct pl_layout *l, const struct pl_op *ops, int b,
                        const struct sim_moe_wait *wait, struct issue *out, int *k) {
  int a = b, idx[PL_MAX_LAYER_OPS];
  while (a > 0 && recomputed(&ops[a - 1]))
    a--;
  int m = fwd_order(ops, a, b, idx);
  for (int j = 0; j < m; j++)
    out[(*k)++] = fwd_item(l, ops, idx[j], true, wait);
}

/* The order the host issues a pass's ops in. Forward: fwd_order (list order,
 * the shared experts before the router), each op a fwd_item (the MoE
 * dispatcher's wait and collectives). Backward: autograd's, the reverse of
 * the forward's order (PyTorch runs a graph's backward nodes in reverse
 * topological order, of two ready nodes the one created last first:
 * torch/csrc/autograd/engine.h ReadyQueue::CompareNodeTaskTime, higher
 * sequence_nr first; so the routed experts' backward before the shared
 * experts'); a checkpointed run of consecutive recomputed ops has its forward
 * re-run first, in forward order (recompute_at). Full recompute (and
 * torchtitan's op-level policy, one torch.utils.checkpoint per block) re-runs
 * the block's whole forward before its backward (transformer_block.py
 * _checkpointed_forward, one layer per checkpoint: recompute_num_layers 1
 * assumed). Ops appended to the list that are not a node of the block's
 * graph (pl_op_node_free: the casts, the gradient adds) are left out here and
 * spread over the GEMMs (synced_flow_s); qkv_grad_cat (the split's backward,
 * segments.c) runs just before the QKV GEMM's backward. Returns the item
 * count. */
static int issue_order(const struct pl_layout *l, const struct pl_op *ops, int n, enum pl_pass pass,
                       const struct sim_moe_wait *wait, struct issue *out) {
  int k = 0, cat = find_op(ops, n, "qkv_grad_cat"), idx[PL_MAX_LAYER_OPS], pos[PL_MAX_LAYER_OPS];
  int m = fwd_order(ops, 0, n - 1, idx);
  for (int j = 0; j < m; j++)
    pos[idx[j]] = j;
  if (pass == PL_PASS_FWD) {
    for (int j = 0; j < m; j++)
      if (!pl_op_node_free(&ops[idx[j]]))
        out[k++] = fwd_item(l, ops, idx[j], false, wait);
    return k;
  }
  bool whole = l->recompute == PL_RECOMPUTE_FULL || l->recompute == PL_RECOMPUTE_OPS;
  for (int j = 0; j < m && whole; j++)
    if (recomputed(&ops[idx[j]]) && !pl_op_node_free(&ops[idx[j]]))
      out[k++] = fwd_item(l, ops, idx[j], true, wait);
  for (int q = m - 1; q >= 0; q--) {
    int i = idx[q];
    for (int b = 0; b < n && !whole; b++)
      if (recomputed(&ops[b]) && (b + 1 == n || !recomputed(&ops[b + 1])) &&
          recompute_at(ops, n, b, idx, pos) == i)
        issue_refwd(l, ops, b, wait, out, &k);
    if (cat >= 0 && strcmp(ops[i].name, "qkv") == 0)
      out[k++] = (struct issue){.i = cat, .refwd = false, .sync = false}, cat = -1;
    if (!pl_op_node_free(&ops[i]) && strcmp(ops[i].name, "qkv_grad_cat") != 0)
      out[k++] = (struct issue){.i = i, .refwd = false, .sync = false};
  }
  if (cat >= 0) /* no QKV GEMM (latent attention): where the list has it */
    out[k++] = (struct issue){.i = cat, .refwd = false, .sync = false};
  return k;
}

/* One op (or, refwd, its re-run forward) as an item of the host flow
 * (host_flow.c), frac of it: its host time (op_host_s) and GPU time with its
 * read-back waits, over its launches. */
static void flow_item(struct sim_flow *f, const struct pl_gpu *g, const struct pl_layout *l,
                      const struct pl_model *m, const struct pl_op *op, bool refwd,
                      enum pl_pass pass, double frac) {
  struct pl_op part = *op;
  if (refwd)
    pl_op_recompute_part(op, &part);
  enum pl_pass p = refwd ? PL_PASS_FWD : pass;
  double share = (op->share > 0 ? op->share : 1.0) * frac, wait = 0, launches = 0;
  double host = op_host_s(l, m, &part, p, share, &wait, &launches);
  sim_flow_op(f, host, share * pl_op_run_time_s(g, l, m, &part, p) + wait, launches);
}

static double item_gemm_s(const struct pl_gpu *g, const struct pl_layout *l,
                          const struct pl_model *m, const struct pl_op *op, bool refwd,
                          enum pl_pass pass) {
  if (op->kind != PL_OP_GEMM)
    return 0;
  struct pl_op part = *op;
  if (refwd)
    pl_op_recompute_part(op, &part);
  return (op->share > 0 ? op->share : 1.0) *
         pl_op_run_time_s(g, l, m, &part, refwd ? PL_PASS_FWD : pass);
}

/* A pass with host syncs as the flow of its ops in issue order (host_flow.c):
 * after a sync the GPU's queue is empty, so what follows runs as the host
 * issues it, op by op. The blocks of a stage repeat, so the period is one
 * block's issue order from just after its first sync to that sync in the
 * next block (what the GPU runs right after that sync, the all_to_all
 * dispatch, opens it). The collectives in it (coll_s, after_s) are GPU items
 * (sim_flow_gpu). The node-free ops are spread over the GEMMs of their pass (a
 * re-run forward's over the re-run GEMMs) by GEMM time: the casts just before
 * each GEMM (Transformer Engine quantizes a GEMM's inputs as it calls it), the
 * gradient adds just after (a weight's hook runs when its gradient is
 * ready: Megatron-Core distributed_data_parallel.py _make_backward_post_hook).
 * Returns -1 when the pass has no sync. */
static double synced_flow_s(const struct pl_gpu *g, const struct pl_layout *l,
                            const struct pl_model *m, const struct pl_op *ops, int n,
                            enum pl_pass pass, const struct sim_moe_wait *wait, double *colls_s) {
  struct issue order[2 * PL_MAX_LAYER_OPS];
  if (n > PL_MAX_LAYER_OPS)
    return -1;
  int k = issue_order(l, ops, n, pass, wait, order), first = -1;
  for (int j = 0; j < k && first < 0; j++)
    if (order[j].sync)
      first = j;
  if (first < 0)
    return -1;
  double gemm_s[2] = {0, 0}, item_s[2 * PL_MAX_LAYER_OPS]; /* own pass, re-run forward */
  for (int j = 0; j < k; j++) {
    item_s[j] = item_gemm_s(g, l, m, &ops[order[j].i], order[j].refwd, pass);
    gemm_s[order[j].refwd] += item_s[j];
  }
  /* the lumps spread over the GEMMs: the FP8 casts before each, the other
   * node-free ops after it */
  int casts = -1, lumps[PL_MAX_LAYER_OPS], n_lumps = 0;
  for (int q = 0; q < n; q++)
    if (strcmp(ops[q].name, "fp8_casts") == 0)
      casts = q;
    else if (pl_op_node_free(&ops[q]))
      lumps[n_lumps++] = q;
  struct sim_flow f = {0, 0};
  sim_flow_gpu(&f, order[first].after_s);
  *colls_s = 0;
  for (int j = 0; j < k; j++)
    *colls_s += order[j].coll_s + order[j].after_s;
  for (int j = 1; j <= k; j++) {
    int at = (first + j) % k;
    const struct issue *it = &order[at];
    double frac = gemm_s[it->refwd] > 0 ? item_s[at] / gemm_s[it->refwd] : 0;
    if (casts >= 0 && frac > 0 && (!it->refwd || recomputed(&ops[casts])))
      flow_item(&f, g, l, m, &ops[casts], it->refwd, pass, frac);
    flow_item(&f, g, l, m, &ops[it->i], it->refwd, pass, 1.0);
    for (int q = 0; q < n_lumps && frac > 0; q++)
      if (!it->refwd || recomputed(&ops[lumps[q]]))
        flow_item(&f, g, l, m, &ops[lumps[q]], it->refwd, pass, frac);
    sim_flow_gpu(&f, it->coll_s);
    if (it->sync)
      sim_flow_sync(&f);
    if (at != first)
      sim_flow_gpu(&f, it->after_s);
  }
  return sim_flow_end_s(&f);
}

/* Time of a list of ops in one pass. A backward includes the forward of the
 * ops marked for recomputation. attention_only sums just the attention core
 * (segments.c subtracts it from the whole to split a segment). wait (the
 * MoE dispatcher's wait, moe_sync.c): one more sync in the forward, and in a
 * backward that re-runs the routing's forward, with its dispatch and combine,
 * which lower.c charges after the unit's compute (moe_comm.c sim_layer_moe: a
 * recomputed MoE layer's twice), so the pass is its flow less their time
 * alone. */
double sim_seg_ops_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_model *m,
                     const struct pl_op *ops, int n, enum pl_pass pass, bool attention_only,
                     const struct sim_moe_wait *wait) {
  /* A pass with host syncs (pl_op.host_sync): the host cannot run ahead of the
   * GPU across one, so the pass is the flow of its ops in issue order
   * (synced_flow_s). A pass without one is one fluid item of the host flow
   * (host_flow.c, SIM_FLOW_FLUID: it takes the longer of its host and GPU
   * times): the flow of the same block repeated, with the host running ahead
   * across blocks, tends to that per block (to first order: the start-up of
   * the first block is not counted).
   * CUDA_LAUNCH_BLOCKING=1 (layout.launch_blocking): a launch returns only when
   * its kernel has finished (CUDA Programming Guide, "Asynchronous Concurrent
   * Execution": the variable disables asynchronous kernel launches), so the
   * host issues the next kernel only then: host and GPU time add up, an item
   * of one launch, and a sync changes nothing (the GPU is idle at each one). */
  if (!has_routing(ops, n))
    wait = NULL;
  double colls_s = 0;
  if (!attention_only && !l->launch_blocking) {
    double flow = synced_flow_s(g, l, m, ops, n, pass, wait, &colls_s);
    if (flow >= 0)
      return flow - colls_s;
  }
  double t = 0; /* GPU time in op order */
  struct host_tally h = {0, 0, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    if (attention_only && ops[i].kind != PL_OP_ATTENTION)
      continue;
    double share = ops[i].share > 0 ? ops[i].share : 1.0; /* flops.h: blocks that run it */
    /* captured in a CUDA graph: GPU time only, the host issues none of it */
    bool graphed = sim_op_graphed(l, m, &ops[i]);
    t += share * pl_op_run_time_s(g, l, m, &ops[i], pass);
    if (!graphed)
      host_tally_add(&h, l, m, &ops[i], pass, share);
    struct pl_op part; /* the whole op, or under recompute ops a fused GEMM's part */
    if (pass == PL_PASS_BWD && pl_op_recompute_part(&ops[i], &part)) {
      t += share * pl_op_run_time_s(g, l, m, &part, PL_PASS_FWD);
      if (!graphed)
        host_tally_add(&h, l, m, &part, PL_PASS_FWD, share);
    }
  }
  double waits_s = read_backs(l, &h); /* the host issues the read-backs too */
  if (!attention_only)
    t += waits_s;
  /* Eager host floor (docs/step-model.md 2.6): the host issues the pass's
   * kernels one by one; when that takes longer than the GPU runs them, the
   * GPU waits for the host. The attention part alone (cp split) keeps the GPU
   * time: the floor is the whole segment's. */
  struct sim_flow f = {0, 0};
  sim_flow_op(&f, attention_only ? 0 : tally_host_s(l, &h), t,
              l->launch_blocking ? 1.0 : SIM_FLOW_FLUID);
  return sim_flow_end_s(&f);
}
