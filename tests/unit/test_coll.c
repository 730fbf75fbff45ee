/* test_coll.c: the collective cost model against hand-derived values of
 * NCCL 2.28's formulas (src/graph/tuning.cc; derivations in
 * docs/collectives.md) on the dgx-h100 preset: NVLink 18 x 20.6 GB/s =
 * 370.8 GB/s per GPU, 8 x 400 Gb/s = 400 GB/s per node, NVLink hop 3.4 us,
 * network hop 14 us, Intel host (1 us network post), 24 channels on one
 * node and 16 across nodes (docs/collectives.md, "Channels on the
 * network"); and one
 * dgx-a100 node (a100_one_node).
 * Pipeline fill (docs/collectives.md, "Pipeline fill") is added where it
 * applies, each term derived beside its check. */
#define MIB 1048576.0
#include <plateau/plateau.h>

#include "check.h"

#define GB 1e9
#define US 1e-6
#define GIB 1073741824.0

static struct pl_cluster h100;

static double t_of(enum pl_coll_op op, double bytes, int64_t n, int64_t per_node,
                   enum pl_coll_algo algo, enum pl_coll_proto proto) {
  struct pl_coll_cost c = {0};
  struct pl_group g = {n, per_node};
  enum pl_status st = pl_coll_time_proto(&h100, op, bytes, g, algo, proto, &c);
  CHECK_EQ_INT(st, PL_OK);
  return c.time_s;
}

static void ring_one_node(void) {
  /* all_gather, 8 GiB, 8 ranks: busBw 370.8 GB/s, algbw = busBw * 8/7,
   * latency = base 8.4 + 7 steps x 3.4 = 32.2 us. Fill: 8 GiB / (24 x 8)
   * is past the 2 MiB Simple chunk, so one 2 MiB chunk on each of 24
   * channels at 370.8 GB/s = 135.7 us. */
  double t = t_of(PL_COLL_ALL_GATHER, 8 * GIB, 8, 8, PL_ALGO_RING, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 32.2 * US + 8 * GIB * 7.0 / (8.0 * 370.8 * GB) + 2 * MIB * 24 / (370.8 * GB),
                 1e-9);
  /* LL on all_reduce: busBw = min(llMaxBw Hopper 1 node 141, 370.8 x 0.5) = 141 GB/s;
   * algbw = 141 x 8/14; latency 6.6 + 14 x 0.6 = 15 us. 1 MiB. Fill: the
   * share 1 MiB / (24 x 8) is under the 32 KiB LL chunk, so one more step,
   * 1 MiB / (8 x 141 GB/s). */
  t = t_of(PL_COLL_ALL_REDUCE, 1048576, 8, 8, PL_ALGO_RING, PL_PROTO_LL);
  CHECK_NEAR_REL(t, 15.0 * US + 1048576.0 * 15.0 / (8.0 * 141.0 * GB), 1e-9);
  /* LL128: busBw = 0.92 x 370.8 (the 24 x 36.7 cap does not bind);
   * latency 14 + 14 x 1.9 = 40.6 us. 64 MiB; share 341 KiB < 576,000 B
   * LL128 chunk: fill one more step (15 steps' worth of 64 MiB / 8). */
  t = t_of(PL_COLL_ALL_REDUCE, 64 * 1048576.0, 8, 8, PL_ALGO_RING, PL_PROTO_LL128);
  CHECK_NEAR_REL(t, 40.6 * US + 64 * 1048576.0 * 15.0 / (8.0 * 0.92 * 370.8 * GB), 1e-9);
}

static void ring_two_nodes(void) {
  /* all_reduce, 16 ranks over 2 nodes, Simple, 1 GiB: busBw = min(370.8, 400).
   * Charged latency (docs/collectives.md, "Ring steps across nodes"): every
   * one of the 30 steps waits on the network hop, NCCL's exposed one
   * (hwLat[NET][Tree][Simple] 14 us > NVLink 3.4, > 3 x 1.0 us post), times
   * NCCL's multi-node plateau factor 1.4: 19.6 us a step (NCCL's own model,
   * which the tuner ranks on: (8.4 + 28 x 3.4 + 2 x 14) x 1.4 = 184.24 us).
   * Of that hop a Simple step exposes only what one slice's transfer does not
   * hide ("Simple steps in slices", session 8): a chunk is 2 slices
   * (CHUNKSTEPS / SLICESTEPS, src/include/collectives.h).
   * Charged on the network channels (docs/collectives.md, "Channels on the
   * network"): 8 NICs of 50 GB/s give 8 rings of 48 GB/s, not duplicated,
   * 16 channels; 1 GiB keeps all 16 (>= 16 x 512 x 64 B); each drives 0.4
   * of its 50 GB/s NIC: min(400, 16 x 0.4 x 50) = 320 GB/s, below NVLink.
   * Chunk: 1 GiB / (16 x 16) > 2 MiB, so 2 MiB: a 1 MiB slice at 20 GB/s a
   * channel is 52.4 us > 19.6 us, the hop is hidden: latency = base 8.4 us.
   * Fill: 16 x 2 MiB at 320 GB/s. */
  double t = t_of(PL_COLL_ALL_REDUCE, GIB, 16, 8, PL_ALGO_RING, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 8.4 * US + GIB * 30.0 / (16.0 * 320 * GB) + 2 * MIB * 16 / (320 * GB),
                 1e-9);
  /* 64 MiB: chunk 64 MiB / (16 x 16) = 256 KiB, slice 128 KiB at 20 GB/s =
   * 6.5536 us; each of the 30 steps exposes 19.6 - 6.5536 = 13.0464 us:
   * 8.4 + 391.392 us; fill 16 x 256 KiB at 320 GB/s. (The old charge,
   * every step at 19.6 us, gave 8.4 + 588 us.) */
  t = t_of(PL_COLL_ALL_REDUCE, 64 * MIB, 16, 8, PL_ALGO_RING, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (8.4 + 391.392) * US + 64 * MIB * 30.0 / (16.0 * 320 * GB) +
                        256.0 * 1024 * 16 / (320 * GB),
                 1e-9);
  /* One rank per node (a dp group strided over tp = 8): 4 ranks on 4 nodes
   * use one 50 GB/s NIC each; all_gather 3 steps, all inter-node, at 14 us.
   * Channels: one ring of 48 GB/s, duplicated to
   * 2 of 24 (ncclTopoDupChannels: <= 4 rings), doubled to 4: 4 x 0.4 x 50
   * = 80 GB/s > the NIC's 50. Chunk 2 MiB: a 1 MiB slice at 12.5 GB/s a
   * channel (83.9 us) hides the 14 us hop: latency 8.4 us. Fill: 2 MiB on
   * each of the 4 channels at 50 GB/s = 167.8 us. */
  t = t_of(PL_COLL_ALL_GATHER, GIB, 4, 1, PL_ALGO_RING, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 8.4 * US + GIB * 3.0 / (4.0 * 50 * GB) + 2 * MIB * 4 / (50 * GB), 1e-9);
  /* Two ranks: one step (hidden the same way), nothing forwarded, no fill. */
  t = t_of(PL_COLL_ALL_GATHER, GIB, 2, 1, PL_ALGO_RING, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 8.4 * US + GIB / (2.0 * 50 * GB), 1e-9);
}

/* A ring across nodes crosses g - 1 NVLink hops per node and channel: the
 * node's first GPU of a channel's ring receives from the network and its
 * last sends to it (NCCL src/graph/connect.cc ncclTopoPreset, ringRecv =
 * ringIntra[0], ringSend = ringIntra[localRanks-1]); with one NIC per GPU
 * the channels' ends spread over all 8 GPUs, so each GPU's NVLink carries
 * 7/8 of the ring and bounds busBw at 370.8 x 8/7 = 423.77 GB/s
 * (ring.c ring_nvlink_share; docs/collectives.md, "Session 21 (coll21)").
 * 2 nodes x 8, NCCL_MIN_CTAS=24 (the gj-aion NCCL_ALGO=Ring log), all_reduce
 * Simple 1 GiB: 24 channels drive min(400, 24 x 0.4 x 50 = 480) = 400 GB/s
 * of NICs, which now bind (370.8, NVLink, before). Chunk 2 MiB (1 GiB /
 * (24 x 16) is larger): a 1 MiB slice at 400 / 24 GB/s a channel (62.9 us)
 * hides the 19.6 us hop, latency = base 8.4 us; fill 24 x 2 MiB at 400. */
