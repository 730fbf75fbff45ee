/* cluster_place.c: where a job's GPUs sit on a cluster whose nodes can be
 * cut (an NVL72 rack placed in NVLink segments of whole trays). */
#include <plateau/hw.h>

int64_t pl_cluster_place(struct pl_cluster *c, int64_t gpus) {
  int64_t unit = c->segment_gpus, node = c->gpus_per_node;
  if (unit <= 0 || node <= 0 || gpus <= node || gpus % node == 0)
    return 0;
  int64_t seg = node - node % unit;
  while (seg > unit && gpus % seg != 0)
    seg -= unit;
  if (gpus % seg != 0)
    return 0; /* not a whole number of trays: the caller's own check says why */
  c->nics_per_node = c->nics_per_node * seg / node;
  c->gpus_per_node = seg;
  return seg;
}
