/* host_flow.c: the host issuing a pass's kernels and the GPU running them,
 * the one model of that a pass's time uses (pass_ops.c sim_seg_ops_s): a
 * pass with host syncs, the MoE dispatcher's wait among them (moe_sync.c), as
 * the flow of its ops (docs/step-model.md 2.6 "Host syncs", "MoE host sync").
 *
 * Two stages in issue order: the host issues an item, then the GPU runs it
 * once the host has issued it and the GPU has run everything before it
 * (one CUDA stream: kernels run in launch order). An item of k launches of
 * equal host and GPU time, h and g in all, ends on the GPU at
 *   max(previous GPU end + g, host start + max(h + g/k, h/k + g))
 * (its first launch's GPU part can start after h/k, its last after h). The
 * limit k -> infinity (SIM_FLOW_FLUID) is max(h, g) from a common start: the
 * host and GPU overlap completely, the whole piece's figure where the GPU
 * still holds work queued before it; k = 1 is h + g: a launch that returns
 * only when its kernel has finished (CUDA_LAUNCH_BLOCKING=1,
 * layout.launch_blocking) overlaps nothing, whatever its real launch count.
 * A sync (a stream synchronize, a device-to-host read the next launches need,
 * pl_op.host_sync, the MoE dispatcher's wait) makes the host wait until the
 * GPU has run everything so far. This file calls nothing of src/sim: the
 * caller turns ops into items (pass_ops.c flow_item) and collectives
 * into GPU items. */
#include "sim/sim_int.h"

void sim_flow_op(struct sim_flow *f, double host_s, double gpu_s, double launches) {
  double k = launches < 1.0 ? 1.0 : launches;
  double a = host_s + gpu_s / k, b = host_s / k + gpu_s;
  double via_host = f->host_s + (a > b ? a : b), via_gpu = f->gpu_s + gpu_s;
  f->gpu_s = via_gpu > via_host ? via_gpu : via_host;
  f->host_s += host_s;
}

void sim_flow_gpu(struct sim_flow *f, double gpu_s) {
  if (gpu_s > 0)
    sim_flow_op(f, 0, gpu_s, 1);
}

void sim_flow_sync(struct sim_flow *f) {
  if (f->gpu_s > f->host_s)
    f->host_s = f->gpu_s;
}

double sim_flow_end_s(const struct sim_flow *f) {
  return f->gpu_s > f->host_s ? f->gpu_s : f->host_s;
}
