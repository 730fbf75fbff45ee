/* lower_p2p.c: the pipeline exchange of the lowering (lower.c): each pass's
 * transfer to the next or previous virtual stage, and what the frameworks do
 * around it: Megatron's batched blocking send/recv (sim_p2p_emit_sends),
 * DeepSpeed's one-at-a-time instructions and partitioned tensors
 * (layout.p2p_serial) and Megatron-LM 2021-22's scatter/gather
 * (layout.p2p_scatter_gather). docs/step-model.md "Pipeline transfers". */
#include "sim/lower_int.h"

/* layout.p2p_serial: DeepSpeed's pipeline engine (deepspeed/runtime/pipe/
 * schedule.py TrainSchedule.steps, engine.py _exec_send_activations ..
 * _exec_recv_grads, p2p.py send/recv, v0.9.5). Each send and each recv is a
 * blocking torch.distributed.send/recv, issued in the schedule's order; a
 * transfer starts when both stages have reached it (NCCL's send completes only
 * as the peer receives) and both go on when it ends. Between two passes of a
 * stage the schedule issues the previous pass's send and the next pass's
 * receive, RecvGrad before SendActivation when a forward is followed by a
 * backward, otherwise the send first:
 *   F(i) -> B(j): RecvGrad(j), SendActivation(i)
 *   F(i) -> F(i+1), B(j) -> F(i), B(j) -> B(j+1): the send, then the receive
 * so a boundary's activation and gradient go one after the other, where
 * Megatron-LM's batched isend/irecv (emit_sends) runs them together. The
 * transfers are emit_sends' tasks; this adds each stage's order as edges:
 * every item waits for the one before it in that stage's sequence. 1F1B with
 * vp = 1 only: DeepSpeed has no other schedule. Before v0.8.3 (commit
 * b528f50e, PR #2862, 2023-03-13; what BLOOM and MT-NLG ran) each step's pair
 * went the other way round (RecvActivation then SendGrad before a forward,
 * SendActivation then RecvGrad before a backward); an event replay of both
 * orders (scripts/ds-trainschedule-replay.py) gives the same step time, so
 * one order serves every version (docs/accuracy.md "Session 29 (dspipe29)"). */
bool sim_p2p_serial(const struct lower *lw) {
  return lw->l->p2p_serial && lw->pp > 1 && lw->vp == 1 && lw->l->schedule == PL_SCHEDULE_1F1B;
}

/* After a pass's compute: `gathers` all_gathers of a whole activation over
 * tp (part_ag_coll), then `bytes` of copies on the compute stream at the
 * HBM's bandwidth, both part of the pass. */
static void pass_gathers(struct lower *lw, bool fwd, int64_t gathers, double bytes) {
  const struct pl_gpu *g = &lw->st->run->cluster.gpu;
  int32_t t = coll_task(lw, PL_STREAM_TP, lw->part_ag_coll, gathers);
  if (t != SIM_NONE) {
    dep(lw, lw->last_comp, t);
    join_add(lw, t);
  }
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  if (bytes <= 0 || bw <= 0)
    return;
  int32_t c = add(lw, PL_STREAM_COMPUTE, bytes / bw + g->eff.kernel_overhead_s,
                  fwd ? PL_TASK_FORWARD : PL_TASK_BACKWARD, SIM_RES_COMPUTE);
  dep(lw, t, c);
  join_add(lw, c);
}

/* layout.p2p_serial: what DeepSpeed's pipeline engine does around a pass
 * besides the transfers (deepspeed/runtime/pipe/engine.py and runtime/
 * utils.py PartitionedTensor, v0.9.5). With tp > 1 a stage's output is sent
 * split over the tp ranks (is_pipe_partitioned = is_model_parallel) and put
 * back together by PartitionedTensor.full(): torch.zeros of the whole
 * tensor, an all_gather over the tp group, .clone() of the result. A forward
 * that received an activation gathers it (_exec_forward_pass); a backward
 * whose stage sent one gathers its output and the received gradient again
 * (_exec_backward_pass: two full() calls). Copies, in bytes of the whole
 * activation F and of one tp part P = F / tp: the received buffer and the
 * forward's input are cloned (_exec_recv_activations, _exec_forward_pass:
 * 2 P each, 2 F each without tp), full() writes 3 F and copies its part in
 * (2 P), a sent output or input gradient is split off by narrow().clone()
 * (2 P). Issued after the pass's compute like its other blocking tp
 * collectives: a pass's length, not its order, is what the pipeline sees. */
