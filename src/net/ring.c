/* ring.c: NCCL's ring algorithm for all_reduce, all_gather, reduce_scatter
 * and broadcast.
 *
 * NCCL 2.28 src/graph/tuning.cc models a ring as
 *   latency = baseLat + (nsteps - nInterSteps) * intraLat + nInterSteps * interLat
 *   algbw   = busBw * nRanks / nsteps
 * with nsteps = 2(n-1) for all_reduce, n-1 for all_gather/reduce_scatter and
 * n for broadcast, and nInterSteps = 2(m-1) resp. m-1 resp. m over m nodes.
 * busBw is what one rank can push per direction. Inside a node that is the
 * NVLink bandwidth. Across nodes every ring leaves each node exactly once, so
 * a node's network carries as many bytes as one rank sends: busBw is then
 * min(NVLink per GPU, the node's NICs used by the group's ranks)
 * (docs/collectives.md, "Ring"). Protocol refinements are NCCL's: LL moves
 * half the bytes it sends (busBw x 0.5, capped by llMaxBw), LL128 120 of 128
 * (x 0.92, capped per channel), Simple all. Multi-node all_reduce with Simple
 * pays NCCL's "plateau" latency factor (1.4 on Ampere+, 1.9 before).
 * net_ring_fill_s adds the pipeline fill NCCL's model leaves out: one chunk
 * per channel (docs/collectives.md, "Pipeline fill"). */
#include "net/net_int.h"

#include <math.h>

/* The NVLink share a charged ring across nodes puts on one GPU. NCCL
 * builds each channel's ring inside a node as the search's intra order:
 * its first GPU receives from the previous node and its last sends to the
 * next (src/graph/connect.cc ncclTopoPreset: ringRecv = ringIntra[0],
 * ringSend = ringIntra[localRanks-1], ringNext of the last = -1;
 * connectRings joins them across nodes), so a channel crosses g - 1 NVLink
 * hops per node, not g. Where every rank of the group has its own rail
 * (one NIC per GPU, e.g. DGX H100), the search's rings enter and leave the
 * node through the GPUs next to their NICs and the channels spread those
 * ends over all g GPUs: each GPU sends (and receives) over NVLink in
 * (g-1)/g of the channels, so its NVLink bounds the ring's busBw at
 * B x g/(g-1). Fewer rails than ranks: the ranks without a rail carry every
 * channel, B. The tuner's ranking keeps NCCL's view (!x->charge).
 * Evidence, not a fit: the 2-node NCCL_ALGO=Ring log (24 channels) reaches
 * 392.7 GB/s busBw at 8 GiB, above NCCL's 370.8 GB/s NVLink figure, which
 * the one-node H100 ring log meets (368.0 GB/s; docs/collectives.md,
 * "Session 21 (coll21)"). */
static double ring_nvlink_share(const struct net_ctx *x) {
  if (!x->charge || x->m < 2 || x->g < 2 || x->heads < (double)x->g)
    return 1.0;
  return (double)x->g / (double)(x->g - 1);
}

static double ring_bus_bw(const struct net_ctx *x, enum pl_coll_proto p) {
  double bw;
  if (x->m == 1)
    bw = net_intra_bw(x);
  else if (!x->charge && x->m > 2 && x->search_bw > 0.0)
    /* NCCL ranks rings on more than two nodes with the network search's
     * graph, nChannels x bwInter (ncclTopoTuneModel: "nNodes <= 2 ?
     * bwIntra : bwInter"); DGX H100: 8 rings of 48 GB/s = 384 GB/s */
    bw = x->search_bw;
  else if (x->g == 1)
    bw = net_node_bw(x);
  else
    bw = fmin(net_intra_bw(x) * ring_nvlink_share(x), net_node_bw(x));
  if (p == PL_PROTO_LL)
    return fmin(net_ll_max_bw(x), bw * 0.5);
  if (p == PL_PROTO_LL128)
    return fmin(bw * 0.92, net_ring_ll128_cap(x));
  return bw;
}

static int64_t ring_steps(enum pl_coll_op op, int64_t k) {
  switch (op) {
  case PL_COLL_ALL_REDUCE: return 2 * (k - 1);
  case PL_COLL_ALL_GATHER:
  case PL_COLL_REDUCE_SCATTER: return k - 1;
  default: return k;
  }
}

/* NCCL's network hop latency for a ring step: the Ring row, but "with
 * ppn=1 latencies are fully exposed, use the Tree network latency" (NCCL
 * 2.26-2.29 src/graph/tuning.cc ncclTopoTuneModel). */
