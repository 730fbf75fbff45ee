/* 1f1b.c: the one-forward-one-backward schedule (PipeDream-Flush, Narayanan
 * et al. 2021 "Memory-Efficient Pipeline-Parallel DNN Training", arXiv
 * 2006.09503; Megatron-LM forward_backward_pipelining_without_interleaving).
 * Stage s (0-based) of p runs min(p - s - 1, m) warm-up forwards, then
 * alternates one forward and one backward, then drains the remaining
 * backwards. With free communication and equal stages the step lasts
 * (m + p - 1)(t_f + t_b): bubble fraction (p - 1)/(m + p - 1). */
#include "sim/sim_int.h"

static int32_t order(int64_t pp, int64_t m, int64_t vp, int64_t stage, struct sim_slot *out) {
  (void)vp;
  int64_t warm = pp - stage - 1;
  warm = warm < m ? warm : m;
  int32_t n = 0;
  for (int64_t i = 0; i < warm; i++)
    out[n++] = (struct sim_slot){(int32_t)i, 0, PL_PASS_FWD};
  for (int64_t i = 0; i < m - warm; i++) {
    out[n++] = (struct sim_slot){(int32_t)(warm + i), 0, PL_PASS_FWD};
    out[n++] = (struct sim_slot){(int32_t)i, 0, PL_PASS_BWD};
  }
  for (int64_t i = m - warm; i < m; i++)
    out[n++] = (struct sim_slot){(int32_t)i, 0, PL_PASS_BWD};
  return n;
}

const struct sim_schedule sim_schedule_1f1b = {"1f1b", order};