static void ds_pass_extras(struct lower *lw, struct sim_slot sl) {
  if (!sim_p2p_serial(lw))
    return;
  bool fwd = sl.pass == PL_PASS_FWD, first = lw->stage == 0, last = lw->stage == lw->pp - 1;
  bool part = lw->l->tp > 1;
  double P = lw->act_bytes, F = P * (double)lw->l->tp, bytes = 0;
  int64_t gathers = 0;
  if (fwd && !first) { /* received: clone, input clone, full() */
    bytes += part ? 2 * P + 2 * P + 3 * F + 2 * P : 2 * F + 2 * F;
    gathers += part ? 1 : 0;
  }
  if (fwd && !last && part) /* output split off */
    bytes += 2 * P;
  if (!fwd && !last && part) { /* output and gradient rebuilt: two full() */
    bytes += 2 * (3 * F + 2 * P);
    gathers += 2;
  }
  if (!fwd && !first && part) /* input gradient split off */
    bytes += 2 * P;
  pass_gathers(lw, fwd, gathers, bytes);
}

/* layout.p2p_scatter_gather: Megatron-LM's scatter/gather of pipeline
 * tensors (megatron/p2p_communication.py _communicate, v2.1 to v3.0; on by
 * default since commit 72e4230 of February 2021; skipped with
 * --sequence-parallel since cfd2e21 of April 2022, where the tensor is already
 * split along the sequence). The sender passes a view of its 1/tp part
 * (mpu.split_tensor_into_1d_equal_chunks: no copy) and the receiver puts the
 * whole tensor back with mpu.gather_split_1d_tensor: torch.distributed.
 * all_gather over the tp group into a list of tp chunks, which c10d's
 * ProcessGroupNCCL::allgather does into a flat buffer and then copies into the
 * list (read and write of the whole tensor F: 2 F bytes). Every received
 * tensor is gathered: a forward's activation (every virtual stage but the
 * first) and a backward's gradient (every virtual stage but the last). Charged
 * after the pass like ds_pass_extras: a pass's length, not its order, is what
 * the pipeline sees. DeepSpeed's engine (p2p_serial) has its own gathers. */
static bool sg_on(const struct lower *lw) {
  const struct pl_layout *l = lw->l;
  const struct pl_model *md = &lw->st->run->model;
  /* _communicate sends the whole tensor when tp does not divide its size */
  bool even = ((int64_t)l->mbs * (l->seq / l->cp) * md->hidden) % l->tp == 0;
  return l->p2p_scatter_gather && lw->pp > 1 && l->tp > 1 && !l->sp && even && !sim_p2p_serial(lw);
}

static void sg_pass_extras(struct lower *lw, struct sim_slot sl, int64_t v) {
  if (!sg_on(lw))
    return;
  bool fwd = sl.pass == PL_PASS_FWD;
  bool received = fwd ? v > 0 : v < lw->V - 1;
  if (received)
    pass_gathers(lw, fwd, 1, 2.0 * lw->act_bytes * (double)lw->l->tp);
}

/* What the framework does after a pass besides its compute: DeepSpeed's
 * partitioned-tensor gathers and copies, Megatron-LM's scatter/gather. */
void sim_p2p_pass_extras(struct lower *lw, struct sim_slot sl, int64_t v) {
  ds_pass_extras(lw, sl);
  sg_pass_extras(lw, sl, v);
}

/* Whether a stage boundary's tensor goes out as 1/tp per rank with a tp
 * all_gather to rebuild it (setup_colls: part_ag_coll); sequence parallelism
 * splits it too, with nothing to rebuild. */
bool sim_p2p_split(const struct lower *lw) {
  return sg_on(lw) || (sim_p2p_serial(lw) && lw->l->tp > 1);
}

/* The stage's next pass after slot i in the same direction (forward after a
 * forward, backward after a backward), or -1. */
static int32_t next_same_pass(const struct sim_slot *sl, int32_t n, int32_t i) {
  for (int32_t j = i + 1; j < n; j++)
    if (sl[j].pass == sl[i].pass)
      return j;
  return -1;
}