static double ring_net_hop_s(const struct net_ctx *x, enum pl_coll_proto p) {
  return net_hop_lat_s(x, NET_HW_NET, x->g == 1 ? NET_T_TREE : NET_T_RING, p);
}

/* NCCL's multi-node ring "plateau" latency factor (ncclTopoGetAlgoTime),
 * applied once a rank's share of a channel reaches 64 bytes. */
static double ring_plateau(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  bool plateau = p == PL_PROTO_SIMPLE && x->m > 1 && x->op == PL_COLL_ALL_REDUCE &&
                 bytes / (x->channels * (double)x->n) >= 64.0;
  return plateau ? (x->arch < NET_ARCH_AMPERE ? 1.9 : 1.4) : 1.0;
}

/* Latency of NCCL's model (the tuner ranks on it). */
static double ring_latency(const struct net_ctx *x, enum pl_coll_proto p, int64_t nsteps,
                           double bytes) {
  double lat = net_base_lat_s(NET_T_RING, p);
  enum net_hw hw = x->m > 1 ? NET_HW_NET : x->intra_hw;
  if (x->op == PL_COLL_BROADCAST) {
    /* Rings not sharing channels: every step pays a hop, Simple at the
     * Tree/Simple chunk latency ("waiting for proper chunk modeling"). */
    enum net_talgo a = p == PL_PROTO_SIMPLE ? NET_T_TREE : NET_T_RING;
    return lat + (double)nsteps * net_hop_lat_s(x, hw, a, p);
  }
  int64_t inter = x->m == 1 ? 0 : ring_steps(x->op, x->m);
  double intra_lat = net_hop_lat_s(x, x->intra_hw, NET_T_RING, p);
  if (x->m > 1) /* inter-node rings still launch nsteps network posts */
    intra_lat = fmax(intra_lat, x->net_overhead_s * (p == PL_PROTO_SIMPLE ? 3.0 : 1.0));
  lat += (double)(nsteps - inter) * intra_lat + (double)inter * ring_net_hop_s(x, p);
  return lat * ring_plateau(x, p, bytes);
}

/* The part of a Simple step's hop that the ring does not hide
 * (docs/collectives.md, "Simple steps in slices"; session 8). A Simple ring
 * moves each chunk as chunkSteps / sliceSteps = 2 slices
 * (ALLREDUCE_CHUNKSTEPS = ALLGATHER_CHUNKSTEPS = NCCL_STEPS/2,
 * ALLREDUCE_SLICESTEPS = ALLGATHER_SLICESTEPS = REDUCESCATTER_SLICESTEPS =
 * NCCL_STEPS/4, src/include/collectives.h, NCCL 2.18-2.29), and the
 * primitives wait for and signal each slice on its own (src/device/
 * prims_simple.h genericOp: waitPeer, then postPeer, per slice; a short
 * chunk's slice is half of it), so the next rank starts
 * forwarding the first slice while the second is still in flight: a
 * step's hop overlaps the transfer of one slice, and only hop - slice time
 * is exposed. The chunk is NCCL's (calcCollChunking: stepSize x chunkSteps,
 * the call's per-channel, per-rank share when one loop covers it), moved at
 * the channel's share of busBw. Large calls (full 2 MiB chunks: 1 MiB
 * slices, ~50 us on a 20 GB/s channel) hide the hop entirely; small ones
 * pay it whole, as before. */
static double ring_simple_exposed_s(const struct net_ctx *x, double hop_s, double bytes) {
  double nc = x->fill_channels > 0.0 ? x->fill_channels : x->channels;
  double chunk = fmin(net_ring_chunk_bytes(x, PL_PROTO_SIMPLE), bytes / (nc * (double)x->n));
  double slice_s = 0.5 * chunk * nc / ring_bus_bw(x, PL_PROTO_SIMPLE);
  return fmax(0.0, hop_s - slice_s);
}

/* The wire time of one step's network message (docs/collectives.md,
 * "Session 24 (ring24)"). Across nodes an LL/LL128 step leaves as one
 * message, store and forward: the GPU writes the whole step, then posts the
 * connection's tail (NCCL v2.28.3-1 src/device/prims_ll128.h GenericOp ->
 * postSend), and the proxy posts the step's isend only once that tail has
 * passed it (src/transport/net.cc sendProxyProgress, "*recvTail > tail"; LL
 * checks every line's flag instead). The line flags let the receiver start on
 * the first line that lands, but not before the sender's message has left,
 * so a step whose hop is exposed (every step, ring_net_charged_s) also waits
 * for its own message on the wire: the step's share of one channel
 * (calcCollChunking: at most the chunk, the call's per-channel, per-rank
 * share when one loop covers it) in LL128 lines (16 words carry 15,
 * NCCL_LL128_LINEELEMS / NCCL_LL128_DATAELEMS) or LL lines (8 bytes of data
 * in 16), at one rail's rate. The transfer bound stays beside it: where
 * several channels share a rail, a channel's share of the rail is slower
 * than its message and the call stays on its transfer. */