static void ring_nvlink_share(void) {
  struct pl_cluster ctas = h100;
  ctas.nccl_min_channels = 24;
  struct pl_group g16 = {16, 8};
  struct pl_coll_cost c;
  CHECK_EQ_INT(pl_coll_time_proto(&ctas, PL_COLL_ALL_REDUCE, GIB, g16, PL_ALGO_RING,
                                  PL_PROTO_SIMPLE, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, 8.4 * US + GIB * 30.0 / (16.0 * 400 * GB) + 2 * MIB * 24 / (400 * GB),
                 1e-9);
  /* Four NICs of 100 GB/s for the 8 GPUs (the same 400 GB/s a node): four
   * ranks have no rail of their own and forward every channel over NVLink,
   * so 370.8 binds as before (slice 1 MiB at 370.8 / 24 GB/s still hides
   * the hop). */
  struct pl_cluster four = ctas;
  four.nics_per_node = 4;
  four.nic_bytes_per_s *= 2.0;
  CHECK_EQ_INT(pl_coll_time_proto(&four, PL_COLL_ALL_REDUCE, GIB, g16, PL_ALGO_RING,
                                  PL_PROTO_SIMPLE, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s,
                 8.4 * US + GIB * 30.0 / (16.0 * 370.8 * GB) + 2 * MIB * 24 / (370.8 * GB), 1e-9);
}

/* Every step of a ring across nodes pays the network hop, whatever share of
 * its steps cross NVLink (docs/collectives.md, "Ring steps across nodes";
 * checked in "Session 23 (coll23)"): the xxrjun run (10 nodes, NCCL 2.29.2,
 * all_gather 32 MiB, ring/LL128) costs 347.3 us with 4 GPUs a node (39 steps)
 * and 672.0 us with 8 (79 steps), 8.5 and 8.3 us a step after the 14 us
 * base; the ring chain (one network edge every g steps, NCCL's own latency
 * form) would give the 4-GPU run 14.8 us a step (+70 %), and NCCL's ppn > 1 Ring network row
 * (4.0 us LL128) 4.0 us a step. This pins the charge: each step at
 * max(NVLink LL128 hop 1.9, 1 us post, hwLat[NET][Tree][LL128] 8.5) = 8.5 us,
 * base 14 us, with g = 4 and g = 8 alike.
 * g = 4 (40 ranks): the group's 4 rails give 4 rings of 48 GB/s, duplicated
 * to 8 (<= 4 rings), 16 channels (tuner.c group_net_channels); each rank
 * drives its own 50 GB/s NIC: node 200 GB/s < 16 x 0.4 x 50 = 320 and
 * < 370.8 x 4/3, so busBw 200, LL128 0.92 x 200 = 184 (cap 8 x 36.7 = 293.6
 * does not bind); transfer 32 MiB x 39/40 / 184 GB/s = 177.8 us < 39 x 8.5.
 * Fill: chunk 32 MiB / (16 x 40) = 52,428.8 B on 16 channels at 184 GB/s.
 * g = 8 (80 ranks): 16 channels x 0.4 x 50 = 320 binds, LL128 min(294.4,
 * 293.6) = 293.6; 79 x 8.5 us; fill 32 MiB / (16 x 80) x 16 at 293.6 GB/s. */
static void ring_steps_every_g(void) {
  double t4 = t_of(PL_COLL_ALL_GATHER, 32 * MIB, 40, 4, PL_ALGO_RING, PL_PROTO_LL128);
  /* each step also waits for its own message on the wire (ring_msg_wire_s):
   * 52,428.8 B x 16/15 at the 50 GB/s rail = 1.1185 us; 26,214.4 B: 0.5592 us */
  CHECK_NEAR_REL(t4, (14.0 + 39 * (8.5 + 52428.8 * 16 / 15 / 50e3)) * US + 32 * MIB / 40.0 / (184 * GB), 1e-9);
  double t8 = t_of(PL_COLL_ALL_GATHER, 32 * MIB, 80, 8, PL_ALGO_RING, PL_PROTO_LL128);
  CHECK_NEAR_REL(t8, (14.0 + 79 * (8.5 + 26214.4 * 16 / 15 / 50e3)) * US + 32 * MIB / 80.0 / (293.6 * GB), 1e-9);
}

/* A ring step across nodes waits for its own network message (ring.c
 * ring_msg_wire_s; NCCL v2.28.3-1 prims_ll128.h postSend, net.cc
 * sendProxyProgress: the step's isend leaves once the GPU has written all
 * of it). 64 nodes x 8 H100 (512 ranks), all_gather 1 GiB, ring/LL128, one
 * loop (16 channels x 512 x 576,000 B = 4.7 GB > 1 GiB), so each of the 511
 * steps moves c = 1 GiB / (16 x 512) = 131,072 B a channel: 139,810.1 B in
 * LL128 lines (x 16/15) at the 50 GB/s rail = 2.7962 us on top of the 8.5 us
 * hop: 511 x 11.2962 = 5772.4 us, above the transfer (1 GiB x 511/512 /
 * 293.6 GB/s = 3650.0 us, busBw as in ring_steps_every_g); base 14 us; fill
 * 131,072 x 16 at 293.6 GB/s.
 * With NCCL_MIN_NCHANNELS=32 (nccl-tests #322's setting) four channels share
 * each rail: busBw min(8 x 50, 32 x 0.4 x 50, 370.8 x 8/7) = 400, LL128
 * min(0.92 x 400, 16 x 36.7) = 368; at 8 GiB c = 524,288 B (under the 576,000
 * chunk): 511 x (8.5 + 524,288 x 16/15 / 50e3 = 11.1848) = 10,059 us, under
 * the transfer 8 GiB x 511/512 / 368 GB/s = 23,296.5 us, which sets the time:
 * the message hides under a channel's share of its rail (fill 524,288 x 32
 * at 368 GB/s). */
static void ring_step_message_wire(void) {
  double t = t_of(PL_COLL_ALL_GATHER, GIB, 512, 8, PL_ALGO_RING, PL_PROTO_LL128);
  CHECK_NEAR_REL(t, (14.0 + 511 * (8.5 + 131072.0 * 16 / 15 / 50e3)) * US + 131072.0 * 16 / (293.6 * GB),
                 1e-9);
  struct pl_cluster c32 = h100;
  c32.nccl_min_channels = 32;
  struct pl_coll_cost c;
  struct pl_group g = {512, 8};
  CHECK_EQ_INT(pl_coll_time_proto(&c32, PL_COLL_ALL_GATHER, 8 * GIB, g, PL_ALGO_RING,
                                  PL_PROTO_LL128, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, 14.0 * US + 8 * GIB * 511.0 / 512 / (368 * GB) + 524288.0 * 32 / (368 * GB),
                 1e-9);
}

static void tree(void) {
  /* all_reduce, 4 nodes x 8, Simple, 1 GiB, charged on 16 network channels:
   * busBw = min(370.8, min(400, 16 x 0.4 x 50 = 320)) x 0.92 = 294.4, capped
   * by perChMaxTreeBw[Hopper][>= 4 nodes] = 36.0 per graph channel, 16 / 2
   * = 8 of them (two coll channels a graph channel, ncclTopoPostset): 288;
   * algbw = busBw / 2; 1 GiB is past the correction table
   * (factor 1). Latency 8.4 + 2 (7 x 4.0 + log2(4) x 14) = 120.4 us.
   * Fill: 512 KiB chunks on 16 channels (8 MiB a round) cross 2 x 7 NVLink
   * stages (370.8 GB/s) and 2 x 2 network stages (320 GB/s), each network
   * stage moving two chunks a channel (an interior node's two children,
   * 4 nodes > 2); less the slowest (a network stage, 2 x 8 MiB / 320):
   * 8 MiB x (14 / 370.8 + 3 x 2 / 320) per GB/s. */
  double fill = 8 * MIB * (14.0 / 370.8 + 3.0 * 2.0 / 320) / GB;
  double t = t_of(PL_COLL_ALL_REDUCE, GIB, 32, 8, PL_ALGO_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 120.4 * US + GIB / (0.5 * 288 * GB) + fill, 1e-9);
  /* 64 MiB: log2(64 MiB / 64) = 20, Simple correction factor 0.8; 64 MiB / 16
   * channels still fills 512 KiB chunks: same fill. */
  t = t_of(PL_COLL_ALL_REDUCE, 64 * 1048576.0, 32, 8, PL_ALGO_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 120.4 * US + 64 * 1048576.0 / (0.8 * 0.5 * 288 * GB) + fill, 1e-9);
  /* 5 nodes: the same busBw and caps (> 2 nodes) and NCCL's latency with
   * log2i(5) = 2 (120.4 us), but ncclGetBtree's tree on 5 nodes is 3 levels
   * deep (0 -> 4 -> 2 -> 1 or 3): 2 x 3 network stages, less one:
   * 8 MiB x (14 / 370.8 + 5 x 2 / 320). */
  double fill5 = 8 * MIB * (14.0 / 370.8 + 5.0 * 2.0 / 320) / GB;
  t = t_of(PL_COLL_ALL_REDUCE, GIB, 40, 8, PL_ALGO_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 120.4 * US + GIB / (0.5 * 288 * GB) + fill5, 1e-9);
  /* LL128 on 8 nodes x 8 at 4 and 1 MiB (the gj-aion 8-node log's tree rows, docs/collectives.md
   * "Session 27 (ring27)"): 16 channels (NCCL drops one only below 16 x 640 x 8 B). busBw
   * min(370.8, 320) x 0.92 = 294.4, capped at 8 graph channels x perChMaxTreeBw 36.0 = 288, then
   * LL128 min(288 x 120/128, 8 x perChMaxTreeLL128Bw 29.0 = 232) = 232; algbw 232 x 0.5 x
   * treeCorrectionFactor[LL128] (log2(4 MiB / 64) = 16: 0.8; 1 MiB, 14: 0.6). Latency 14 + 2 (7 x
   * 1.25 + log2i(8) x 8.5) = 82.5 us. The chunk (NCCL 2.26-2.29 src/enqueue.cc calcCollChunking,
   * tree LL128 branch, integer division): 576,000 B halved while S / (16 x chunk) < (1 + 3 + 0.8)
   * x 64 / 8 = 38.4 and chunk > 131,072 (-> 72,000), then while < 9.6 and chunk > 32,768 (-> 36,000
   * -> 18,000), at both sizes. Fill: 16 x 18,000 = 288,000 B through 2 x 7 NVLink stages
   * (370.8 GB/s) and 2 x 3 network stages (ncclGetBtree depth on 8 nodes) of two chunks at
   * 320 GB/s, less the slowest (a network stage). */
  double c8 = 288000.0;
  double fill8 = (2.0 * (7.0 * c8 / 370.8 + 3.0 * 2.0 * c8 / 320.0) - 2.0 * c8 / 320.0) / GB;
  t = t_of(PL_COLL_ALL_REDUCE, 4 * MIB, 64, 8, PL_ALGO_TREE, PL_PROTO_LL128);
  CHECK_NEAR_REL(t, 82.5 * US + 4 * MIB / (0.8 * 0.5 * 232 * GB) + fill8, 1e-9);
  t = t_of(PL_COLL_ALL_REDUCE, MIB, 64, 8, PL_ALGO_TREE, PL_PROTO_LL128);
  CHECK_NEAR_REL(t, 82.5 * US + MIB / (0.6 * 0.5 * 232 * GB) + fill8, 1e-9);
}

static void nvls(void) {
  /* One node: algbw = 370.8 x 0.85 (Hopper nvlsEfficiency) x 8/9, latency 25 us,
   * plus 3.4 us per chunk loop: 16 channels x 8 heads = 128 streams; 1 GiB is
   * not below 64 x 128 x 128 KiB = 1 GiB, so 128 KiB chunks, 64 loops.
   * Fill: one loop, 128 x 128 KiB = 16 MiB, at algbw. */
  double bw = 370.8 * 0.85 * 8.0 / 9.0 * GB;
  double t = t_of(PL_COLL_ALL_REDUCE, GIB, 8, 8, PL_ALGO_NVLS, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (25 + 64 * 3.4) * US + (GIB + 16 * MIB) / bw, 1e-9);
  /* 64 MiB: below 1 GiB -> 64 KiB; not below 8 x 128 x 64 KiB = 64 MiB: 64 KiB,
   * 64 MiB / (128 x 64 KiB) = 8 loops, fill 8 MiB. 8 MiB: 32 KiB (not below
   * 2 x 128 x 32 KiB = 8 MiB), 2 loops, fill 4 MiB. 4 MiB: 16 KiB, 2 loops,
   * fill 2 MiB. */
  t = t_of(PL_COLL_ALL_REDUCE, 64 * MIB, 8, 8, PL_ALGO_NVLS, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (25 + 8 * 3.4) * US + (64 + 8) * MIB / bw, 1e-9);
  t = t_of(PL_COLL_ALL_REDUCE, 8 * MIB, 8, 8, PL_ALGO_NVLS, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (25 + 2 * 3.4) * US + (8 + 4) * MIB / bw, 1e-9);
  t = t_of(PL_COLL_ALL_REDUCE, 4 * MIB, 8, 8, PL_ALGO_NVLS, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (25 + 2 * 3.4) * US + (4 + 2) * MIB / bw, 1e-9);
  /* NVLS_TREE on 2 nodes: the NVLS part moves 9/8 bytes per byte at
   * 370.8 x 0.85 = 315.18 GB/s (algbw 280.16 GB/s), the network 1 byte per
   * byte at min(400, 16 NVLS channels x 0.4 x 50 = 320) GB/s; NCCL 2.28's
   * ceiling, 8 heads x perChMaxNVLSTreeBw 57.7 = 461.6 GB/s busBw, is
   * 461.6 x 16 / 30 = 246.19 GB/s algbw and binds (with 16 NVLS channels
   * instead of the 8 heads it was 923.2 busBw and NVLS bound).
   * Latency 25 + 2 x log2(2) x 14 = 53 us.
   * Fill: 128 KiB chunks on 128 streams, a 16 MiB loop, through NVLS
   * (315.18 GB/s), one network hop up and one down (320 GB/s), NVLS: the sum
   * less the slowest stage (NVLS) = 16 MiB (1 / 315.18 + 2 / 320) per GB/s. */
  t = t_of(PL_COLL_ALL_REDUCE, GIB, 16, 8, PL_ALGO_NVLS_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 53 * US + GIB / (8 * 57.7 * 16.0 / 30.0 * GB) +
                        16 * MIB * (1 / 315.18 + 2 / 320.0) / GB, 1e-9);
  /* 4 nodes: the tree sends 2 bytes per byte per node: 2/320 GB/s bounds
   * (160 GB/s algbw; the ceiling 8 x 45.5 = 364 GB/s busBw is 364 x 32 / 62
   * = 187.9 GB/s algbw and does not bind).
   * Fill: 64 KiB chunks (>= 4 nodes), an 8 MiB loop, NVLS twice and 2 x 2
   * network hops, less one NVLS stage. */
  t = t_of(PL_COLL_ALL_REDUCE, GIB, 32, 8, PL_ALGO_NVLS_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (25 + 2 * 2 * 14) * US + GIB * 2.0 / (320 * GB) +
                        8 * MIB * (1 / 315.18 + 4 / 320.0) / GB, 1e-9);
  /* 5 nodes (session 11, coll11): the same rate (2/320 binds; the ceiling
   * 364 x 40 / 78 = 186.7 GB/s algbw does not) and NCCL's latency with
   * log2i(5) = 2, 25 + 2 x 2 x 14 = 81 us, but the NVLS trees are
   * ncclGetDtree's (src/graph/connect.cc connectNvls), whose ncclGetBtree
   * tree on 5 nodes is 3 levels deep (0 -> 4 -> 2 -> 1 or 3): the fill
   * crosses 2 x 3 network hops, less one NVLS stage (the slowest):
   * 8 MiB (1 / 315.18 + 6 / 320) per GB/s (4 / 320 with log2i). */
  t = t_of(PL_COLL_ALL_REDUCE, GIB, 40, 8, PL_ALGO_NVLS_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (25 + 2 * 2 * 14) * US + GIB * 2.0 / (320 * GB) +
                        8 * MIB * (1 / 315.18 + 6 / 320.0) / GB, 1e-9);
  /* 2 nodes x 4 ranks: 4 NVLS heads (NCCL's NVLS search finds one head per
   * GPU), so the ceiling is 4 x 57.7 = 230.8 GB/s busBw = 230.8 x 8 / 14 =
   * 131.89 GB/s algbw; it binds below the NVLS part (315.18 x 4/5 = 252.14)
   * and the network (4 ranks' own NICs, 4 x 50 = 200 GB/s; 16 channels x
   * 0.4 x 50 = 320 do not bind). With the 16 NVLS channels as the count the
   * ceiling would be 527.5 GB/s algbw and the network would bind at 200.
   * Latency 53 us. Fill: 16 x 4 = 64 streams of 128 KiB (1 GiB is not below
   * 32 x 64 x 128 KiB = 256 MiB), an 8 MiB loop: NVLS twice (315.18 GB/s)
   * and one network hop each way (200 GB/s), less the slowest (a network
   * hop): 8 MiB (2 / 315.18 + 1 / 200) per GB/s. */
  t = t_of(PL_COLL_ALL_REDUCE, GIB, 8, 4, PL_ALGO_NVLS_TREE, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 53 * US + GIB / (4 * 57.7 * 8.0 / 14.0 * GB) +
                        8 * MIB * (2 / 315.18 + 1 / 200.0) / GB, 1e-9);
  /* NCCL_MIN_CTAS=24 (the gj-aion 8-node log): 24 NVLS channels (src/
   * transport/nvls.cc nvlsChannels = max(minCTAs, min(maxCTAs, 16))), and
   * NVLS_TREE's chunk ladder counts concurrentOps = nvlsChannels x nHeads =
   * 24 x 8 = 192 (src/enqueue.cc calcCollChunking, NCCL 2.21-2.29). 8 nodes
   * x 8, 1 GiB: chunk 64 KiB (>= 4 nodes; 1 GiB is not below 32 x 192 x
   * 64 KiB), a loop of 192 x 64 KiB = 12 MiB (8 MiB with 16 x 8 ops). Rate:
   * NVLS part 280.16 GB/s algbw, network 2 bytes per byte at the share of at
   * most 16 NVLS channels (nvls_tree.c nvls_tree_net_bw, session 27: every
   * channel runs through its head's one NIC, connectNvls), min(400, 16 x
   * 0.4 x 50 = 320) = 320 GB/s, i.e. 160, which binds below the ceiling
   * 8 x 45.5 = 364 GB/s busBw = 364 x 64 / 126 = 184.89 GB/s algbw (the 24
   * channels' 480 -> 400 would leave the ceiling binding). Latency 25 + 2 x
   * 3 x 14 = 109 us. Fill: NVLS twice (315.18 GB/s) and 2 x 3 network hops
   * (320 GB/s), less the slowest (an NVLS stage): 12 MiB (1 / 315.18 + 6 /
   * 320) per GB/s. */
  struct pl_cluster ctas = h100;
  ctas.nccl_min_channels = 24;
  struct pl_coll_cost c24;
  struct pl_group g64 = {64, 8};
  CHECK_EQ_INT(pl_coll_time_proto(&ctas, PL_COLL_ALL_REDUCE, GIB, g64, PL_ALGO_NVLS_TREE,
                                  PL_PROTO_SIMPLE, &c24), PL_OK);
  CHECK_NEAR_REL(c24.time_s, 109 * US + GIB / (160.0 * GB) +
                                 12 * MIB * (1 / 315.18 + 6 / 320.0) / GB, 1e-9);
}

/* An NVL72 rack (gb200-nvl72, one node of 72 ranks): NCCL has at most
 * NCCL_MAX_NVLS_ARITY = 32 NVLS heads, and the heads carry S x 33/32 per
 * direction: algbw = 721.8 x 0.74 (Blackwell nvlsEfficiency) x 32/33 (not
 * 72/73). Chunks: NCCL's concurrentOps = nvlsChannels x nHeads; the preset
 * states no release, so the default's (2.28) 24 Blackwell channels of one
 * NVLink domain x 32 heads = 768 streams; 8 GiB is not below 64 x 768 x
 * 128 KiB = 6 GiB: 128 KiB chunks, ceil(8 GiB / 96 MiB) = 86 loops of
 * 3.4 us, fill one 96 MiB loop. With NCCL 2.26.2 (32 channels): 1,024
 * streams, 8 GiB is not below 64 x 1024 x 128 KiB = 8 GiB: 128 KiB, 64
 * loops, fill 128 MiB. (Before session 14 the streams were 16 x 72 = 1,152:
 * 64 KiB chunks, 114 loops.)
 * all_gather and reduce_scatter: no NVLS above 32 ranks (src/enqueue.cc);
 * on 32 ranks it runs at 721.8 x 0.74. */
static void nvls_rack(void) {
  struct pl_cluster gb;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("gb200-nvl72", &gb, &d), PL_OK, dp);
  struct pl_coll_cost c = {0};
  struct pl_group rack = {72, 72};
  CHECK_EQ_INT(pl_coll_time_proto(&gb, PL_COLL_ALL_REDUCE, 8 * GIB, rack, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  double bw = 721.8 * 0.74 * 32.0 / 33.0 * GB;
  /* a loop costs the larger of the 3.4 us NVLink step and the scatter /
   * gather's walk over 32 heads at NCCL's 0.4 us a peer: 12.8 us
   * (nvls.c nvls_loop_s; docs/collectives.md, "Session 26 (coll26)") */
  CHECK_NEAR_REL(c.time_s, (25 + 86 * 12.8) * US + (8 * GIB + 96 * MIB) / bw, 1e-9);
  struct pl_cluster gb226 = gb;
  CHECK_STATUS(pl_nccl_version_parse("2.26.2", &gb226.nccl_version, &d), PL_OK, dp);
  CHECK_EQ_INT(pl_coll_time_proto(&gb226, PL_COLL_ALL_REDUCE, 8 * GIB, rack, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, (25 + 64 * 12.8) * US + (8 * GIB + 128 * MIB) / bw, 1e-9);
  CHECK(pl_coll_time_proto(&gb, PL_COLL_ALL_GATHER, GIB, rack, PL_ALGO_NVLS, PL_PROTO_SIMPLE,
                           &c) != PL_OK);
  CHECK(pl_coll_time_proto(&gb, PL_COLL_REDUCE_SCATTER, GIB, rack, PL_ALGO_NVLS,
                           PL_PROTO_SIMPLE, &c) != PL_OK);
  struct pl_group g32 = {32, 32};
  CHECK_EQ_INT(pl_coll_time_proto(&gb, PL_COLL_ALL_GATHER, GIB, g32, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  /* 24 x 32 streams of 64 KiB chunks: 22 loops of 12.8 us, one 48 MiB
   * loop of fill, all at B x eff (each GPU receives S) */
  CHECK_NEAR_REL(c.time_s, (25 + 22 * 12.8) * US + (GIB + 48 * MIB) / (721.8 * 0.74 * GB), 1e-9);
  /* one node's 8 heads: 8 x 0.4 = 3.2 us < the 3.4 us step, which stays */
  struct pl_cluster b200;
  CHECK_STATUS(pl_cluster_load("dgx-b200", &b200, &d), PL_OK, dp);
  struct pl_group node8 = {8, 8};
  CHECK_EQ_INT(pl_coll_time_proto(&b200, PL_COLL_ALL_REDUCE, 8 * GIB, node8, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  double bw8 = 721.8 * 0.74 * 8.0 / 9.0 * GB;
  CHECK_NEAR_REL(c.time_s, (25 + 342 * 3.4) * US + (8 * GIB + 24 * MIB) / bw8, 1e-9);
  /* the tuner leaves NVLS for the ring on 72 ranks */
  CHECK_EQ_INT(pl_coll_time(&gb, PL_COLL_ALL_GATHER, 64 * MIB, rack, PL_ALGO_AUTO, &c), PL_OK);
  CHECK(c.algo != PL_ALGO_NVLS);
  /* all_reduce on the rack is NVLS at every size the rack logs print (128 MiB
   * to 32 GiB, NCCL 2.29.2 and 2.25.1): NCCL disables NVLS_TREE on one node
   * and runs no PAT all_reduce (v2.29.2-1 src/graph/tuning.cc l.465-466,
   * l.277), so ring and tree are the alternatives, and both rank below NVLS
   * (docs/collectives.md, "Session 22 (coll22)"). */
  CHECK(pl_coll_time_proto(&gb, PL_COLL_ALL_REDUCE, GIB, rack, PL_ALGO_NVLS_TREE,
                           PL_PROTO_SIMPLE, &c) != PL_OK);
  CHECK(pl_coll_time_proto(&gb, PL_COLL_ALL_REDUCE, GIB, rack, PL_ALGO_PAT, PL_PROTO_SIMPLE,
                           &c) != PL_OK);
  static const char *const rack_versions[] = {"2.29.2", "2.25.1"};
  for (size_t v = 0; v < sizeof rack_versions / sizeof rack_versions[0]; v++) {
    struct pl_cluster gbv = gb;
    CHECK_STATUS(pl_nccl_version_parse(rack_versions[v], &gbv.nccl_version, &d), PL_OK, dp);
    for (double bytes = 128 * MIB; bytes <= 32 * GIB; bytes *= 2.0) {
      CHECK_EQ_INT(pl_coll_time(&gbv, PL_COLL_ALL_REDUCE, bytes, rack, PL_ALGO_AUTO, &c), PL_OK);
      CHECK_EQ_INT(c.algo, PL_ALGO_NVLS);
    }
  }
}

/* NVLS all_reduce on 5 to 8 GPUs of one DGX H100 against a published series
 * (NVIDIA/nccl issue #1455, 2024-09-19: 8 x H100 SXM, NCCL_ALGO=NVLS,
 * all_reduce_perf -b 2G -e 4G -g 5..8; algbw 258, "about" 265, 270, 273
 * GB/s; NCCL release not stated). The heads' traffic, B x eff x g/(g+1),
 * keeps the series' shape: the model at 4 GiB is 241.1 / 250.7 / 258.0 /
 * 263.7 GB/s, 3.4-6.5 % under it. NCCL's tuner form (h heads x the
 * search's quantised per-head speed, sm90SpeedArrayIntra: 60 / 50 / 40 /
 * 40 GB/s on 5 / 6 / 7 / 8 GPUs, x eff) would give 255 / 255 / 238 / 272 at
 * the bandwidth alone: 7 GPUs 12 % under 8, where the series rises (session
 * 19, nvl19: tried for the NVL72 rack and not kept). Bound: the model
 * within 8 % of each point and rising with g, as the series does. */
static void nvls_gpu_counts(void) {
  static const double measured_gbps[] = {258.0, 265.0, 270.0, 273.0};
  double prev = 0.0;
  for (int g = 5; g <= 8; g++) {
    double t = t_of(PL_COLL_ALL_REDUCE, 4 * GIB, g, g, PL_ALGO_NVLS, PL_PROTO_SIMPLE);
    double algbw = 4 * GIB / t / GB;
    CHECK(fabs(algbw / measured_gbps[g - 5] - 1.0) < 0.08);
    CHECK(algbw > prev);
    prev = algbw;
  }
}

/* One DGX B200 node (8 GPUs, 8 heads): NVLS on 24 channels from NCCL 2.27
 * (NVLS_NCHANNELS_SM100_NVL, src/transport/nvls.cc), 32 before; algbw =
 * 721.8 x 0.74 x 8/9 = 474.78 GB/s. 8 GiB, default release: 24 x 8 = 192
 * streams, not below 64 x 192 x 128 KiB = 1.5 GiB: 128 KiB chunks, ceil(8
 * GiB / 24 MiB) = ceil(341.3) = 342 loops of 3.4 us, fill 24 MiB: 25 +
 * 1162.8 us + (8 GiB + 24 MiB) / 474.78 GB/s = 19.33 ms, 777.6 GB/s busbw
 * (16 channels, before session 14: 512 loops, 755.7). NCCL 2.26.2: 32 x 8
 * = 256 streams, 256 loops, fill 32 MiB. */
static void nvls_blackwell_node(void) {
  struct pl_cluster b2;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("dgx-b200", &b2, &d), PL_OK, dp);
  struct pl_coll_cost c = {0};
  struct pl_group node = {8, 8};
  double bw = 721.8 * 0.74 * 8.0 / 9.0 * GB;
  CHECK_EQ_INT(pl_coll_time_proto(&b2, PL_COLL_ALL_REDUCE, 8 * GIB, node, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, (25 + 342 * 3.4) * US + (8 * GIB + 24 * MIB) / bw, 1e-9);
  CHECK_STATUS(pl_nccl_version_parse("2.26.2", &b2.nccl_version, &d), PL_OK, dp);
  CHECK_EQ_INT(pl_coll_time_proto(&b2, PL_COLL_ALL_REDUCE, 8 * GIB, node, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, (25 + 256 * 3.4) * US + (8 * GIB + 32 * MIB) / bw, 1e-9);
}

/* One 8 x B300 node against a published NVLS curve: eunomia-bpf/nccl-eBPF @ 040882bf,
 * docs/tmp/experiment-results-b300.md (NCCL 2.29.7, nccl-tests 2.18.0, default all_reduce,
 * out-of-place busBw, 5-run means). From 128 MiB (64 and 128 KiB chunks on 24 x 8 streams)
 * the model runs NVLS within 8 % of each size (at 0.74 x 721.8 x 8/9 = 474.8 GB/s algbw with
 * 3.4 us a loop: +6.2 % at 128 MiB .. -7.0 % at 8 GiB); below it, at 16-32 KiB chunks, it is
 * 16-30 % fast (docs/collectives.md, "Session 27 (nvl27)"), which this does not check. */
static void nvls_b300_node(void) {
  static const double sizes[] = {128 * MIB, 256 * MIB, 512 * MIB, 1 * GIB,
                                 2 * GIB,   4 * GIB,   8 * GIB};
  static const double busbw_gbps[] = {595.32, 655.81, 703.73, 732.35, 821.60, 832.18, 836.11};
  struct pl_cluster b3;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("dgx-b300", &b3, &d), PL_OK, dp);
  CHECK_STATUS(pl_nccl_version_parse("2.29.7", &b3.nccl_version, &d), PL_OK, dp);
  struct pl_group node = {8, 8};
  double sum = 0.0;
  for (int i = 0; i < 7; i++) {
    struct pl_coll_cost c = {0};
    CHECK_EQ_INT(pl_coll_time(&b3, PL_COLL_ALL_REDUCE, sizes[i], node, PL_ALGO_AUTO, &c), PL_OK);
    CHECK_EQ_INT(c.algo, PL_ALGO_NVLS);
    double busbw = pl_coll_busbw(PL_COLL_ALL_REDUCE, 8, sizes[i], c.time_s) / GB;
    double err = busbw / busbw_gbps[i] - 1.0;
    CHECK(fabs(err) < 0.08);
    sum += fabs(err);
  }
  CHECK(sum / 7.0 < 0.05);
}

static void p2p(void) {
  /* send_recv between two nodes, one rank each: one 50 GB/s NIC;
   * latency 8.4 + 14 us. */
  double t = t_of(PL_COLL_SEND_RECV, GIB, 2, 1, PL_ALGO_P2P, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 22.4 * US + GIB / (50 * GB), 1e-9);
  /* all_to_all over 2 x 8: half of each rank's bytes leave the node on its
   * 50 GB/s InfiniBand NIC, which peaks at 0.96 x 50 = 48 GB/s (NCCL
   * maintainers, nccl-tests #119/#267/#319); latency 8.4 + 3.4 + 14 + 8
   * remote peers x 1 us post = 33.8 us. */
  t = t_of(PL_COLL_ALL_TO_ALL, GIB, 16, 8, PL_ALGO_P2P, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, 33.8 * US + 0.5 * GIB / (48 * GB), 1e-9);
  /* No published peak for GPUDirect-TCPXO (a3-mega, 8 x 200 Gb/s): the
   * line rate stays; 2 GiB less 1 GiB = 0.5 GiB over a 25 GB/s NIC. */
  struct pl_cluster a3;
  struct pl_coll_cost c1, c2;
  struct pl_group two = {16, 8};
  CHECK_EQ_INT(pl_cluster_load("gcp-a3mega", &a3, NULL), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&a3, PL_COLL_ALL_TO_ALL, GIB, two, PL_ALGO_P2P, PL_PROTO_SIMPLE, &c1), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&a3, PL_COLL_ALL_TO_ALL, 2 * GIB, two, PL_ALGO_P2P, PL_PROTO_SIMPLE, &c2),
               PL_OK);
  CHECK_NEAR_REL(c2.time_s - c1.time_s, 0.5 * GIB / (25 * GB), 1e-9);
}

static void tuner_choices(void) {
  struct pl_coll_cost c;
  struct pl_group one = {8, 8}, two = {16, 8};
  /* 8 B on one node: ring/LL (15 us) beats NVLS (25 us) and tree/LL (6.8 + 2 x 7 x 0.6 = 15.2 us). */
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, 8, one, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c.proto, PL_PROTO_LL);
  /* 1 GiB on one node: NVLS (280 GB/s algbw) beats ring (212 GB/s). */
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, GIB, one, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_NVLS);
  /* 1 GiB on two nodes: NVLS_TREE. */
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, GIB, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_NVLS_TREE);
  /* all_gather never uses tree; 1 GiB on one node: ring/Simple beats NVLS (eff 0.85). */
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_GATHER, GIB, one, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
  /* The chosen pair is charged in full: auto costs what that pair costs forced. */
  struct pl_coll_cost f;
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, 3e6, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&h100, PL_COLL_ALL_REDUCE, 3e6, two, c.algo, c.proto, &f), PL_OK);
  CHECK_NEAR_REL(c.time_s, f.time_s, 0);
  /* Rings on more than 2 nodes are ranked on NCCL's graph (ncclTopoTuneModel:
   * bwInter x nChannels, per-channel caps x nChannels): 10 DGX H100 nodes,
   * all_gather over 80 ranks, 8 rings of 48 GB/s. LL128: busBw
   * min(0.92 x 384, 8 x 36.7 = 293.6) = 293.6 GB/s, latency 14 + 70 x 1.9 +
   * 9 x 4.0 = 183 us; Simple: 384 GB/s, 8.4 + 70 x 3.4 + 9 x 14 = 372.4 us;
   * algbw = busBw x 80/79. Equal at 189.4 us / (79/80 x (1/293.6 - 1/384)
   * ns/B) = 239.2 MB: 128 MiB runs LL128, 256 MiB Simple (with the NVLink
   * 370.8 GB/s and the preset's 24 channels the switch was at 817 MB). */
  struct pl_group ten = {80, 8};
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_GATHER, 128 * MIB, ten, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c.proto, PL_PROTO_LL128);
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_GATHER, 256 * MIB, ten, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
}

/* NCCL 2.19.3-2.27.x rank NVLS_TREE on the NVLS search graph (2.26.2 ncclTopoTuneModel:
 * bw = min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2), x heads, x 5/6; no
 * perChMaxNVLSTreeBws before 2.28.3). DGX H100's NVLS graph: 8 heads; bwIntra 40 (9 x 40 =
 * 360 <= 18 x 20.6 = 370.8 GB/s, 9 x 42 = 378 is not; ncclTopoSearchTryNvls puts 8 heads + the
 * GPU's own second pass on each NVLink); bwInter raised to 48 in pass 2 (the 50 GB/s rail).
 * By hand, 8 nodes x 8 (64 ranks), release 2.27.3:
 *   NVLS_TREE: 8 x min(40, 24) x 5/6 = 160 GB/s; latency hwLat[NVLINK][NVLSTree] 25 +
 *     2 x log2(8) x hwLat[NET][NVLSTree] 14 = 109 us;
 *   ring/Simple: 8 rings x 48 = 384 GB/s busBw x 64/126 = 195.05 GB/s; latency (8.4 +
 *     112 x max(3.4, 3 x 1) + 14 x 14) x 1.4 = 819.3 us (14 network steps, 2 (m - 1));
 *   equal at (819.3 - 109) us / (1/160 - 1/195.05) ns/B = 632 MB: 512 MiB (537 MB) NVLS_TREE,
 *   1 GiB (1,074 MB) ring.
 * 4 nodes (32 ranks): ring 384 x 32/62 = 198.2 GB/s, (8.4 + 56 x 3.4 + 6 x 14) x 1.4 = 395.9
 *   us; NVLS_TREE 160 GB/s, 25 + 2 x 2 x 14 = 81 us; equal at 314.9 us / (1/160 - 1/198.2)
 *   = 261 MB: 128 MiB NVLS_TREE, 256 MiB (268 MB) ring.
 * With 2.28.3's form (the default tables) NVLS_TREE keeps 1 GiB on 8 nodes. */
static void nvls_tree_rank_pre228(void) {
  struct pl_cluster v27 = h100, v28 = h100;
  CHECK_EQ_INT(pl_nccl_version_parse("2.27.3", &v27.nccl_version, NULL), PL_OK);
  CHECK_EQ_INT(pl_nccl_version_parse("2.28.3", &v28.nccl_version, NULL), PL_OK);
  struct pl_group eight = {64, 8}, four = {32, 8};
  struct pl_coll_cost c;
  CHECK_EQ_INT(pl_coll_time(&v27, PL_COLL_ALL_REDUCE, 512 * MIB, eight, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_NVLS_TREE);
  CHECK_EQ_INT(pl_coll_time(&v27, PL_COLL_ALL_REDUCE, GIB, eight, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time(&v27, PL_COLL_ALL_REDUCE, 128 * MIB, four, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_NVLS_TREE);
  CHECK_EQ_INT(pl_coll_time(&v27, PL_COLL_ALL_REDUCE, 256 * MIB, four, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  CHECK_EQ_INT(pl_coll_time(&v28, PL_COLL_ALL_REDUCE, GIB, eight, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_NVLS_TREE);
  /* the ranking only: forced NVLS_TREE costs the same under both releases */
  struct pl_coll_cost a, b;
  CHECK_EQ_INT(pl_coll_time(&v27, PL_COLL_ALL_REDUCE, GIB, eight, PL_ALGO_NVLS_TREE, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&v28, PL_COLL_ALL_REDUCE, GIB, eight, PL_ALGO_NVLS_TREE, &b), PL_OK);
  CHECK_NEAR_REL(a.time_s, b.time_s, 0);
}

/* Cloud presets: the NCCL setup each fabric prescribes, and NCCL's own
 * ranking (without pipeline fill) choosing the algorithm. */
static void tuner_cloud(void) {
  struct pl_cluster a3, p4, p5;
  struct pl_coll_cost c, ring;
  struct pl_group two = {16, 8};
  CHECK_EQ_INT(pl_cluster_load("gcp-a3mega", &a3, NULL), PL_OK);
  CHECK_EQ_INT(pl_cluster_load("aws-p4de", &p4, NULL), PL_OK);
  CHECK_EQ_INT(pl_cluster_load("aws-p5", &p5, NULL), PL_OK);
  /* a3-mega, 64 MiB, NCCL's model without fill (Simple only, no NVLS):
   * tree busBw min(370.8, 2 x 200) x 0.92 = 341.1, algbw x 0.5 x 0.8
   * (correction at 64 MiB) = 136.5 GB/s: 491.7 us + 8.4 + 2 (7 x 4 + 14) =
   * 584 us; ring busBw 200, algbw 106.7: 629 us + 1.4 x 131.6 = 813 us.
   * NCCL ranks tree first and runs it, although its 1 MiB chunks (8 MiB
   * NCCL_BUFFSIZE) then fill for ~0.7 ms and ring would cost less. */
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_REDUCE, 64 * MIB, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_TREE);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_REDUCE, 64 * MIB, two, PL_ALGO_RING, &ring), PL_OK);
  CHECK(c.time_s > ring.time_s);
  /* TCPXO's profile and EFA before P5 allow Simple only; p5 keeps LL. */
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_REDUCE, 8, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_TO_ALL, 8192, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time(&p4, PL_COLL_ALL_REDUCE, 8, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time(&p5, PL_COLL_ALL_REDUCE, 8, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.proto, PL_PROTO_LL);
  CHECK_EQ_INT(pl_coll_time_proto(&a3, PL_COLL_ALL_REDUCE, 8, two, PL_ALGO_RING, PL_PROTO_LL, &c),
               PL_ERR_UNSUPPORTED);
}

/* Cloud presets, whole calls with their chunking (docs/collectives.md,
 * "Cloud fabrics"). */
static void cloud_chunks(void) {
  struct pl_cluster a3, p5;
  struct pl_coll_cost c;
  struct pl_group two = {16, 8};
  CHECK_EQ_INT(pl_cluster_load("gcp-a3mega", &a3, NULL), PL_OK);
  CHECK_EQ_INT(pl_cluster_load("aws-p5", &p5, NULL), PL_OK);
  /* a3-mega, 64 MiB, tree Simple (ranked first, tuner_cloud): latency
   * 8.4 + 2 (7 x 4 + 14) = 92.4 us; busBw min(370.8 x 0.92 = 341.136,
   * perChMaxTreeBw[Hopper][2 nodes] 41.4 x 16 / 2 graph channels = 331.2);
   * algbw 331.2 x 0.5 x 0.8 = 132.48 GB/s: 506.56 us; fill on 16 channels
   * (NCCL's search: 8 NICs of 25 GB/s give 8
   * channels of 24 GB/s, doubled once) of 1 MiB tree chunks (8 MiB
   * NCCL_BUFFSIZE / 8 steps): round 16 MiB, NVLink stage 16777216 / 370.8 GB/s
   * = 45.246 us, network 16777216 / (2 x 200 GB/s) = 41.943 us, fill
   * 2 (7 x 45.246 + 41.943) - 45.246 = 672.08 us. Total 1271.04 us. */
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_REDUCE, 64 * MIB, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_TREE);
  CHECK_NEAR_REL(c.time_s, 1271.04 * US, 1e-4);
  /* p5, 1 GiB, NVLS_TREE with the aws-ofi-nccl P5 setting of 512 KiB NVLS
   * chunks: 512 KiB -> 256 KiB since 1 GiB < 32 x 128 ops x 512 KiB, kept
   * as 1 GiB >= 16 x 128 x 256 KiB; loop 128 x 256 KiB = 32 MiB. Latency
   * 25 + 2 x 14 x 23/14 = 71 us; NVLS part 370.8 x 0.85 x 8/9 = 280.16 GB/s
   * algbw (the network bound, 400 GB/s on two nodes, is higher); NCCL 2.28's
   * ceiling of 8 heads x 57.7 = 461.6 GB/s busBw, 246.19 GB/s algbw on 16
   * ranks, binds: 1073741824 / 246.187 GB/s = 4361.49 us. Fill: NVLS
   * stage 33554432 / 315.18 GB/s = 106.46 us, network 33554432 / 400 GB/s
   * = 83.886 us: 2 x 106.46 + 2 x 83.886 - 106.46 = 274.23 us. Total
   * 4706.72 us (with NCCL's default 128 KiB chunks the fill is half). */
  CHECK_EQ_INT(pl_coll_time(&p5, PL_COLL_ALL_REDUCE, GIB, two, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_NVLS_TREE);
  CHECK_NEAR_REL(c.time_s, 4706.72 * US, 1e-4);
}

/* The study's Figure 2: at 64 MiB per GPU, all_gather (ring only) becomes
 * latency-bound with scale while all_reduce (tree) keeps most of its busbw. */
static void study_trend(void) {
  double bytes = 64 * 1048576.0;
  double bw[2][2];
  enum pl_coll_op ops[2] = {PL_COLL_ALL_GATHER, PL_COLL_ALL_REDUCE};
  int64_t nodes[2] = {4, 256};
  for (int o = 0; o < 2; o++)
    for (int k = 0; k < 2; k++) {
      struct pl_coll_cost c;
      struct pl_group g = {nodes[k] * 8, 8};
      CHECK_EQ_INT(pl_coll_time(&h100, ops[o], bytes, g, PL_ALGO_AUTO, &c), PL_OK);
      bw[o][k] = pl_coll_busbw(ops[o], g.ranks, bytes, c.time_s);
    }
  printf("study trend, 64 MiB on dgx-h100: all_gather busbw %.1f -> %.1f GB/s (4 -> 256 nodes, "
         "%.0f%% kept); all_reduce %.1f -> %.1f GB/s (%.0f%% kept)\n",
         bw[0][0] / GB, bw[0][1] / GB, 100 * bw[0][1] / bw[0][0], bw[1][0] / GB, bw[1][1] / GB,
         100 * bw[1][1] / bw[1][0]);
  CHECK(bw[0][1] < 0.25 * bw[0][0]);
  CHECK(bw[1][1] > 0.5 * bw[1][0]);
  CHECK(bw[1][1] / bw[1][0] > 2.0 * bw[0][1] / bw[0][0]);
}

static void monotone_and_errors(void) {
  struct pl_coll_cost c;
  struct pl_group g = {64, 8};
  for (int op = 0; op < PL_COLL_N_OPS; op++) {
    double prev = 0.0;
    for (double b = 8; b < 2e10; b *= 2) {
      CHECK_EQ_INT(pl_coll_time(&h100, (enum pl_coll_op)op, b, g, PL_ALGO_AUTO, &c), PL_OK);
      CHECK(c.time_s >= prev && c.time_s > 0.0);
      prev = c.time_s;
    }
  }
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_group bad = {12, 8}, wide = {16, 16}, solo = {1, 1};
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, 1e6, bad, PL_ALGO_AUTO, &c), PL_ERR_RANGE);
  CHECK_STATUS(pl_coll_check(&h100, PL_COLL_ALL_REDUCE, 1e6, wide, PL_ALGO_AUTO, &d), PL_ERR_RANGE,
               dp);
  CHECK_CONTAINS(d.msg, "8 GPUs per node");
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, -1.0, g, PL_ALGO_AUTO, &c), PL_ERR_RANGE);
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, NAN, g, PL_ALGO_AUTO, &c),
               PL_ERR_RANGE);
  CHECK_STATUS(pl_coll_check(&h100, PL_COLL_ALL_GATHER, 1e6, g, PL_ALGO_TREE, &d),
               PL_ERR_UNSUPPORTED, dp);
  CHECK_CONTAINS(d.msg, "tree runs all_reduce only");
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, 1e6, solo, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, 0.0, 0);
}