/* The receive a transfer needs is on the GPU only once the receiver's work
 * issued before it has run: PyTorch's ProcessGroupNCCL::pointToPoint makes the
 * pair's NCCL stream wait on the current stream first (syncStreams, "[Sync
 * Streams]": communications "cannot start before pending input tensor ops on
 * current streams finish"; pytorch/pytorch 0007e752, ProcessGroupNCCL.cpp, the
 * path whose "TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for
 * point-to-point collectives" warning Supermicro's v4.0 GPT-3 log prints), and
 * an NCCL send of this size completes only against a running receive. Under
 * overlap_p2p Megatron-Core posts the receive for a stage's next forward right
 * after its forward (send_forward_recv_forward) and for its next backward
 * right after its backward (send_backward_recv_backward; core_v0.7.0
 * schedules.py forward_backward_pipelining_with_interleaving): the transfer
 * into pass (to, mb, pass) starts after the receiver's previous pass of that
 * direction. The first pass of a direction has its receive posted before any
 * (the recv_forward before the warm-up, the last warm-up iteration's recv_next):
 * no edge. */
static void receiver_posted(struct lower *lw, int64_t to, int64_t mb, int pass, int32_t t) {
  int64_t r = to % lw->pp;
  const struct sim_slot *sl = &lw->slots[r * lw->per_stage];
  for (int32_t j = lw->slot_pos[pass_index(lw, to, mb, pass)] - 1; j >= 0; j--) {
    if (sl[j].pass != pass)
      continue;
    const int32_t *e = &lw->ends[pass_index(lw, sl[j].chunk * lw->pp + r, sl[j].mb, pass) * LOWER_ENDS];
    for (int k = 0; k < LOWER_ENDS; k++)
      dep(lw, e[k], t);
    return;
  }
}

void sim_p2p_emit_sends(struct lower *lw, int64_t s) {
  /* layout.overlap_p2p, interleaved schedule only (Megatron-LM
   * megatron/training/arguments.py forces overlap_p2p_comm off otherwise).
   * Megatron-Core's forward_backward_pipelining_with_interleaving
   * (core_v0.7.0 schedules.py; p2p_communication.py _communicate with
   * wait_on_reqs=False returns every isend/irecv request of the call, the send
   * of this pass's output among them) waits on those handles before the
   * stage's next pass of the same direction: warm-up forward k waits for
   * forward k-1's (fwd_wait_handles, l. 716-718), a steady-state forward for
   * the previous forward's and a backward for the previous backward's
   * (l. 829-831, 878-880: a pass of the other direction runs in between), and
   * the cooldown's send_backward_recv_backward blocks (no overlap_p2p_comm,
   * l. 1002-1016). So the sender goes on to the other direction's pass, and
   * its next pass of the same direction waits for the transfer. */
  bool async = lw->l->overlap_p2p && lw->l->schedule == PL_SCHEDULE_INTERLEAVED;
  lw->stage = (int32_t)s;
  const struct sim_slot *sl = &lw->slots[s * lw->per_stage];
  steady_range(lw, sl, lw->n_slots[s]);
  for (int32_t i = 0; i < lw->n_slots[s]; i++) {
    int64_t v = (int64_t)sl[i].chunk * lw->pp + s;
    bool fwd = sl[i].pass == PL_PASS_FWD;
    lw->cur_steady = i >= lw->steady_lo && i < lw->steady_hi;
    int64_t to = fwd ? v + 1 : v - 1;
    if (to < 0 || to >= lw->V)
      continue;
    int32_t t = coll_task(lw, fwd ? PL_STREAM_PP_FWD : PL_STREAM_PP_BWD, lw->pp_coll, 1);
    if (t == SIM_NONE)
      continue;
    lw->st->meta[t].peer = (int32_t)(to % lw->pp);
    lw->st->meta[t].mb = sl[i].mb;
    lw->xfer[pass_index(lw, v, sl[i].mb, sl[i].pass)] = t;
    const int32_t *e = &lw->ends[pass_index(lw, v, sl[i].mb, sl[i].pass) * LOWER_ENDS];
    for (int k = 0; k < LOWER_ENDS; k++)
      dep(lw, e[k], t);
    dep(lw, t, lw->first[pass_index(lw, to, sl[i].mb, sl[i].pass)]);
    if (async)
      receiver_posted(lw, to, sl[i].mb, sl[i].pass, t);
    /* blocking: the sender's next pass waits for it; overlapped: its next
     * pass of the same direction */
    int32_t j = async ? next_same_pass(sl, lw->n_slots[s], i) : (i + 1 < lw->n_slots[s] ? i + 1 : -1);
    if (j >= 0)
      dep(lw, t, lw->first[pass_index(lw, sl[j].chunk * lw->pp + s, sl[j].mb, sl[j].pass)]);
  }
}

