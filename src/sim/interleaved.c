/* interleaved.c: the interleaved 1F1B schedule of Narayanan et al. SC21
 * (arXiv 2104.04473, Sec. 2.2.2), as Megatron-LM's
 * forward_backward_pipelining_with_interleaving orders it. Each rank holds
 * vp model chunks (virtual stages chunk * p + stage). Forwards walk the
 * chunks in groups of p micro-batches; backwards walk them in reverse.
 * Stage s warms up with (p - s - 1) * 2 + (vp - 1) * p forwards (all of them
 * when m == p), runs 1F1B, then drains. With free communication the bubble
 * shrinks by vp: (p - 1)/(vp m + p - 1) of the step. Needs m % p == 0,
 * which pl_layout_resolve enforces. */
#include "sim/sim_int.h"

/* The k-th forward (or backward) of a stage: its chunk and micro-batch. */
static struct sim_slot kth(int64_t k, int64_t pp, int64_t vp, enum pl_pass pass) {
  int64_t in_group = k % (pp * vp);
  int64_t chunk = in_group / pp;
  if (pass == PL_PASS_BWD)
    chunk = vp - chunk - 1;
  int64_t mb = (k / (pp * vp)) * pp + k % pp;
  return (struct sim_slot){(int32_t)mb, (int32_t)chunk, (int32_t)pass};
}

static int32_t order(int64_t pp, int64_t m, int64_t vp, int64_t stage, struct sim_slot *out) {
  int64_t total = m * vp;
  int64_t warm = m == pp ? total : (pp - stage - 1) * 2 + (vp - 1) * pp;
  warm = warm < total ? warm : total;
  int32_t n = 0;
  for (int64_t k = 0; k < warm; k++)
    out[n++] = kth(k, pp, vp, PL_PASS_FWD);
  for (int64_t i = 0; i < total - warm; i++) {
    out[n++] = kth(warm + i, pp, vp, PL_PASS_FWD);
    out[n++] = kth(i, pp, vp, PL_PASS_BWD);
  }
  for (int64_t i = total - warm; i < total; i++)
    out[n++] = kth(i, pp, vp, PL_PASS_BWD);
  return n;
}

const struct sim_schedule sim_schedule_interleaved = {"interleaved", order};