static void names_and_factors(void) {
  enum pl_coll_op op;
  enum pl_coll_algo a;
  CHECK_EQ_INT(pl_coll_op_parse("AllReduce", &op, NULL), PL_OK);
  CHECK_EQ_INT(op, PL_COLL_ALL_REDUCE);
  CHECK_EQ_INT(pl_coll_op_parse("alltoall", &op, NULL), PL_OK);
  CHECK_EQ_INT(op, PL_COLL_ALL_TO_ALL);
  CHECK_EQ_INT(pl_coll_op_parse("gather", &op, NULL), PL_ERR_UNKNOWN);
  CHECK_EQ_INT(pl_coll_algo_parse("NVLS_TREE", &a, NULL), PL_OK);
  CHECK_EQ_INT(a, PL_ALGO_NVLS_TREE);
  CHECK_STR(pl_coll_proto_name(PL_PROTO_LL128), "LL128");
  CHECK_NEAR_REL(pl_coll_bus_factor(PL_COLL_ALL_REDUCE, 8), 1.75, 1e-15);   /* 2 x 7/8 */
  CHECK_NEAR_REL(pl_coll_bus_factor(PL_COLL_ALL_GATHER, 16), 0.9375, 1e-15); /* 15/16 */
  CHECK_NEAR_REL(pl_coll_bus_factor(PL_COLL_SEND_RECV, 16), 1.0, 0);
}

