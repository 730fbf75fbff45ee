/* test_host_flow.c: the host -> GPU flow (src/sim/host_flow.c) against
 * timelines drawn launch by launch (docs/step-model.md 2.6). Times in us
 * written as seconds x 1e-6; every sum below is of a few exact decimals. */
#include <plateau/plateau.h>

#include <math.h>

#include "check.h"
#include "sim/sim_int.h"

#define EXACT 1e-12
#define US 1e-6

/* Two ops and a collective from an idle GPU, then the host's wait. */
static void test_flow_sequence(void) {
  struct sim_flow f = {0, 0};
  /* host 10, GPU 4, 2 launches: each 5 host, 2 GPU. Launch 1 issued at 5
   * runs 5-7, launch 2 issued at 10 runs 10-12: max(0 + 4, 0 + max(10 + 4/2,
   * 10/2 + 4)) = max(4, 12) = 12; the host is at 10 */
  sim_flow_op(&f, 10 * US, 4 * US, 2);
  CHECK_NEAR_REL(f.gpu_s, 12 * US, EXACT);
  CHECK_NEAR_REL(f.host_s, 10 * US, EXACT);
  /* host 2, GPU 20, 4 launches: issued at 10.5, 11, 11.5, 12, each 5 on the
   * GPU, which is free at 12: 12-17, 17-22, 22-27, 27-32.
   * max(12 + 20, 10 + max(2 + 5, 0.5 + 20)) = max(32, 30.5) = 32 */
  sim_flow_op(&f, 2 * US, 20 * US, 4);
  CHECK_NEAR_REL(f.gpu_s, 32 * US, EXACT);
  CHECK_NEAR_REL(f.host_s, 12 * US, EXACT);
  /* a collective of 8 on the GPU, no host time: it waits for the GPU,
   * 32 + 8 = 40; nothing for 0 */
  sim_flow_gpu(&f, 8 * US);
  sim_flow_gpu(&f, 0);
  CHECK_NEAR_REL(f.gpu_s, 40 * US, EXACT);
  CHECK_NEAR_REL(f.host_s, 12 * US, EXACT);
  /* the host waits for the GPU: both at 40 */
  sim_flow_sync(&f);
  CHECK_NEAR_REL(f.host_s, 40 * US, EXACT);
  CHECK_NEAR_REL(sim_flow_end_s(&f), 40 * US, EXACT);
  /* after the wait the GPU is idle again: host 6, GPU 3, 3 launches of 2 and
   * 1: issued at 42, 44, 46, the last runs 46-47:
   * 40 + max(6 + 1, 2 + 3) = 47 */
  sim_flow_op(&f, 6 * US, 3 * US, 3);
  CHECK_NEAR_REL(f.gpu_s, 47 * US, EXACT);
  CHECK_NEAR_REL(f.host_s, 46 * US, EXACT);
}

/* The two limits of the launch count and a host ahead of the GPU. */
static void test_flow_limits(void) {
  /* fluid (many launches): max(7, 3) = 7 host-bound, then from (7, 7)
   * host 1 GPU 5: max(7 + 5, 7 + max(1, 5)) = 12, GPU-bound */
  struct sim_flow f = {0, 0};
  sim_flow_op(&f, 7 * US, 3 * US, SIM_FLOW_FLUID);
  CHECK_NEAR_REL(sim_flow_end_s(&f), 7 * US, EXACT);
  sim_flow_op(&f, 1 * US, 5 * US, SIM_FLOW_FLUID);
  CHECK_NEAR_REL(f.gpu_s, 12 * US, EXACT);
  CHECK_NEAR_REL(f.host_s, 8 * US, EXACT);
  /* one launch (CUDA_LAUNCH_BLOCKING=1): 7 + 3 = 10 */
  f = (struct sim_flow){0, 0};
  sim_flow_op(&f, 7 * US, 3 * US, 1);
  CHECK_NEAR_REL(sim_flow_end_s(&f), 10 * US, EXACT);
  /* fewer than one launch (an op a fraction of the blocks run) counts as
   * one: 2 + 3 = 5 */
  f = (struct sim_flow){0, 0};
  sim_flow_op(&f, 2 * US, 3 * US, 0.25);
  CHECK_NEAR_REL(f.gpu_s, 5 * US, EXACT);
  /* host-bound: host 9 GPU 1 in 1000 launches, the last kernel issued at 9
   * ends at max(9 + 0.001, 0.009 + 1) = 9.001; the wait brings the host
   * there */
  f = (struct sim_flow){0, 0};
  sim_flow_op(&f, 9 * US, 1 * US, 1000);
  sim_flow_sync(&f);
  CHECK_NEAR_REL(f.host_s, 9.001 * US, EXACT);
  CHECK_NEAR_REL(sim_flow_end_s(&f), 9.001 * US, EXACT);
  /* the wait never moves the host back */
  f = (struct sim_flow){5 * US, 3 * US};
  sim_flow_sync(&f);
  CHECK_NEAR_REL(f.host_s, 5 * US, EXACT);
  CHECK_NEAR_REL(sim_flow_end_s(&f), 5 * US, EXACT);
}

int main(void) {
  test_flow_sequence();
  test_flow_limits();
  return check_finish();
}
