/* test_cluster_roundtrip.c: every cluster preset written by pl_cluster_save
 * (the writer behind plateau calibrate nccl / trace, src/hw/cluster_save.c)
 * and read back by pl_cluster_load describes the same machine: the same
 * GPU, node, CPU vendor and NCCL release (the keys the NCCL 2.29 ranking of
 * session 27 reads: nccl_version, cpu_vendor), and the same collective time
 * and algorithm for every op at 1 KiB - 4 GiB on 1, 2 and 16 nodes. The file
 * writes figures with 6 significant digits ("%.6g"), so times agree to 1e-4. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <plateau/coll.h>
#include <plateau/data.h>
#include <plateau/hw.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static void roundtrip(const char *name, const char *tmp) {
  struct pl_cluster c, back;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load(name, &c, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_save(&c, tmp, NULL, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load(tmp, &back, &d), PL_OK, dp);
  remove(tmp);
  CHECK_STR(back.name, c.name);
  CHECK_STR(back.gpu.name, c.gpu.name);
  CHECK_STR(back.cpu_vendor, c.cpu_vendor);
  CHECK_EQ_INT(back.gpus_per_node, c.gpus_per_node);
  CHECK_EQ_INT(back.nccl_version, c.nccl_version);
  CHECK_STR(back.nccl_tuner, c.nccl_tuner); /* aws-p5: the aws-ofi-nccl plugin's map */
  CHECK_EQ_INT(back.nccl_channels, c.nccl_channels);
  CHECK_EQ_INT(back.nvls, c.nvls);
  static const double sizes[] = {1024.0, 1048576.0, 268435456.0, 4294967296.0};
  static const int64_t nodes[] = {1, 2, 16};
  for (int op = 0; op < PL_COLL_N_OPS; op++)
    for (size_t n = 0; n < sizeof nodes / sizeof nodes[0]; n++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct pl_group g = {nodes[n] * c.gpus_per_node, c.gpus_per_node};
        if (c.nics_per_node <= 0 && nodes[n] > 1)
          continue; /* a one-node machine */
        struct pl_coll_cost a, b;
        enum pl_status sa = pl_coll_time(&c, (enum pl_coll_op)op, sizes[s], g, PL_ALGO_AUTO, &a);
        enum pl_status sb =
            pl_coll_time(&back, (enum pl_coll_op)op, sizes[s], g, PL_ALGO_AUTO, &b);
        CHECK_EQ_INT(sb, sa);
        if (sa != PL_OK || sb != PL_OK)
          continue;
        CHECK_EQ_INT(b.algo, a.algo);
        CHECK_NEAR_REL(b.time_s, a.time_s, 1e-4);
      }
}

int main(void) {
  char tmp[512];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/plateau-test-cluster-roundtrip-%ld.json", dir ? dir : "/tmp",
           (long)getpid());
  size_t n = 0;
  for (const char *name; (name = pl_data_name("clusters", n)) != NULL; n++)
    roundtrip(name, tmp);
  CHECK(n >= 10); /* every preset of data/clusters/ */
  return check_finish();
}