/* One item of a stage's sequence: a pass (first task, ends) or a transfer. */
struct p2p_item {
  int32_t first;
  const int32_t *ends; /* LOWER_ENDS ids, or NULL for a transfer */
  int32_t task;        /* the transfer */
};

static void p2p_link(struct lower *lw, const struct p2p_item *a, const struct p2p_item *b) {
  int32_t to = b->ends != NULL ? b->first : b->task;
  if (a->ends != NULL) {
    for (int k = 0; k < LOWER_ENDS; k++)
      dep(lw, a->ends[k], to);
  } else {
    dep(lw, a->task, to);
  }
}

/* TrainSchedule._step_to_micro_batch: the micro-batch stage s runs at a step
 * of the schedule's 2 (m + pp - 1), and whether it is a forward. */
static int64_t ds_step_mb(int64_t step, int64_t s, int64_t pp, bool *fwd) {
  bool even_step = step % 2 == 0, even_stage = s % 2 == 0;
  *fwd = even_step == even_stage;
  if (*fwd)
    return (even_step ? step / 2 : (step - 1) / 2) - s / 2;
  return even_step ? step / 2 - pp + (s + 1) / 2 : (step - 1) / 2 - pp + 1 + s / 2;
}

/* The transfer after pass (stage, mb, pass), or SIM_NONE. */
static int32_t ds_xfer(const struct lower *lw, int64_t stage, int64_t mb, int pass) {
  if (stage < 0 || stage >= lw->pp || mb < 0 || mb >= lw->m)
    return SIM_NONE;
  return lw->xfer[pass_index(lw, stage, mb, pass)];
}

/* Stage s's instructions in TrainSchedule.steps' order (its exchange
 * commands, then its pass), each waiting for the one before. */
void sim_p2p_emit_serial(struct lower *lw, int64_t s) {
  struct p2p_item prev = {SIM_NONE, NULL, SIM_NONE};
  bool have = false;
  int64_t prev_mb = -1, steps = 2 * (lw->m + lw->pp - 1);
  for (int64_t step = 0; step < steps; step++) {
    bool fwd;
    int64_t mb = ds_step_mb(step, s, lw->pp, &fwd);
    bool valid = mb >= 0 && mb < lw->m, prev_valid = prev_mb >= 0 && prev_mb < lw->m;
    struct p2p_item seq[3];
    int n = 0;
    int32_t x[2] = {SIM_NONE, SIM_NONE};
    if (fwd) { /* SendGrad(prev), RecvActivation(mb) */
      x[0] = prev_valid && s > 0 ? ds_xfer(lw, s, prev_mb, PL_PASS_BWD) : SIM_NONE;
      x[1] = valid && s > 0 ? ds_xfer(lw, s - 1, mb, PL_PASS_FWD) : SIM_NONE;
    } else { /* RecvGrad(mb), SendActivation(prev) */
      x[0] = valid && s < lw->pp - 1 ? ds_xfer(lw, s + 1, mb, PL_PASS_BWD) : SIM_NONE;
      x[1] = prev_valid && s < lw->pp - 1 ? ds_xfer(lw, s, prev_mb, PL_PASS_FWD) : SIM_NONE;
    }
    for (int k = 0; k < 2; k++)
      if (x[k] != SIM_NONE)
        seq[n++] = (struct p2p_item){SIM_NONE, NULL, x[k]};
    if (valid) {
      size_t pi = pass_index(lw, s, mb, fwd ? PL_PASS_FWD : PL_PASS_BWD);
      seq[n++] = (struct p2p_item){lw->first[pi], &lw->ends[pi * LOWER_ENDS], SIM_NONE};
    }
    for (int k = 0; k < n; k++) {
      if (have)
        p2p_link(lw, &prev, &seq[k]);
      prev = seq[k];
      have = true;
    }
    prev_mb = mb;
  }
}
