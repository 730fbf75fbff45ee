/* coll.h: the time of one NCCL/RCCL collective on a cluster.
 *
 * Sizes follow nccl-tests' size column: the whole buffer (for all_gather the
 * gathered output, for reduce_scatter the input), in bytes. Bus bandwidth
 * conventions are nccl-tests doc/PERFORMANCE.md: all_reduce 2(n-1)/n,
 * all_gather / reduce_scatter / all_to_all (n-1)/n, broadcast and send/recv 1.
 * pl_coll_time allocates nothing: the step simulator calls it millions of times.
 * Ownership: plain values owned by the caller. */
#ifndef PLATEAU_COLL_H
#define PLATEAU_COLL_H

#include <stdint.h>
#include "hw.h"
#include "status.h"

enum pl_coll_op {
  PL_COLL_ALL_REDUCE,
  PL_COLL_ALL_GATHER,
  PL_COLL_REDUCE_SCATTER,
  PL_COLL_ALL_TO_ALL,
  PL_COLL_BROADCAST,
  PL_COLL_SEND_RECV,
  PL_COLL_N_OPS
};

/* NVLS_TREE: NVLS inside each node, a tree between nodes (NCCL >= 2.18,
 * all_reduce on NVLS systems over more than one node). P2P: the grouped
 * send/recv NCCL uses for send_recv and all_to_all. */
enum pl_coll_algo {
  PL_ALGO_AUTO,
  PL_ALGO_RING,
  PL_ALGO_TREE,
  PL_ALGO_NVLS,
  PL_ALGO_NVLS_TREE,
  PL_ALGO_P2P,
  PL_ALGO_PAT, /* NCCL >= 2.23: all_gather / reduce_scatter with one rank per node */
  PL_ALGO_COLLNET_DIRECT, /* IB SHARP (cluster 'sharp'): all_gather / reduce_scatter, NCCL >= 2.20 */
  PL_ALGO_COLLNET_CHAIN,  /* IB SHARP (cluster 'sharp'): all_reduce */
  PL_ALGO_N
};
enum pl_coll_proto { PL_PROTO_LL, PL_PROTO_LL128, PL_PROTO_SIMPLE, PL_PROTO_N };

/* Where a communicator's ranks sit: ranks in all, ranks_per_node of them in
 * each node (a dp group strided over tp=8 ranks on 8-GPU nodes has
 * ranks_per_node = 1). nodes = ranks / ranks_per_node. */
struct pl_group {
  int64_t ranks;
  int64_t ranks_per_node;
};

/* The group of `ranks` members `stride` ranks apart on nodes of
 * gpus_per_node GPUs, in Megatron-LM's rank order (src/net/group.c): one
 * rule for the step simulator and the search bound. A group that its
 * per-node share does not divide is priced as whole nodes of that share. */
struct pl_group pl_group_strided(int64_t ranks, int64_t stride, int64_t gpus_per_node);

struct pl_coll_cost {
  double time_s;              /* one call, start of the first rank to end of the last */
  enum pl_coll_algo algo;     /* what was used (AUTO resolved as NCCL's tuner would) */
  enum pl_coll_proto proto;
  double channels;            /* channels the call runs on (NCCL's topoGetAlgoInfo rule) */
  double net_msgs_per_step;   /* a ring across nodes: network messages one ring step posts per
                                 proxy thread (channels x loops, x 2 for Simple; src/net/
                                 proxy_msg.c); 0 for any other call */
};

/* Time of one call. Returns PL_ERR_RANGE for an impossible group or size and
 * PL_ERR_UNSUPPORTED when a forced algo cannot run this op on this cluster;
 * pl_coll_check says why in words. A 1-rank group costs 0 s. */
enum pl_status pl_coll_time(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                            struct pl_group g, enum pl_coll_algo algo, struct pl_coll_cost *out);

/* The same inside a training step, where sibling groups communicate at
 * once: active_per_node GPUs of each node (this group's ranks and, say, the
 * other tp ranks' dp groups) share the node's NICs; pl_coll_time is the
 * group alone, as nccl-tests runs it. Nothing changes for a group inside one
 * node or where every GPU has its own NIC; where two GPUs share one, each
 * gets half. active_per_node below ranks_per_node counts as ranks_per_node,
 * above the node's GPUs as all of them; negative is PL_ERR_RANGE. */
enum pl_status pl_coll_time_shared(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                   struct pl_group g, int64_t active_per_node,
                                   enum pl_coll_algo algo, struct pl_coll_cost *out);

/* pl_coll_time_shared on a communicator whose NCCL config caps its CTAs
 * (ncclConfig_t maxCTAs, the per-process-group max_ctas of Megatron-Core's
 * --nccl-communicator-config-path): the call runs on at most max_ctas
 * channels (NCCL's ncclTopoPostset and nvls.cc clamp the communicator's
 * channels at init; the tuner still ranks on the search graphs). max_ctas
 * <= 0: no cap (pl_coll_time_shared). src/net/ctas.c, docs/collectives.md
 * "Per-communicator CTA caps". */
enum pl_status pl_coll_time_capped(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                   struct pl_group g, int64_t active_per_node, int64_t max_ctas,
                                   enum pl_coll_algo algo, struct pl_coll_cost *out);

/* Same validation as pl_coll_time, with the reason in diag. */
enum pl_status pl_coll_check(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                             struct pl_group g, enum pl_coll_algo algo, struct pl_diag *diag);

/* Time with both algo and protocol forced (proto < PL_PROTO_N); returns
 * PL_ERR_UNSUPPORTED when that pair cannot run. Used by calibration and tests. */
enum pl_status pl_coll_time_proto(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                  struct pl_group g, enum pl_coll_algo algo,
                                  enum pl_coll_proto proto, struct pl_coll_cost *out);

/* nccl-tests busbw factor for op over n ranks. */
double pl_coll_bus_factor(enum pl_coll_op op, int64_t n);

const char *pl_coll_op_name(enum pl_coll_op op);          /* "all_gather" */
const char *pl_coll_algo_name(enum pl_coll_algo a);       /* "ring" */
const char *pl_coll_proto_name(enum pl_coll_proto p);     /* "LL128" */
enum pl_status pl_coll_op_parse(const char *s, enum pl_coll_op *out, struct pl_diag *diag);
enum pl_status pl_coll_algo_parse(const char *s, enum pl_coll_algo *out, struct pl_diag *diag);
/* busbw in bytes/s of a call that moved `bytes` (nccl-tests size) in time_s. */
double pl_coll_busbw(enum pl_coll_op op, int64_t n, double bytes, double time_s);

#endif
