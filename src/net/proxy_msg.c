/* proxy_msg.c: the host-side cost of the network messages of a ring call,
 * a bound NCCL's own model does not have (docs/collectives.md, "Session 8
 * (polaris8)").
 *
 * Every network message of a collective goes through NCCL's proxy: one
 * progress thread per GPU (NCCL 2.21.5 src/proxy.cc, ncclProxyProgress ->
 * progressOps) walks its ops and, for each channel (the op's subs), posts
 * the step's message and polls its completion through the net plugin
 * (src/transport/net.cc sendProxyProgress / recvProxyProgress:
 * ncclNet->isend / irecv / test). The thread does this for one message after
 * another, so a ring call cannot end before that thread has handled all its
 * messages: nsteps ring steps x the messages of one step. Per step and
 * channel NCCL moves one message per loop for LL and LL128 (their proxy
 * sliceSteps = chunkSteps = 1) and, for Simple, chunkSteps / sliceSteps =
 * ALLREDUCE/ALLGATHER/REDUCESCATTER_CHUNKSTEPS (NCCL_STEPS/2) /
 * _SLICESTEPS (NCCL_STEPS/4) = 2 per loop (src/include/collectives.h; the
 * proxy op's nsteps = nstepsPerLoop x nLoops x chunkSteps, one message per
 * sliceSteps, src/enqueue.cc computeColl; an empty slice still posts its
 * step, src/device/prims_simple.h genericOp -> postPeer). Loops: the call's
 * share of a channel and rank over the protocol's chunk
 * (net_ring_chunk_bytes). The nc channels of a step are handled by the same
 * thread (the rings of one node enter and leave through the GPUs next to
 * its NICs), so one step costs nc x loops x (1 or 2) messages.
 *
 * What one message costs is the fabric's host software path (NCCL's proxy,
 * the plugin, the provider: with libfabric CXI's
 * FI_CXI_RX_MATCH_MODE=software "message matching is fully onloaded" to the
 * host, fi_cxi(7)); no vendor publishes it for NCCL's path, so presets carry
 * 0 (the bound is off), except alcf-polaris, which carries the published time
 * of one small message host to host (half a Polaris Margo round trip over
 * CXI, 2.86 us; session 12; below the 4.9 us its >= 1 MiB logs fit);
 * `plateau calibrate nccl` fits it where the logs constrain it
 * (inter.message_overhead). A message involves one sender and one receiver
 * whatever the node count (a ring step talks to one neighbour per channel),
 * so a figure fitted on 2 nodes holds on any node count.
 *
 * The bound runs beside NCCL's latency and transfer terms, not on top of
 * them: the thread posts the next message while the NIC moves the previous
 * one (up to NCCL_STEPS in flight), so the call takes the larger of the two. */
#include "net/net_int.h"

#include <math.h>

double net_proxy_msgs_per_step(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  double nc = x->nc > 0.0 ? x->nc : 1.0;
  double share = bytes / (nc * (double)x->n); /* one rank's share of one channel */
  double loops = fmax(1.0, ceil(share / net_ring_chunk_bytes(x, p)));
  return nc * loops * (p == PL_PROTO_SIMPLE ? 2.0 : 1.0);
}

double net_proxy_ring_s(const struct net_ctx *x, enum pl_coll_proto p, int64_t nsteps,
                        double bytes) {
  double msg_s = x->c->inter_msg_s;
  if (!(msg_s > 0.0) || !x->charge || x->m < 2)
    return 0.0;
  return (double)nsteps * net_proxy_msgs_per_step(x, p, bytes) * msg_s;
}