static void latency_scaling(void) {
  /* A cluster whose NVLink hop is 6.8 us (twice NCCL's 3.4) doubles every
   * NVLink hop of every protocol: ring/LL on 8 ranks goes from 6.6 + 14 x 0.6
   * to 6.6 + 14 x 1.2 us. */
  struct pl_cluster slow = h100;
  slow.intra_latency_s = 6.8e-6;
  struct pl_coll_cost c;
  struct pl_group g = {8, 8};
  CHECK_EQ_INT(pl_coll_time_proto(&slow, PL_COLL_ALL_REDUCE, 0.0, g, PL_ALGO_RING, PL_PROTO_LL, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, (6.6 + 14 * 1.2) * US, 1e-9);
  slow.coll_launch_s = 20e-6; /* a calibrated launch overhead adds once */
  CHECK_EQ_INT(pl_coll_time_proto(&slow, PL_COLL_ALL_REDUCE, 0.0, g, PL_ALGO_RING, PL_PROTO_LL, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, (20 + 6.6 + 14 * 1.2) * US, 1e-9);
  /* NVLS's 25 us is per call (NCCL: latencies[NVLS] = intraLat), an algorithm
   * constant like baseLat, and its 3.4 us per loop is the table value too:
   * a doubled hop latency leaves NVLS at 64 MiB as in nvls() above,
   * (25 + 8 x 3.4) us + 72 MiB / algbw, 20 us launch added once. */
  double bw = 370.8 * 0.85 * 8.0 / 9.0 * GB;
  CHECK_EQ_INT(pl_coll_time_proto(&slow, PL_COLL_ALL_REDUCE, 64 * MIB, g, PL_ALGO_NVLS,
                                  PL_PROTO_SIMPLE, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, (20 + 25 + 8 * 3.4) * US + 72 * MIB / bw, 1e-9);
}

/* One 8x A100 NVSwitch node (dgx-a100): NVLink B = 230 GB/s (the effective
 * A100 figure NCCL's maintainers give, nccl-tests issue #149; NCCL's
 * topology says 12 x 20 = 240), AMD host, 16 channels. NCCL's choices on
 * that node (docs/collectives.md, "NCCL 2.19 on one 8x A100 NVSwitch
 * node"): ring throughout; LL latency 6.6 + 14 x 0.6 = 15 us at
 * min(87.7, 230 x 0.5) = 87.7 GB/s busbw, LL128 14 + 14 x 1.9 = 40.6 us at
 * 0.92 x 230 = 211.6 (cap 16 x 20 = 320 does not bind), Simple
 * 8.4 + 14 x 3.4 = 56 us at 230; algbw = busbw x 8/14. LL = LL128 at
 * 25.6 us / (14/8 (1/87.7 - 1/211.6) ns/B) = 2.19 MB, LL128 = Simple at
 * 15.4 us / (14/8 (1/211.6 - 1/230) ns/B) = 23.3 MB: LL at 2 MiB, LL128 at
 * 4 and 16 MiB, Simple at 32 MiB. */
static void a100_one_node(void) {
  struct pl_cluster a100;
  struct pl_coll_cost c;
  struct pl_group one = {8, 8};
  CHECK_EQ_INT(pl_cluster_load("dgx-a100", &a100, NULL), PL_OK);
  static const struct {
    double bytes;
    enum pl_coll_proto proto;
  } want[] = {{2 * MIB, PL_PROTO_LL}, {4 * MIB, PL_PROTO_LL128}, {16 * MIB, PL_PROTO_LL128},
              {32 * MIB, PL_PROTO_SIMPLE}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    CHECK_EQ_INT(pl_coll_time(&a100, PL_COLL_ALL_REDUCE, want[i].bytes, one, PL_ALGO_AUTO, &c),
                 PL_OK);
    CHECK_EQ_INT(c.algo, PL_ALGO_RING);
    CHECK_EQ_INT(c.proto, want[i].proto);
  }
  /* 128 MiB, ring/Simple: 56 us + 128 MiB x 14 / (8 x 230 GB/s) = 1021.2 us;
   * fill: share 128 MiB / (16 x 8) = 1 MiB < 2 MiB chunk, one more step,
   * 1 MiB x 16 / 230 GB/s = 72.9 us. 1150.1 us, 204.2 GB/s busbw. */
  CHECK_EQ_INT(pl_coll_time(&a100, PL_COLL_ALL_REDUCE, 128 * MIB, one, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, 56 * US + 128 * MIB * 14.0 / (8.0 * 230 * GB) + 16 * MIB / (230 * GB),
                 1e-9);
}

/* Sibling groups on shared NICs (pl_coll_time_shared). Jean Zay: 4 x 100
 * Gb/s Omni-Path for 8 GPUs. A dp group of 8 ranks, 2 per node (tp4) alone:
 * each rank min(50 GB/s / 2, 12.5) = 12.5 GB/s, the group 25 GB/s per node.
 * With the 4 tp ranks' groups at once (8 GPUs active): min(50 / 8, 12.5) =
 * 6.25 GB/s per rank, 12.5 per node: exactly the group alone on NICs of half
 * the speed (min(25 / 2, 6.25) = 6.25). DGX H100 (a NIC per GPU): siblings
 * change nothing. Fewer active GPUs than the group's own count as the group
 * alone, more than the node's as the node; negative is an error. */
static void shared_nics(void) {
  struct pl_cluster jz, half;
  struct pl_coll_cost alone, shared, slow;
  struct pl_group dp = {8, 2}, inter = {64, 1};
  CHECK_EQ_INT(pl_cluster_load("jean-zay-a100", &jz, NULL), PL_OK);
  half = jz;
  half.nic_bytes_per_s /= 2;
  for (int i = 0; i < 3; i++) {
    enum pl_coll_op op = i == 0 ? PL_COLL_ALL_REDUCE : i == 1 ? PL_COLL_ALL_GATHER : PL_COLL_SEND_RECV;
    struct pl_group g = op == PL_COLL_SEND_RECV ? (struct pl_group){2, 1} : dp;
    CHECK_EQ_INT(pl_coll_time_shared(&jz, op, 256 * MIB, g, 8, PL_ALGO_AUTO, &shared), PL_OK);
    CHECK_EQ_INT(pl_coll_time(&half, op, 256 * MIB, g, PL_ALGO_AUTO, &slow), PL_OK);
    /* NICs of half the speed also halve what each channel drives (0.4 of
     * its rail); sharing leaves the channels their rail: shared is faster
     * than half-speed NICs, except for p2p (no channel share) */
    if (op == PL_COLL_SEND_RECV)
      CHECK_NEAR_REL(shared.time_s, slow.time_s, 0);
    else
      CHECK(shared.time_s < slow.time_s);
    CHECK_EQ_INT(pl_coll_time(&jz, op, 256 * MIB, g, PL_ALGO_AUTO, &alone), PL_OK);
    CHECK(shared.time_s > 1.5 * alone.time_s);
    for (int64_t a = 0; a <= g.ranks_per_node; a++) {
      CHECK_EQ_INT(pl_coll_time_shared(&jz, op, 256 * MIB, g, a, PL_ALGO_AUTO, &shared), PL_OK);
      CHECK_NEAR_REL(shared.time_s, alone.time_s, 0);
    }
  }
  CHECK_EQ_INT(pl_coll_time_shared(&jz, PL_COLL_ALL_REDUCE, 256 * MIB, dp, 8, PL_ALGO_AUTO, &slow),
               PL_OK);
  CHECK_EQ_INT(pl_coll_time_shared(&jz, PL_COLL_ALL_REDUCE, 256 * MIB, dp, 64, PL_ALGO_AUTO, &shared),
               PL_OK);
  CHECK_NEAR_REL(shared.time_s, slow.time_s, 0);
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, 256 * MIB, inter, PL_ALGO_AUTO, &alone), PL_OK);
  CHECK_EQ_INT(pl_coll_time_shared(&h100, PL_COLL_ALL_REDUCE, 256 * MIB, inter, 8, PL_ALGO_AUTO, &shared),
               PL_OK);
  CHECK_NEAR_REL(shared.time_s, alone.time_s, 0);
  CHECK_EQ_INT(pl_coll_time_shared(&jz, PL_COLL_ALL_REDUCE, MIB, dp, -1, PL_ALGO_AUTO, &shared),
               PL_ERR_RANGE);
  /* a group inside one node uses no NIC: siblings change nothing */
  struct pl_group tp4 = {4, 4};
  CHECK_EQ_INT(pl_coll_time(&jz, PL_COLL_ALL_REDUCE, 256 * MIB, tp4, PL_ALGO_AUTO, &alone), PL_OK);
  CHECK_EQ_INT(pl_coll_time_shared(&jz, PL_COLL_ALL_REDUCE, 256 * MIB, tp4, 8, PL_ALGO_AUTO, &shared),
               PL_OK);
  CHECK_NEAR_REL(shared.time_s, alone.time_s, 0);
}

/* Concurrent data-parallel groups on one node's NICs (vtrain-a100: 8 A100,
 * 4 x 200 Gb/s HDR = 100 GB/s per node; docs/collectives.md, "Session 7
 * (net7)"). Every communicator's topology holds only its own GPUs and all
 * the node's NICs (NCCL 2.18 src/graph/topo.cc ncclTopoGetSystem: GPUs of
 * the local ranks, ncclTopoFillNet for every net device), and each runs
 * its own search (src/graph/search.cc ncclTopoCompute): a group of g ranks
 * per node gets one ring per NIC its ranks reach, at 24 GB/s (the first
 * speedArrayInter entry not above the 25 GB/s NIC and the 24 GB/s PCIe
 * Gen4 x16 path), not duplicated (24 < 25), doubled by ncclTopoPostset:
 * g = 8 or 4: 4 rings, 8 channels; g = 2: 2 and 4; g = 1: 1 and 2. Alone,
 * a group drives 0.4 of a rail per channel: g = 8 and 4: 8 x 0.4 x 25 =
 * 80 GB/s per node, g = 2: 40, g = 1: 20. When all 8 GPUs run their
 * groups at once the NICs are shared: each group gets g x 100 / 8 GB/s
 * (4 channels per NIC, 4 x 0.4 > 1, so the NIC binds), and the 8/g groups
 * together move exactly the node's 100 GB/s, never more; the one group of
 * 8 (tp 1) keeps its 80. busbw of a ring
 * all_reduce is the group's per-node network rate; at 16 GiB on 8 nodes
 * the steps and the fill are under 1 %. */
static void concurrent_groups(void) {
  struct pl_cluster v;
  CHECK_EQ_INT(pl_cluster_load("vtrain-a100", &v, NULL), PL_OK);
  const double bytes = 16.0 * GIB;
  const int64_t per_node[] = {8, 4, 2, 1};
  const double alone_gbs[] = {80, 80, 40, 20};
  for (int i = 0; i < 4; i++) {
    int64_t g = per_node[i];
    struct pl_group grp = {8 * g, g};
    struct pl_coll_cost alone, shared;
    CHECK_EQ_INT(pl_coll_time(&v, PL_COLL_ALL_REDUCE, bytes, grp, PL_ALGO_RING, &alone), PL_OK);
    CHECK_EQ_INT(pl_coll_time_shared(&v, PL_COLL_ALL_REDUCE, bytes, grp, 8, PL_ALGO_RING, &shared),
                 PL_OK);
    double bus = 2.0 * (double)(grp.ranks - 1) / (double)grp.ranks * bytes;
    double alone_node = bus / alone.time_s, node_sum = (double)(8 / g) * bus / shared.time_s;
    CHECK(alone_node <= alone_gbs[i] * GB);
    CHECK(alone_node > 0.99 * alone_gbs[i] * GB);
    /* the node's NICs cap the sum of its concurrent groups; several groups
     * (4 channels per NIC) fill them, the one group of 8 (2 per NIC) does not */
    double sum_gbs = g == 8 ? 80.0 : 100.0;
    CHECK(node_sum <= sum_gbs * GB);
    CHECK(node_sum > 0.99 * sum_gbs * GB);
  }
}

/* ALCF Polaris (alcf-polaris): 4x A100 per node, 2 Slingshot NICs of
 * 200 Gb/s (50 GB/s per node), AMD host (2 us network post), GPU-NIC path
 * PHB, 4 channels. NCCL enables LL128 across nodes only up to a PXB path
 * (PXN from Hopper on; tuning.cc ncclTopoTuneModel), so Polaris runs LL and
 * Simple between nodes and LL128 inside one node. */
static void polaris_ll128_path(void) {
  struct pl_cluster pol;
  struct pl_coll_cost c;
  CHECK_EQ_INT(pl_cluster_load("alcf-polaris", &pol, NULL), PL_OK);
  CHECK_STR(pol.gpu_nic_path, "phb");
  struct pl_group two = {8, 4}, one = {4, 4};
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 4 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL128, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 4 * MIB, one, PL_ALGO_RING,
                                  PL_PROTO_LL128, &c), PL_OK);
  /* ring all_gather of 64 MiB on 2 nodes, Simple: n = 8, g = 4, m = 2.
   * 4 channels (2 rings of 24 GB/s, doubled), each driving 0.4 of its
   * 25 GB/s NIC: busBw = min(NVLink 230, node NICs 2 x 25, 4 x 0.4 x 25 =
   * 40) = 40 GB/s; algbw = 40 x 8/7.
   * latency (every step of a ring across nodes at the exposed network hop,
   * hwLat[NET][Tree][Simple] 14 us > max(NVLink 3.4, 3 x 2 us AMD post),
   * less one slice's transfer: chunk 2 MiB, a 1 MiB slice at 10 GB/s a
   * channel = 104.9 us hides it) = baseLat 8.4 us; transfer
   * 64 MiB x 7 / 320e9 = 1468.0064 us; fill: 4 channels x chunk
   * min(2 MiB, 64 MiB / (4 x 8) = 2 MiB) / 40 GB/s = 209.7152 us. */
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 64 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_SIMPLE, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, (8.4 + 1468.0064 + 209.7152) * US, 1e-9);
  /* the same node with a PXN path: allowed on Hopper, not before */
  struct pl_cluster pxn = pol;
  snprintf(pxn.gpu_nic_path, sizeof pxn.gpu_nic_path, "pxn");
  CHECK_EQ_INT(pl_coll_time_proto(&pxn, PL_COLL_ALL_GATHER, 4 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL128, &c), PL_ERR_UNSUPPORTED);
  struct pl_cluster h = h100;
  snprintf(h.gpu_nic_path, sizeof h.gpu_nic_path, "pxn");
  CHECK_EQ_INT(pl_coll_time_proto(&h, PL_COLL_ALL_GATHER, 4 * MIB, (struct pl_group){16, 8},
                                  PL_ALGO_RING, PL_PROTO_LL128, &c), PL_OK);
  snprintf(h.gpu_nic_path, sizeof h.gpu_nic_path, "sys");
  CHECK_EQ_INT(pl_coll_time_proto(&h, PL_COLL_ALL_GATHER, 4 * MIB, (struct pl_group){16, 8},
                                  PL_ALGO_RING, PL_PROTO_LL128, &c), PL_ERR_UNSUPPORTED);
}

