/* opt_host.c: an eager optimizer that syncs with the host once per
 * parameter tensor (layout.opt_syncs_per_tensor).
 *
 * Composer's DecoupledAdamW (composer/optim/decoupled_weight_decay.py
 * v0.17.2, `adamw`) loops over the parameter tensors and starts each with
 * `step = state_steps[i].item()`, a GPU scalar read on the host: the host
 * waits for the previous tensor's kernels to finish, then issues this
 * tensor's ADAMW_EAGER_KERNELS_PER_TENSOR kernels one by one
 * (layout.host_per_kernel_s each). A tensor then takes the sync's issue
 * plus the longer of issuing its kernels and running them. With many GPUs
 * FSDP leaves few elements per tensor and the step stops shrinking with the
 * shard: it is host-bound.
 *
 * Tensors on one GPU: under FSDP1 with use_orig_params (Composer's default,
 * composer/trainer/dist_strategy.py v0.17.2) a unit's flat parameter of T
 * tensors is cut into N equal shards and a tensor whose elements are not in
 * this rank's shard has no gradient there (torch FlatParamHandle.
 * _use_sharded_grad_views) and is skipped; a shard holds on average 1 + T/N
 * of them (each of the T - 1 boundaries falls in a given shard with
 * probability 1/N), at most T. */
#include <math.h>

#include "model/constants.h"
#include "sim/lower_int.h"

static double on_rank(double tensors, double shards) {
  return fmin(tensors, 1.0 + tensors / shards);
}

double sim_opt_host_s(const struct lower *lw, double gpu_s) {
  const struct pl_layout *l = lw->l;
  double h = l->host_per_kernel_s, syncs = (double)l->opt_syncs_per_tensor;
  if (syncs <= 0 || h <= 0)
    return gpu_s;
  double shards = l->shard == PL_SHARD_DDP ? 1.0 : (double)pl_layout_shard_ranks(l);
  const struct pl_run *run = lw->st->run;
  double n = 0;
  for (int64_t c = 0; c < lw->vp; c++) {
    int64_t v = c * lw->pp + lw->stage;
    n += (double)lw->st->chunk_layers[v] *
         on_rank(sim_seg_param_tensors(run, SIM_SEG_LAYER), shards);
    if (v == 0)
      n += on_rank(sim_seg_param_tensors(run, SIM_SEG_EMBED), shards);
    if (v == lw->V - 1)
      n += on_rank(sim_seg_param_tensors(run, SIM_SEG_HEAD), shards);
  }
  if (n <= 0)
    return gpu_s;
  double per_tensor = syncs * h + fmax(ADAMW_EAGER_KERNELS_PER_TENSOR * h, gpu_s / n);
  return fmax(gpu_s, n * per_tensor);
}
