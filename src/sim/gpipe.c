/* gpipe.c: the GPipe schedule (Huang et al. 2019, arXiv 1811.06965): every
 * stage runs the forward of all m micro-batches, then all backwards in the
 * same order (as torch.distributed.pipelining's ScheduleGPipe). With free
 * communication and equal stages the step lasts (m + p - 1)(t_f + t_b), so
 * the bubble is (p - 1)/(m + p - 1) of it, like 1F1B, but every micro-batch's
 * activations are held at once. One model chunk per stage (vp = 1). */
#include "sim/sim_int.h"

static int32_t order(int64_t pp, int64_t m, int64_t vp, int64_t stage, struct sim_slot *out) {
  (void)pp;
  (void)vp;
  (void)stage;
  int32_t n = 0;
  for (int64_t i = 0; i < m; i++)
    out[n++] = (struct sim_slot){(int32_t)i, 0, PL_PASS_FWD};
  for (int64_t i = 0; i < m; i++)
    out[n++] = (struct sim_slot){(int32_t)i, 0, PL_PASS_BWD};
  return n;
}

const struct sim_schedule sim_schedule_gpipe = {"gpipe", order};