/* PAT (NCCL 2.28 tuning.cc): all_gather / reduce_scatter, one rank per
 * node, Simple. 64 MiB over 1024 nodes x 1 on dgx-h100: one rank reaches
 * its own NIC, 50 GB/s; algbw = 0.75 x 50 = 37.5 GB/s -> 1789.56971 us;
 * latency = baseLat 8 + log2(1024) = 10 x 14 / 3.5 + 1024 x 2.8 =
 * 8 + 40 + 2867.2 = 2915.2 us; no fill. Not with 8 ranks per node, not for
 * all_reduce, not LL128; and 1 MiB on 1024 nodes still rings (LL). */
static void pat(void) {
  double t = t_of(PL_COLL_ALL_GATHER, 64 * MIB, 1024, 1, PL_ALGO_PAT, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (2915.2 + 67108864.0 / 37.5e9 / US) * US, 1e-9);
  t = t_of(PL_COLL_REDUCE_SCATTER, 64 * MIB, 1024, 1, PL_ALGO_PAT, PL_PROTO_SIMPLE);
  CHECK_NEAR_REL(t, (2915.2 + 67108864.0 / 37.5e9 / US) * US, 1e-9);
  struct pl_coll_cost c;
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_GATHER, 64 * MIB, (struct pl_group){1024, 8},
                            PL_ALGO_PAT, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_REDUCE, 64 * MIB, (struct pl_group){1024, 1},
                            PL_ALGO_PAT, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time_proto(&h100, PL_COLL_ALL_GATHER, 64 * MIB, (struct pl_group){1024, 1},
                                  PL_ALGO_PAT, PL_PROTO_LL128, &c), PL_ERR_UNSUPPORTED);
  /* the tuner: at 64 MiB on 1024 nodes PAT (4.70 ms) beats ring LL128, whose
   * 1023 steps each pay the Tree/Ring network hop */
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_GATHER, 64 * MIB, (struct pl_group){1024, 1},
                            PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_PAT);
  CHECK_STR(pl_coll_algo_name(PL_ALGO_PAT), "pat");
  /* GPUDirect-TCPXO runs only with Google's NCCL profile, which sets NCCL_ALGO=Ring,Tree
   * (tuner.c nccl_setup): no PAT on a3-mega even with one rank per node, where the default
   * rules would pick it (16 nodes x 1, 1 MiB all_gather: PAT 8 + 4 x 14 / 3.5 + 16 x 2.8 =
   * 68.8 us + 1 MiB / (25 GB/s x 0.75) = 124.7 us against the ring's 1 MiB over 15 steps). */
  struct pl_cluster a3;
  CHECK_EQ_INT(pl_cluster_load("gcp-a3mega", &a3, NULL), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_GATHER, MIB, (struct pl_group){16, 1},
                            PL_ALGO_PAT, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time(&a3, PL_COLL_ALL_GATHER, MIB, (struct pl_group){16, 1},
                            PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_RING);
  struct pl_cluster a3pat = a3;
  snprintf(a3pat.inter_kind, sizeof a3pat.inter_kind, "infiniband");
  CHECK_EQ_INT(pl_coll_time(&a3pat, PL_COLL_ALL_GATHER, MIB, (struct pl_group){16, 1},
                            PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_PAT);
}

/* Channels per call (NCCL topoGetAlgoInfo: drop channels while nBytes <
 * nc x nt x threadThreshold; ring LL: threshold 8 x nRanks, nt 512). Polaris,
 * 256 nodes x 4 = 1,024 ranks, ring LL all_gather of 4 MiB: one channel needs
 * 8 x 1024 x 512 = 4 MiB, so 4 MiB runs on 1 of the group's 4 channels.
 * Charged bus bandwidth: NVLink 230 x 1/4 = 57.5, network min(50, 1 x 0.4 x
 * 25) = 10 GB/s; LL: min(llMaxBw AMD > 2 nodes 19, 10 x 0.5) = 5 GB/s (on all
 * 4 channels it would be min(19, 0.5 x 40) = 19). Charged latency: every
 * one of the 1023 steps at the exposed network hop hwLat[NET][Tree][LL]
 * 5.0 us (> max(NVLink LL 0.6, AMD post 2)) = 5115 us, overlapping the
 * transfer (LL forwards each flagged line as it arrives) 4 MiB x 1023 /
 * (1024 x 5 GB/s) = 838.041 us: 6.6 + max(5115, 838.041) = 5121.6 us; fill:
 * chunk min(32 KiB, 4 MiB / (1 x 1024)) = 4 KiB on 1 channel at 5 GB/s =
 * 0.8192 us. */
static void channels_per_call(void) {
  struct pl_cluster pol;
  struct pl_coll_cost c;
  CHECK_EQ_INT(pl_cluster_load("alcf-polaris", &pol, NULL), PL_OK);
  struct pl_group g = {1024, 4};
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 4 * MIB, g, PL_ALGO_RING, PL_PROTO_LL,
                                  &c), PL_OK);
  /* each step also waits for its own message on the wire (ring_msg_wire_s): 4 KiB
   * in LL lines (x 2) at the 25 GB/s rail = 0.32768 us: 1023 x 5.32768 = 5450.2166 us */
  CHECK_NEAR_REL(c.time_s, (6.6 + 5450.21664 + 0.8192) * US, 1e-6);
  /* what the call reports it ran (pl_coll_cost.channels, net_msgs_per_step; calibrate nccl's
   * extrapolation note): 4 MiB at 1,024 ranks is nc = floor(4 MiB / (512 x 8 x 1024)) = 1
   * channel, a rank's share 4 MiB / 1024 = 4 KiB under the 32 KiB LL chunk, so 1 loop and
   * one network message a ring step */
  CHECK_NEAR_REL(c.channels, 1.0, 1e-12);
  CHECK_NEAR_REL(c.net_msgs_per_step, 1.0, 1e-12);
  /* 8 MiB: nc = 2; busBw min(19, 0.5 x min(115, min(50, 2 x 0.4 x 25 = 20))) = 10 GB/s;
   * transfer 8 MiB x 1023 / (1024 x 10 GB/s) = 838.041 us again (channels grow with
   * the message), under the steps' 5115 us; fill: chunk min(32 KiB, 8 MiB / (2 x
   * 1024)) = 4 KiB on 2 channels at 10 GB/s = 0.8192 us. The preset's proxy
   * bound (message_overhead 2.86 us, src/net/proxy_msg.c; session 12) is 1023
   * steps x 2 channels x 1 loop x 2.86 = 5851.56 us, above the steps' 5115 us,
   * so it sets the time (at 4 MiB, one channel: 1023 x 2.86 = 2925.78 us, under
   * 5115, no change above). */
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 8 * MIB, g, PL_ALGO_RING, PL_PROTO_LL,
                                  &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, (6.6 + 5851.56 + 0.8192) * US, 1e-6);
  CHECK_NEAR_REL(c.channels, 2.0, 1e-12); /* 2 channels x 1 loop (4 KiB a share) */
  CHECK_NEAR_REL(c.net_msgs_per_step, 2.0, 1e-12);
  /* 16 MiB: nc = min(4 coll channels, 16 MiB / 4 MiB) = 4, share 16 MiB / (4 x 1024) =
   * 4 KiB, 1 loop: 4 messages a step, as the 2-node rows >= 1 MiB post */
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 16 * MIB, g, PL_ALGO_RING,
                                  PL_PROTO_LL, &c), PL_OK);
  CHECK_NEAR_REL(c.channels, 4.0, 1e-12);
  CHECK_NEAR_REL(c.net_msgs_per_step, 4.0, 1e-12);
  pol.inter_msg_s = 0.0; /* without it, the steps' 5115 us and their 4 KiB messages */
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 8 * MIB, g, PL_ALGO_RING, PL_PROTO_LL,
                                  &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, (6.6 + 5450.21664 + 0.8192) * US, 1e-6);
}

