/* p2p.c: send_recv and all_to_all, which NCCL runs as grouped point-to-point
 * operations (no ring or tree).
 *
 * send_recv follows nccl-tests sendrecv_perf: every rank sends S bytes to
 * the next rank and receives S from the previous one; across nodes the pairs
 * that cross a node boundary go through one rank's NICs, so the slowest pair
 * bounds the call. all_to_all: each rank sends S/n to every rank; of its S,
 * (g-1)/n S goes over NVLink and (n-g)/n S over its NICs, and the node's
 * NICs carry g (n-g)/n S.
 * NCCL has no tuning-table entry for P2P; plateau takes the Ring rows: base
 * latency + one hop of the farthest link kind, plus NCCL's per-post network
 * overhead (getNetOverhead) for each remote peer of all_to_all. Protocol: LL
 * up to NCCL_P2P_LL_THRESHOLD (16 KiB) per peer where LL is allowed, Simple
 * above. */
#include "net/net_int.h"

#include <math.h>

static double p2p_latency(const struct net_ctx *x, enum pl_coll_proto p) {
  double lat = net_base_lat_s(NET_T_RING, p);
  if (x->g > 1 || x->m == 1)
    lat += net_hop_lat_s(x, x->intra_hw, NET_T_RING, p);
  if (x->m > 1)
    lat += net_hop_lat_s(x, NET_HW_NET, NET_T_RING, p);
  return lat;
}

static double send_recv_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  double bw = x->m > 1 ? x->b_net_rank : x->b_intra;
  if (x->m > 1 && x->g > 1)
    bw = fmin(bw, x->b_intra);
  if (p == PL_PROTO_LL)
    bw *= 0.5;
  return p2p_latency(x, p) + bytes / bw;
}

static double all_to_all_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  double n = (double)x->n, g = (double)x->g;
  double t = 0.0;
  if (x->g > 1)
    t = (g - 1.0) / n * bytes / x->b_intra;
  if (x->m > 1) {
    t = fmax(t, (n - g) / n * bytes / x->b_net_rank);
    t = fmax(t, g * (n - g) / n * bytes / x->b_net_node);
  }
  if (p == PL_PROTO_LL)
    t *= 2.0;
  double posts = x->m > 1 ? (n - g) * x->net_overhead_s : 0.0;
  return p2p_latency(x, p) + posts + t;
}

double net_p2p_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (p == PL_PROTO_LL128)
    return -1.0;
  double per_peer = x->op == PL_COLL_ALL_TO_ALL ? bytes / (double)x->n : bytes;
  bool ll = per_peer <= NET_P2P_LL_THRESHOLD && x->proto_on[PL_PROTO_LL];
  if ((p == PL_PROTO_LL) != ll)
    return -1.0;
  if (x->op == PL_COLL_SEND_RECV)
    return send_recv_time(x, p, bytes);
  if (x->op == PL_COLL_ALL_TO_ALL)
    return all_to_all_time(x, p, bytes);
  return -1.0;
}
