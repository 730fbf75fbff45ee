/* power.c: mean GPU power over a step (docs/step-model.md section 7).
 *
 * A GPU draws its idle power plus a share of its dynamic range (TDP - idle)
 * that depends on what it is doing:
 *   P = idle + (tdp - idle) * (a_compute f_compute + a_comm f_comm + a_wait f_wait)
 * with f_* the fractions of the step spent computing, in exposed
 * communication, and waiting (pipeline bubble), and a_* the GPU file's
 * "power" shares with their sources. Communication keeps SMs spinning in
 * NCCL kernels and moves data through HBM and NVLink, so its share is high:
 * the study behind plateau (arXiv 2411.13055, Sec. 1 and Fig. 1) found per-GPU
 * power nearly flat while per-GPU throughput fell at scale, which is what
 * makes energy efficiency fall. Node power beyond the GPUs (CPUs, NICs,
 * switches, fans: the cluster file's node_other_w) is added per node by the
 * caller. A power cap (gpu.power_cap_w) ends the range at the cap.
 * Ignored: temperature, the higher draw of
 * compute overlapped with communication (Lee et al. 2025, arXiv 2507.03114). */
#include "sim/sim_int.h"

double sim_gpu_power_w(const struct pl_gpu *g, double compute_frac, double comm_frac,
                       double wait_frac) {
  const struct pl_gpu_efficiency *e = &g->eff;
  /* under a power cap the draw's range ends at the cap (power_cap.c) */
  double limit = g->power_cap_w > 0 && g->power_cap_w < g->tdp_w ? g->power_cap_w : g->tdp_w;
  double range = limit > g->idle_w ? limit - g->idle_w : 0;
  double share =
      e->power_compute * compute_frac + e->power_comm * comm_frac + e->power_wait * wait_frac;
  double w = g->idle_w + range * share;
  return w < limit ? w : (limit > g->idle_w ? limit : g->idle_w);
}