/* The proxy thread's per-message bound (src/net/proxy_msg.c), hand-derived
 * on alcf-polaris, ring all_gather on 2 nodes x 4 GPUs (n = 8, 7 steps, 4
 * channels). With a
 * message cost m the call is base + max(NCCL's terms, 7 x messages x m),
 * so where the proxy binds, doubling m adds exactly 7 x messages x m:
 * - LL, 1 MiB: nc = min(4, 1 MiB / (512 x 8 x 8)) = 4; a rank's share of a
 *   channel 1 MiB / 32 = 32 KiB = one 32 KiB LL chunk: 1 loop, 4 messages
 *   a step; m = 10 -> 20 us adds 7 x 4 x 10 = 280 us.
 * - LL, 2 MiB: 64 KiB a share, 2 loops, 8 messages: 7 x 8 x 10 = 560 us.
 * - Simple, 32 MiB: 1 MiB a share, under the 2 MiB chunk: 1 loop of
 *   2 slices (CHUNKSTEPS / SLICESTEPS), 8 messages; m = 40 -> 80 us adds
 *   7 x 8 x 40 = 2240 us (NCCL's terms, ~1 ms, are under both).
 * The preset carries 2.86 us (session 12, pol12: half of the published
 * Polaris Margo round trip, data/clusters/alcf-polaris.json). At LL 4 MiB a
 * share is 4 MiB / 32 = 128 KiB, 4 loops, 16 messages a step, so the
 * preset's bound is 7 x 16 x 2.86 = 320.32 us and twice the cost adds exactly
 * that (the bound binds at the preset's figure); a zero cost is below it.
 * And on one node there is no network message: no change. */
