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
 * one (up to NCCL_STEPS in flight), so the call takes the larger of the two.
 *
 * Each message is also one link of its own chain: the proxy posts a step's
 * message only once the GPU has written the whole step (NCCL 2.21.5
 * src/transport/net.cc sendProxyProgress, l.1088-1121: for LL every line's
 * flag1 and flag2 must carry the step's flag, for Simple the GPU's tail must
 * pass the step, before ncclNet->isend), and the next rank forwards the data
 * in its next step only once it has arrived. So across the network an LL
 * step is not forwarded line by line (the overlap of ring.c's LL steps holds
 * inside a node): one chain (channel, loop) pays its post and then the
 * transfer of its message, in series, every step. The thread serves the k
 * chains of a step in turn, so a step costs max(k x post, post + one
 * message's transfer): with one message a step (one channel, one loop: large
 * rings, e.g. 540 Polaris nodes to 16 MiB) post and transfer add; with
 * several the other chains' posts hide one message's transfer, as before.
 * One message's transfer is the step's transfer at all channels (the call's
 * xfer_s / nsteps) over the messages each channel moves a step (loops and
 * Simple's two slices). Built in session 19 (sling19) and reverted then on a
 * chain argument (a ring pays a message once per node crossing, not once per
 * step); session 23 (coll23) measured that argument false on one cluster
 * (xxrjun, 10 nodes at 4 and 8 GPUs a node: every step pays the network),
 * and session 24's store-and-forward step (ring.c ring_msg_wire_s, the same
 * net.cc premise) is landed for NCCL's own terms, so the proxy bound now
 * follows it (session 25, coll25). docs/collectives.md, "Session 19
 * (sling19)" and "Session 25 (coll25)". */
#include "net/net_int.h"

#include <math.h>

double net_proxy_msgs_per_step(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  double nc = x->nc > 0.0 ? x->nc : 1.0;
  double share = bytes / (nc * (double)x->n); /* one rank's share of one channel */
  double loops = fmax(1.0, ceil(share / net_ring_chunk_bytes(x, p)));
  return nc * loops * (p == PL_PROTO_SIMPLE ? 2.0 : 1.0);
}

double net_proxy_ring_s(const struct net_ctx *x, enum pl_coll_proto p, int64_t nsteps, double bytes,
                        double xfer_s) {
  double msg_s = x->c->inter_msg_s;
  if (!(msg_s > 0.0) || !x->charge || x->m < 2 || nsteps < 1)
    return 0.0;
  double k = net_proxy_msgs_per_step(x, p, bytes);
  double nc = x->nc > 0.0 ? x->nc : 1.0;
  double one_msg_s = xfer_s > 0.0 ? xfer_s / (double)nsteps * nc / k : 0.0;
  return (double)nsteps * fmax(k * msg_s, msg_s + one_msg_s);
}