static double ring_msg_wire_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (!(x->rail_bw > 0.0))
    return 0.0;
  double nc = x->fill_channels > 0.0 ? x->fill_channels : x->channels;
  double c = fmin(net_ring_chunk_bytes(x, p), bytes / (nc * (double)x->n));
  double wire = p == PL_PROTO_LL ? 2.0 * c : c * 16.0 / 15.0;
  return wire / x->rail_bw;
}

/* The charged time of a ring that crosses nodes (docs/collectives.md,
 * "Ring steps across nodes"). Every step of a ring waits on the slowest
 * link: "if you have a mix of intra-node and inter-node, what matters is
 * the max latency and that's usually the network latency" (S. Jeaugey,
 * NCCL maintainer, on the ring latency 2(n-1) x latency, NVIDIA/nccl-tests
 * issue #123), so each of the nsteps steps costs the larger of the NVLink
 * hop and the network hop, the network hop as NCCL gives it where it is
 * not hidden ("with ppn=1 latencies are fully exposed, use the Tree network
 * latency", tuning.cc: hwLat[NET][TREE] 5.0 / 8.5 / 14 us for LL / LL128 /
 * Simple). LL and LL128 carry a flag in every 8-byte or 128-byte line, so a
 * receiver forwards lines as they arrive ("the flag comes along with the
 * data ... when we see the flag, the data is valid", S. Jeaugey, NVIDIA/
 * nccl issue #281): the steps' latency and the transfer overlap and the
 * call costs the larger of the two. Simple signals a step once its data is
 * written (a fence, then the flag), so latency and transfer add, as in
 * NCCL's model, less what the second slice of each chunk hides
 * (ring_simple_exposed_s). */
static double ring_net_charged_s(const struct net_ctx *x, enum pl_coll_proto p, int64_t nsteps,
                                 double bytes, double algbw) {
  double intra_lat = net_hop_lat_s(x, x->intra_hw, NET_T_RING, p);
  intra_lat = fmax(intra_lat, x->net_overhead_s * (p == PL_PROTO_SIMPLE ? 3.0 : 1.0));
  double step = fmax(intra_lat, net_hop_lat_s(x, NET_HW_NET, NET_T_TREE, p));
  double base = net_base_lat_s(NET_T_RING, p);
  /* the proxy thread's messages bound the call beside both (proxy_msg.c) */
  double proxy_s = net_proxy_ring_s(x, p, nsteps, bytes, bytes / algbw);
  if (p == PL_PROTO_SIMPLE)
    return fmax(base + (double)nsteps * ring_simple_exposed_s(x, step * ring_plateau(x, p, bytes),
                                                              bytes) + bytes / algbw,
                base + proxy_s);
  double steps_s = (double)nsteps * (step + ring_msg_wire_s(x, p, bytes)) * ring_plateau(x, p, bytes);
  return base + fmax(fmax(steps_s, bytes / algbw), proxy_s);
}

/* Pipeline fill (docs/collectives.md, "Pipeline fill"): one chunk per
 * channel, at the channel's share of busBw, once a step forwards what the
 * previous step received (nsteps >= 2). The chunk is NCCL's
 * (calcCollChunking: stepSize x chunkSteps, cut to the call's per-channel,
 * per-rank share when one loop covers the call), so the term grows with the
 * message until the chunk reaches its maximum: on one loop it is one more
 * step, S / (n busBw). */
double net_ring_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (ring_steps(x->op, x->n) < 2)
    return 0.0;
  double nc = x->fill_channels;
  double chunk = fmin(net_ring_chunk_bytes(x, p), bytes / (nc * (double)x->n));
  return chunk * nc / ring_bus_bw(x, p);
}

double net_ring_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (x->op == PL_COLL_ALL_TO_ALL || x->op == PL_COLL_SEND_RECV)
    return -1.0;
  if (p == PL_PROTO_LL128 && !x->ll128)
    return -1.0;
  int64_t nsteps = ring_steps(x->op, x->n);
  double algbw = ring_bus_bw(x, p) * (double)x->n / (double)nsteps;
  if (x->charge && x->m > 1 && x->op != PL_COLL_BROADCAST)
    return ring_net_charged_s(x, p, nsteps, bytes, algbw);
  return ring_latency(x, p, nsteps, bytes) + bytes / algbw;
}