static void proxy_messages(void) {
  struct pl_cluster pol, m10, m20, m40, m80;
  struct pl_coll_cost a, b;
  CHECK_EQ_INT(pl_cluster_load("alcf-polaris", &pol, NULL), PL_OK);
  CHECK_NEAR_REL(pol.inter_msg_s, 2.86 * US, 1e-12);
  m10 = m20 = m40 = m80 = pol;
  m10.inter_msg_s = 10 * US;
  m20.inter_msg_s = 20 * US;
  m40.inter_msg_s = 40 * US;
  m80.inter_msg_s = 80 * US;
  struct pl_group two = {8, 4}, one = {4, 4};
  CHECK_EQ_INT(pl_coll_time_proto(&m10, PL_COLL_ALL_GATHER, 1 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&m20, PL_COLL_ALL_GATHER, 1 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 280 * US, 1e-9);
  CHECK_NEAR_REL(b.net_msgs_per_step, 4.0, 1e-12); /* the 4 messages above, as reported */
  CHECK_EQ_INT(pl_coll_time_proto(&m10, PL_COLL_ALL_GATHER, 2 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&m20, PL_COLL_ALL_GATHER, 2 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 560 * US, 1e-9);
  CHECK_EQ_INT(pl_coll_time_proto(&m40, PL_COLL_ALL_GATHER, 32 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_SIMPLE, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&m80, PL_COLL_ALL_GATHER, 32 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_SIMPLE, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 2240 * US, 1e-9);
  CHECK_NEAR_REL(b.net_msgs_per_step, 8.0, 1e-12); /* 4 channels x 1 loop x 2 slices */
  /* the preset's 2.86 us binds at LL 4 MiB: doubling it adds 320.32 us */
  CHECK_EQ_INT(pl_coll_time_proto(&pol, PL_COLL_ALL_GATHER, 4 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &a), PL_OK);
  m10.inter_msg_s = 2.0 * pol.inter_msg_s;
  CHECK_EQ_INT(pl_coll_time_proto(&m10, PL_COLL_ALL_GATHER, 4 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 320.32 * US, 1e-9);
  m10.inter_msg_s = 0.0;
  CHECK_EQ_INT(pl_coll_time_proto(&m10, PL_COLL_ALL_GATHER, 4 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_LL, &b), PL_OK);
  CHECK(b.time_s < a.time_s);
  /* one node sends nothing over the network */
  CHECK_EQ_INT(pl_coll_time(&pol, PL_COLL_ALL_GATHER, 32 * MIB, one, PL_ALGO_AUTO, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&m80, PL_COLL_ALL_GATHER, 32 * MIB, one, PL_ALGO_AUTO, &b), PL_OK);
  CHECK(a.time_s == b.time_s);
  CHECK(b.net_msgs_per_step == 0.0); /* and reports no network message */
  /* One message a step (sling19's form, rebuilt in session 25): 540 nodes x
   * 4 GPUs, LL ring all_gather of 2 and 4 MiB runs on 1 channel (8 x 2,160 x
   * 512 B = 8.4 MiB per channel, NCCL's LL thread threshold) and 1 loop
   * (971 / 1,942 B a rank), so each step is one message: the proxy posts it
   * only once the GPU has written the whole step (store and forward), and
   * the step's bytes cross at the channel's LL rate, 0.5 x (1 channel x 0.4
   * x 25 GB/s) = 5 GB/s (NCCL's LL busBw, the channel's NIC share). With 1 ms
   * a message the bound binds: 2 -> 4 MiB adds 2,159 steps x 971 B / 5 GB/s
   * x 2,160/2,159 (the step's bytes at algbw) plus the fill's 2 MiB / 2,160
   * / 5 GB/s = 2 MiB / 5 GB/s = 419.4304 us (the post alone: only the
   * fill's 0.19 us); 1 -> 2 ms a message adds 2,159 x 1 ms. */
  struct pl_group big = {2160, 4};
  m10.inter_msg_s = 1e-3;
  m20.inter_msg_s = 2e-3;
  CHECK_EQ_INT(pl_coll_time_proto(&m10, PL_COLL_ALL_GATHER, 2 * MIB, big, PL_ALGO_RING,
                                  PL_PROTO_LL, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&m10, PL_COLL_ALL_GATHER, 4 * MIB, big, PL_ALGO_RING,
                                  PL_PROTO_LL, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 419.4304 * US, 1e-9);
  CHECK_EQ_INT(pl_coll_time_proto(&m20, PL_COLL_ALL_GATHER, 2 * MIB, big, PL_ALGO_RING,
                                  PL_PROTO_LL, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 2159e-3, 1e-9);
}

/* CollNet / IB SHARP (collnet.c, NCCL 2.21.5 and 2.29.2 tuning.cc), on
 * dgx-h100 with 'sharp' on. CollNetDirect all_gather, 484 ranks at 2 per
 * node (MLPerf GPT-3's data-parallel groups): each rank its own 50 GB/s NIC,
 * busBw = 2 x 50 x 0.9 = 90 GB/s used as algbw; latency 2 x (min(1, 1) x
 * 3.7 + 1 x 0.4) + 31 = 39.2 us. One rank per node (1024 nodes): 50 x 0.9 =
 * 45 GB/s, latency 0 + hwLat[NET][Tree][Simple] 14 us (ppn 1: exposed).
 * CollNetChain all_reduce, 12 nodes x 8 (the CoreWeave SHARP log): algbw =
 * min(370.8 / 2, 400) = 185.4 GB/s (every byte twice over NVLink: up the
 * chain and back down), latency 2 x 7 x 2.8 + 30 = 69.2 us. */
static void collnet(void) {
  struct pl_cluster sh = h100;
  struct pl_coll_cost c;
  struct pl_group dp = {484, 2}, one = {1024, 1}, twelve = {96, 8};
  CHECK_EQ_INT(pl_coll_time(&h100, PL_COLL_ALL_GATHER, GIB, dp, PL_ALGO_COLLNET_DIRECT, &c),
               PL_ERR_UNSUPPORTED); /* no SHARP on the preset */
  sh.sharp = true;
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_ALL_GATHER, GIB, dp, PL_ALGO_COLLNET_DIRECT, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, 39.2 * US + GIB / (90 * GB), 1e-9);
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_REDUCE_SCATTER, GIB, dp, PL_ALGO_COLLNET_DIRECT, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, 39.2 * US + GIB / (90 * GB), 1e-9);
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_ALL_GATHER, 64 * MIB, one, PL_ALGO_COLLNET_DIRECT, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, 14 * US + 64 * MIB / (45 * GB), 1e-9);
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_ALL_REDUCE, GIB, twelve, PL_ALGO_COLLNET_CHAIN, &c),
               PL_OK);
  CHECK_NEAR_REL(c.time_s, 69.2 * US + GIB / (185.4 * GB), 1e-9);
  /* CollNetDirect with 8 ranks per node: the NICs bind (8 x 50 x 0.9 = 360
   * GB/s) before the NVLink scatter of 7/8 of the buffer (370.8 x 8 / 7 =
   * 423.8 GB/s); latency 2 x (3.7 + 7 x 0.4) + 31 = 44 us */
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_REDUCE_SCATTER, GIB, (struct pl_group){32, 8},
                            PL_ALGO_COLLNET_DIRECT, &c), PL_OK);
  CHECK_NEAR_REL(c.time_s, 44 * US + GIB / (360 * GB), 1e-9);
  /* 32 ranks per node, each with its own NIC (an NVL domain as one node): NCCL
   * runs CollNetDirect with at most 8 local ranks (src/enqueue.cc topoGetAlgoInfo,
   * maxLocalRanks > NCCL_MAX_DIRECT_ARITY + 1, v2.23.4-1 .. v2.29.7-1), and CollNetChain
   * too from 2.28.3 (absent in 2.27.7): session 27 (nvt27). */
  struct pl_cluster wide = sh;
  wide.gpus_per_node = 32;
  wide.nics_per_node = 32;
  CHECK_EQ_INT(pl_coll_time(&wide, PL_COLL_ALL_GATHER, GIB, (struct pl_group){128, 32},
                            PL_ALGO_COLLNET_DIRECT, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time(&wide, PL_COLL_ALL_REDUCE, GIB, (struct pl_group){128, 32},
                            PL_ALGO_COLLNET_CHAIN, &c), PL_ERR_UNSUPPORTED);
  struct pl_cluster wide27 = wide;
  CHECK_EQ_INT(pl_nccl_version_parse("2.27.7", &wide27.nccl_version, NULL), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&wide27, PL_COLL_ALL_GATHER, GIB, (struct pl_group){128, 32},
                            PL_ALGO_COLLNET_DIRECT, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time(&wide27, PL_COLL_ALL_REDUCE, GIB, (struct pl_group){128, 32},
                            PL_ALGO_COLLNET_CHAIN, &c), PL_OK);
  /* 8 ranks per node stay (the limit is > 8) */
  CHECK_EQ_INT(pl_coll_time(&wide, PL_COLL_ALL_GATHER, GIB, (struct pl_group){32, 8},
                            PL_ALGO_COLLNET_DIRECT, &c), PL_OK);
  /* what CollNet does not run: all_reduce on Direct, all_gather on Chain,
   * LL128, one node */
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_ALL_REDUCE, GIB, dp, PL_ALGO_COLLNET_DIRECT, &c),
               PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_ALL_GATHER, GIB, dp, PL_ALGO_COLLNET_CHAIN, &c),
               PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time_proto(&sh, PL_COLL_ALL_GATHER, GIB, dp, PL_ALGO_COLLNET_DIRECT,
                                  PL_PROTO_LL128, &c), PL_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_ALL_REDUCE, GIB, (struct pl_group){8, 8},
                            PL_ALGO_COLLNET_CHAIN, &c), PL_ERR_UNSUPPORTED);
  /* the tuner: 96 MiB over the 484-rank group, a ring pays 483 network
   * steps (483 x 14 us = 6.8 ms), CollNetDirect 39.2 us + 1.12 ms */
  CHECK_EQ_INT(pl_coll_time(&sh, PL_COLL_REDUCE_SCATTER, 96 * MIB, dp, PL_ALGO_AUTO, &c), PL_OK);
  CHECK_EQ_INT(c.algo, PL_ALGO_COLLNET_DIRECT);
  CHECK_STR(pl_coll_algo_name(PL_ALGO_COLLNET_CHAIN), "collnet_chain");
  enum pl_coll_algo a;
  CHECK_EQ_INT(pl_coll_algo_parse("collnet_direct", &a, NULL), PL_OK);
  CHECK_EQ_INT(a, PL_ALGO_COLLNET_DIRECT);
}

