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
 * above.
 *
 * all_to_all keeps every NIC of a node busy with its ranks' remote shares at
 * once, so each NIC runs at its peak rate, which on InfiniBand and RoCE is
 * 96 % of the line rate (net_nic_peak_fraction). Ring, tree and NVLS_TREE
 * stay below that peak: each of their channels drives at most
 * NET_CHANNEL_NIC_FRACTION (0.4) of a NIC (net_int.h). */
#include "net/net_int.h"

#include <math.h>
#include <string.h>

/* The payload rate one NIC reaches at most, as a fraction of its line rate.
 * NCCL's maintainers give the same figure for three InfiniBand generations:
 *  - "We usually consider 24GB/s is the peak performance per 200G NIC
 *    (12 GB/s for 100G NICs)" (S. Jeaugey, NVIDIA/nccl-tests #119,
 *    2022-11-17);
 *  - "CX-7 NICs at NDR rate (400Gbps) should achieve up to 48-49GB/s per
 *    NIC", answering an alltoall question on RoCE (NVIDIA/nccl-tests #267,
 *    2025-01-23);
 *  - "You should achieve around 48GB/s from each CX7 NIC at 400Gbps"
 *    (NVIDIA/nccl-tests #319, 2025-06-11).
 * 24 / 25 = 12 / 12.5 = 48 / 50 = 0.96. No such figure is published for
 * EFA, Slingshot, Omni-Path or GPUDirect-TCPXO: their line rate is kept. */
#define NET_IB_NIC_PEAK_FRACTION 0.96

static double net_nic_peak_fraction(const struct net_ctx *x) {
  const char *k = x->c->inter_kind;
  return strcmp(k, "infiniband") == 0 || strcmp(k, "roce") == 0 ? NET_IB_NIC_PEAK_FRACTION : 1.0;
}

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
    double peak = net_nic_peak_fraction(x);
    t = fmax(t, (n - g) / n * bytes / (x->b_net_rank * peak));
    t = fmax(t, g * (n - g) / n * bytes / (x->b_net_node * peak));
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
