/* power_cap.c: a GPU run under a board power limit below its TDP
 * (nvidia-smi -pl; torchtitan's published H100 runs are capped at 500 W).
 *
 * Model: under training load a GPU sits at its power limit (the GPU files'
 * gemm.sustained_fraction is the clock that limit allows), and its draw above
 * idle is dynamic CMOS power, P - P_idle = a C V^2 f, with the supply voltage
 * scaled with the clock across the DVFS range (V proportional to f), so
 * P - P_idle grows as f^3 (Weste & Harris, CMOS VLSI Design, 4th ed., Sec.
 * 5.1-5.2, dynamic power and DVFS). A cap W therefore holds the clock at
 *   f_W / f_tdp = ((W - idle) / (tdp - idle))^(1/3),
 * which scales every tensor-core rate (compute.c); HBM bandwidth is taken
 * as clock-independent. Ignored: the voltage floor at low clocks (below it
 * power falls only linearly, so deep caps cost more than this says), and
 * kernels that do not reach the limit (communication, memory-bound work). */
#include <plateau/hw.h>

#include <math.h>

enum pl_status pl_gpu_set_power_cap(struct pl_gpu *g, double w, struct pl_diag *diag) {
  if (!(w > g->idle_w && w <= g->tdp_w))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "power cap %g W for gpu '%s': expected above its idle %g W and at most its "
                       "TDP %g W",
                       w, g->name, g->idle_w, g->tdp_w);
  g->power_cap_w = w;
  return PL_OK;
}

double pl_gpu_clock_fraction(const struct pl_gpu *g) {
  /* the slowest GPU's clock sets a synchronous step's pace (variability.c) */
  double slowest = g->clock_slowest_fraction > 0 ? g->clock_slowest_fraction : 1.0;
  if (g->power_cap_w <= 0 || g->power_cap_w >= g->tdp_w || g->tdp_w <= g->idle_w)
    return slowest;
  double r = (g->power_cap_w - g->idle_w) / (g->tdp_w - g->idle_w);
  return (r > 0 ? cbrt(r) : 1.0) * slowest;
}