/* NCCL_COLLNET_ENABLE=1 adds half the coll channels where the CollNet chain
 * graph's bwIntra rises above bwInter (collnet.c net_collnet_channels; NCCL
 * src/graph/connect.cc ncclTopoPostset, src/graph/search.cc pass 2). DGX
 * B200, 2 nodes x 8, NCCL 2.29.7: the chain starts at 48 GB/s (sm100 list 96,
 * 80, 48: the first not above the 50 GB/s rail), pass 2 lifts bwIntra to 80
 * (8 chain channels x 80 = 640 <= 721.8 GB/s NVLink), so the ring's 16 coll
 * channels become 16 + 8 = 24, and its network rate min(400, 24 x 0.4 x 50 =
 * 480) = 400 GB/s instead of min(400, 16 x 0.4 x 50) = 320. A forced ring
 * all_gather of 8 and 16 GiB (full 2 MiB chunks: same latency and fill, the
 * hop hidden by the slices) then differs by 8 GiB x 15/16 / 400 GB/s =
 * 20.133 ms, against 8 GiB x 15/16 / 320 GB/s = 25.166 ms without SHARP, with
 * NCCL 2.29.3 (sm100 list 96, 48: 8 x 96 = 768 > 721.8, no lift) and on DGX
 * H100 (sm90 list tops at 48: nothing to lift to). */
static void collnet_channels(void) {
  struct pl_cluster b200, h = h100;
  struct pl_coll_cost a, b;
  struct pl_group two = {16, 8};
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("dgx-b200", &b200, &d), PL_OK, dp);
  double wide = 8 * GIB * 15.0 / 16.0 / (400 * GB), narrow = 8 * GIB * 15.0 / 16.0 / (320 * GB);
  const struct {
    const char *version;
    bool sharp, hopper;
  } cases[] = {{"2.29.7", true, false}, {"2.29.7", false, false}, {"2.29.3", true, false},
               {"2.29.7", true, true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct pl_cluster c = cases[i].hopper ? h : b200;
    CHECK_STATUS(pl_nccl_version_parse(cases[i].version, &c.nccl_version, &d), PL_OK, dp);
    c.sharp = cases[i].sharp;
    CHECK_EQ_INT(pl_coll_time(&c, PL_COLL_ALL_GATHER, 8 * GIB, two, PL_ALGO_RING, &a), PL_OK);
    CHECK_EQ_INT(pl_coll_time(&c, PL_COLL_ALL_GATHER, 16 * GIB, two, PL_ALGO_RING, &b), PL_OK);
    CHECK_NEAR_REL(b.time_s - a.time_s, i == 0 ? wide : narrow, 1e-9);
  }
}

/* A tree across GB200 NVL72 racks streams at NCCL's per-channel tree figure
 * (docs/collectives.md, "Session 9 (nvls9)"): 20 racks x 72, Simple, on the
 * 32 network channels of 72 rails (16 rings of 48 GB/s, not duplicated,
 * doubled): busBw = min(721.8 NVLink, min(3600, 32 x 0.4 x 50 = 640)) x
 * 0.92 = 588.8, capped by perChMaxTreeBws[Blackwell][>= 4 nodes] = 24.0
 * (NCCL 2.28-2.29 src/graph/tuning.cc) per graph channel, 32 / 2 = 16 of
 * them: 384 GB/s, algbw 192 GB/s. 8 and 16 GiB share latency, fill (512
 * KiB chunks on 32 channels) and the correction factor (1 above 256 MiB),
 * so their difference is 8 GiB / 192 GB/s = 44.739 ms. */
static void tree_racks(void) {
  struct pl_cluster gb;
  struct pl_coll_cost a, b;
  struct pl_group racks = {1440, 72};
  CHECK_EQ_INT(pl_cluster_load("gb200-nvl72", &gb, NULL), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&gb, PL_COLL_ALL_REDUCE, 8 * GIB, racks, PL_ALGO_TREE,
                                  PL_PROTO_SIMPLE, &a), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&gb, PL_COLL_ALL_REDUCE, 16 * GIB, racks, PL_ALGO_TREE,
                                  PL_PROTO_SIMPLE, &b), PL_OK);
  CHECK_NEAR_REL(b.time_s - a.time_s, 8 * GIB / (192 * GB), 1e-9);
}

/* pl_group_strided (src/net/group.c), by hand. DGX H100 (8 GPUs per node):
 * a tp group of 8 (stride 1) is one node of 8; a dp group of 16 strided by
 * tp 8 has 8 / 8 = 1 rank per node, 16 nodes; a cp group of 2 strided by
 * tp 2 sits in one node (min(2, 8 / 2 = 4) = 2). GB200 on 64-GPU NVLink
 * segments, tp 4 cp 2 pp 8 over 2,496 GPUs (MLPerf v5.0): dp = 39 strided
 * by tp * cp = 8 has 64 / 8 = 8 ranks per segment; 39 = 4 * 8 + 7, so the
 * group is priced as ceil(39 / 8) = 5 full segments of 8 = 40 ranks. */
static void group_strided(void) {
  struct pl_group g = pl_group_strided(8, 1, 8);
  CHECK_EQ_INT(g.ranks, 8);
  CHECK_EQ_INT(g.ranks_per_node, 8);
  g = pl_group_strided(16, 8, 8);
  CHECK_EQ_INT(g.ranks, 16);
  CHECK_EQ_INT(g.ranks_per_node, 1);
  g = pl_group_strided(2, 2, 8);
  CHECK_EQ_INT(g.ranks, 2);
  CHECK_EQ_INT(g.ranks_per_node, 2);
  g = pl_group_strided(39, 8, 64);
  CHECK_EQ_INT(g.ranks, 40);
  CHECK_EQ_INT(g.ranks_per_node, 8);
  g = pl_group_strided(1, 8, 8); /* one rank: itself */
  CHECK_EQ_INT(g.ranks, 1);
  CHECK_EQ_INT(g.ranks_per_node, 1);
}

/* A communicator's CTA cap (pl_coll_time_capped, src/net/ctas.c; NCCL's
 * ncclTopoPostset nChannels = min(..., config.maxCTAs)). */
static void cta_cap(void) {
  struct pl_group g = {8, 8};
  struct pl_coll_cost a = {0}, b = {0};
  /* no cap, and a cap at or above the 24 channels: the uncapped call */
  CHECK_EQ_INT(pl_coll_time_shared(&h100, PL_COLL_ALL_GATHER, 8 * GIB, g, 8, PL_ALGO_AUTO, &a),
               PL_OK);
  CHECK_EQ_INT(pl_coll_time_capped(&h100, PL_COLL_ALL_GATHER, 8 * GIB, g, 8, 0, PL_ALGO_AUTO, &b),
               PL_OK);
  CHECK_NEAR_REL(b.time_s, a.time_s, 1e-12);
  CHECK_EQ_INT(pl_coll_time_capped(&h100, PL_COLL_ALL_GATHER, 8 * GIB, g, 8, 32, PL_ALGO_AUTO, &b),
               PL_OK);
  CHECK_NEAR_REL(b.time_s, a.time_s, 1e-12);
  /* cap 8 of 24 channels, one node, 8 GiB ring Simple (ring_one_node): the
   * tuner still picks ring Simple on the 24-channel graph; the call runs on
   * 8 channels, each 1/24 of 370.8 GB/s: transfer 8 GiB x 7/8 at 123.6
   * GB/s; latency 32.2 us; fill one 2 MiB chunk on each of 8 channels at
   * 123.6 GB/s (the same 135.7 us as 24 at 370.8). */
  CHECK_EQ_INT(pl_coll_time_capped(&h100, PL_COLL_ALL_GATHER, 8 * GIB, g, 8, 8, PL_ALGO_AUTO, &b),
               PL_OK);
  CHECK_EQ_INT(b.algo, a.algo);
  CHECK_EQ_INT(b.proto, a.proto);
  CHECK_NEAR_REL(b.time_s,
                 32.2 * US + 8 * GIB * 7.0 / (8.0 * 123.6 * GB) + 2 * MIB * 8 / (123.6 * GB), 1e-9);
  /* across 8 nodes (one rank per GPU, 16 coll channels): the cap 8 drives
   * each of the 8 rails with one channel, 0.4 of its 50 GB/s
   * (NET_CHANNEL_NIC_FRACTION), 160 GB/s for the node instead of
   * 16 x 0.4 x 50 = 320: a large all_gather's time about doubles */
  struct pl_group m = {64, 8};
  CHECK_EQ_INT(pl_coll_time_shared(&h100, PL_COLL_ALL_GATHER, 8 * GIB, m, 8, PL_ALGO_RING, &a),
               PL_OK);
  CHECK_EQ_INT(pl_coll_time_capped(&h100, PL_COLL_ALL_GATHER, 8 * GIB, m, 8, 8, PL_ALGO_RING, &b),
               PL_OK);
  CHECK(b.time_s / a.time_s > 1.9 && b.time_s / a.time_s < 2.0);
  CHECK_EQ_INT(pl_coll_time_capped(&h100, PL_COLL_ALL_GATHER, 8 * GIB, m, 8, -1, PL_ALGO_RING, &b),
               PL_ERR_RANGE);
}

int main(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &h100, &d), PL_OK, dp);
  ring_one_node();
  ring_two_nodes();
  nvls_tree_rank_pre228();
  ring_nvlink_share();
  ring_steps_every_g();
  ring_step_message_wire();
  tree();
  nvls();
  nvls_rack();
  nvls_gpu_counts();
  nvls_blackwell_node();
  nvls_b300_node();
  p2p();
  tuner_choices();
  tuner_cloud();
  a100_one_node();
  cloud_chunks();
  study_trend();
  monotone_and_errors();
  names_and_factors();
  latency_scaling();
  shared_nics();
  concurrent_groups();
  polaris_ll128_path();
  channels_per_call();
  proxy_messages();
  pat();
  collnet();
  collnet_channels();
  tree_racks();
  group_strided();
  cta_cap();
  return check_finish();
}
