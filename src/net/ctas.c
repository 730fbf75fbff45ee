/* ctas.c: a communicator's CTA cap (ncclConfig_t maxCTAs), and the channels
 * a call on it runs on.
 *
 * NCCL builds a communicator's channels once, at init, and clamps them to its
 * config (NCCL 2.21-2.29):
 *  - coll channels: ncclTopoPostset (src/graph/connect.cc, "Honor
 *    NCCL_MIN_NRINGS/NCCL_MAX_NRINGS") sets nChannels = min(ncclMaxNchannels(),
 *    nChannels, config.maxCTAs), then copies channels up to
 *    max(ncclMinNchannels(), config.minCTAs) ("We permit combining max, then
 *    min, to only use the first channels, then duplicate them");
 *  - NVLS channels: src/transport/nvls.cc (ncclNvlsInit) nvlsChannels =
 *    max(config.minCTAs, min(config.maxCTAs, NVLS default));
 *  - p2p channels: ncclTopoComputeP2pChannels (src/graph/paths.cc) starts
 *    from comm->nChannels ("here we already honor comm->max/minCTAs").
 * The tuner (src/graph/tuning.cc ncclTopoTuneModel) ranks algorithms on the
 * search graphs (graphs[a]->nChannels, not capped); topoGetAlgoInfo
 * (src/enqueue.cc) then runs the call on comm->nChannels or
 * comm->nvlsChannels. So the cap leaves the ranking alone and bounds the
 * channels the charged call runs on (tuner.c choose, cx.nc) and the NVLS
 * channels.
 *
 * The environment beats the config: envConfigOverride (src/init.cc) resets
 * config.minCTAs / maxCTAs to NCCL_MIN_CTAS / NCCL_MAX_CTAS where those are
 * set, and a minCTAs above maxCTAs is lowered to it (parseCommConfig, "minCTAs
 * %d is larger than maxCTAs %d, set both"). The cap this file takes is the
 * one left after those rules, with NCCL_MIN_NCHANNELS' floor folded in (the
 * caller's, docs/collectives.md "Per-communicator CTA caps"). */
#include "net/net_int.h"

#include <math.h>

/* The charged call's channels under the cap: its coll channels (nc, from
 * topoGetAlgoInfo's count, tuner.c call_channels) and the NVLS channels
 * (nvls.c, nvls_tree.c). No cap (max_ctas 0): unchanged. */
void net_ctas_charge(struct net_ctx *cx) {
  if (!(cx->max_ctas > 0.0))
    return;
  cx->nc = fmin(cx->nc, cx->max_ctas);
  cx->nvls_channels = fmin(cx->nvls_channels, cx->max_ctas);
  cx->nvls_node_channels = fmin(cx->nvls_node_channels, cx->max_ctas);
}
