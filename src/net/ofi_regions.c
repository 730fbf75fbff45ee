/* ofi_regions.c: the aws-ofi-nccl tuner plugin's region map for AWS P5/P5e
 * (cluster field "nccl_tuner": "aws-ofi-nccl-p5"; docs/collectives.md,
 * "Cloud fabrics"). The plugin is built into the EFA net plugin, and NCCL
 * 2.21 and later load a tuner from the net plugin's library when
 * NCCL_TUNER_PLUGIN is unset (aws-ofi-nccl src/Makefile.am: "By bundling the
 * tuner in the net plugin, we cause the tuner to be used by default on NCCL
 * 2.21 or later"; NVIDIA/nccl src/plugin/tuner.cc ncclGetNetPluginLib). It
 * picks the region tuner over its model tuner on P5 (src/tuner/
 * nccl_ofi_tuner.cpp "Choose Region over Model"), leaves groups of <= 2
 * nodes to NCCL ("Skip when two nodes or lesser"), and otherwise forces the
 * (algorithm, protocol) of the first region, in the listed order, that
 * contains the call's point (nBytes, nRanks) in log2-log2 space and whose
 * pair NCCL has enabled (region_get_coll_info_internal_v3: a pair NCCL_ALGO
 * or NCCL_PROTO excludes is NCCL_ALGO_PROTO_IGNORE in the cost table, so the
 * walk goes on; only NCCL 2.21's v2 init steps aside for them, src/tuner/
 * nccl_ofi_tuner.cpp); points in no region fall back to NCCL's own choice.
 *
 * Vertices: aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp
 * region_init_internal_p5_p5e @ 2daf7d30 (2026-08-21). The 8- and 2-ranks-
 * per-node maps are the same from v1.13.0-aws (2024-11-18) through that
 * commit; the 1-rank-per-node all_reduce tree/LL128 region gained its
 * closing vertex {0, TUNER_MAX_RANKS} in 1254f140 (2026-02-04, "region point
 * fix"). Geometry (extend_region, is_inside_region with its edge test,
 * bounding box and ray cast to a far point) is ported as written there. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "net/net_int.h"

#define OFI_MAX_RANKS (1024.0 * 1024.0)           /* TUNER_MAX_RANKS */
#define OFI_MAX_SIZE (100.0 * 1024 * 1024 * 1024) /* TUNER_MAX_SIZE */
#define OFI_MAX_VERTICES 20                       /* TUNER_MAX_NUM_VERTICES */
#define OFI_EPS 1e-10                             /* is_inside_region's eps */

struct pt {
  double x, y;
};

/* a vertex: either a literal (bytes, ranks) or an extend_region(a, b, max) */
struct vtx {
  double x, y;
  int ext; /* 0: literal; k > 0: the k-th extension of the map */
};

struct ext {
  struct pt a, b;
};

struct region {
  enum pl_coll_algo algo;
  enum pl_coll_proto proto;
  int nv;
  struct vtx v[OFI_MAX_VERTICES];
};

struct map {
  int ranks_per_node; /* nRanks == k * nNodes */
  enum pl_coll_op op;
  int n_ext;
  struct ext e[4];
  int n_regions;
  const struct region *r;
};

static struct pt to_log2(struct pt p) {
  /* transform_log2: 0 becomes 1e-6 before log2 */
  return (struct pt){log2(p.x == 0.0 ? 1e-6 : p.x), log2(p.y == 0.0 ? 1e-6 : p.y)};
}

/* extend_region(a, b, z = {MAX_SIZE, MAX_RANKS}) in log2 space: the point of
 * line ab at z's x, or at z's y where the line reaches it first */
static struct pt extend(struct pt a, struct pt b) {
  struct pt z = to_log2((struct pt){OFI_MAX_SIZE, OFI_MAX_RANKS});
  a = to_log2(a);
  b = to_log2(b);
  if (a.x == b.x)
    return (struct pt){a.x, z.y};
  if (a.y == b.y)
    return (struct pt){z.x, a.y};
  double m = (a.y - b.y) / (a.x - b.x);
  double c = b.y - m * b.x;
  double zy = m * z.x + c;
  if (zy < z.y)
    return (struct pt){z.x, zy};
  return (struct pt){(z.y - c) / m, z.y};
}

static struct pt vsub(struct pt a, struct pt b) { return (struct pt){a.x - b.x, a.y - b.y}; }
static double vcross(struct pt a, struct pt b) { return a.x * b.y - a.y * b.x; }

/* intersect(): 1 the segments cross, -1 not, 0 the crossing is at y0 or y1 */
static int intersect(struct pt x0, struct pt x1, struct pt y0, struct pt y1, struct pt *sect) {
  struct pt dx = vsub(x1, x0), dy = vsub(y1, y0);
  double d = vcross(dy, dx);
  if (fabs(d) < OFI_EPS)
    return 0;
  long double a = (long double)(vcross(x0, dx) - vcross(y0, dx)) / d;
  if (sect)
    *sect = (struct pt){y0.x + (double)(a * dy.x), y0.y + (double)(a * dy.y)};
  if (a < -OFI_EPS || a > 1 + OFI_EPS)
    return -1;
  if (a < OFI_EPS || a > 1 - OFI_EPS)
    return 0;
  a = (vcross(x0, dy) - vcross(y0, dy)) / d;
  if (a < 0 || a > 1)
    return -1;
  return 1;
}

static double edge_distance(struct pt x, struct pt y0, struct pt y1) {
  struct pt dy = vsub(y1, y0), s = {0, 0};
  struct pt x1 = {x.x + dy.y, x.y - dy.x};
  if (intersect(x, x1, y0, y1, &s) == -1)
    return HUGE_VAL;
  s = vsub(s, x);
  return sqrt(s.x * s.x + s.y * s.y);
}

/* is_inside_region(): >= 0 inside or on an edge, < 0 outside */
static int inside(struct pt p, const struct pt *v, int n) {
  for (int i = 0; i < n; i++)
    if (edge_distance(p, v[i], v[(i + 1) % n]) < OFI_EPS)
      return 0;
  double min_x = v[0].x, max_x = v[0].x, min_y = v[1].y, max_y = v[1].y;
  for (int i = 0; i < n; i++) {
    min_x = fmin(min_x, v[i].x);
    max_x = fmax(max_x, v[i].x);
    min_y = fmin(min_y, v[i].y);
    max_y = fmax(max_y, v[i].y);
  }
  if (p.x < min_x || p.x > max_x || p.y < min_y || p.y > max_y)
    return -1;
  struct pt e = to_log2((struct pt){2.0 * OFI_MAX_SIZE, 2.0 * OFI_MAX_RANKS});
  int crosses = 0;
  for (int i = 0; i < n; i++)
    if (intersect(p, e, v[i], v[(i + 1) % n], NULL) == 1)
      crosses++;
  return (crosses & 1) ? 1 : -1;
}

#define MS OFI_MAX_SIZE
#define MR OFI_MAX_RANKS
#define T PL_ALGO_TREE
#define R PL_ALGO_RING
#define NT PL_ALGO_NVLS_TREE
#define LL128 PL_PROTO_LL128
#define S PL_PROTO_SIMPLE
/* {x, y, 0} a vertex; {0, 0, k} extension k; {0, -1, k}: (0, extension k's y) */

/* 8 ranks per node, all_reduce. Extensions: 1 tree_ll128 = nvlstree_simple_2
 * ({402653184, 2048}, {402653184, 4096}); 2 nvlstree_simple_1 = ring_simple
 * ({8053063680, 160}, {9663676416, 192}) */
static const struct region p5_ar8[] = {
    {T,
     LL128,
     12,
     {{0, 16, 0},
      {31457280, 16, 0},
      {37748736, 32, 0},
      {117440512, 64, 0},
      {301989888, 128, 0},
      {301989888, 256, 0},
      {335544320, 512, 0},
      {536870912, 1024, 0},
      {402653184, 2048, 0},
      {402653184, 4096, 0},
      {0, 0, 1},
      {0, -1, 1}}},
    {NT, S, 3, {{31457281, 16, 0}, {MS, 16, 0}, {31457281, 16, 0}}},
    {R,
     LL128,
     11,
     {{31457280, 17, 0},
      {1073741824, 17, 0},
      {2147483648, 64, 0},
      {2147483648, 128, 0},
      {1342177280, 160, 0},
      {2147483648, 256, 0},
      {1074790400, 256, 0},
      {444596224, 160, 0},
      {301989888, 128, 0},
      {117440512, 64, 0},
      {37748736, 32, 0}}},
    {NT,
     S,
     17,
     {{2147483648, 128, 0},
      {6442450944, 128, 0},
      {8053063680, 160, 0},
      {9663676416, 192, 0},
      {0, 0, 2},
      {0, 0, 1},
      {402653184, 4096, 0},
      {402653184, 2048, 0},
      {536870912, 1024, 0},
      {335544320, 512, 0},
      {301989888, 256, 0},
      {310378496, 160, 0},
      {444596224, 160, 0},
      {1074790400, 256, 0},
      {2684354560, 256, 0},
      {2147483648, 224, 0},
      {1342177280, 160, 0}}},
    /* {extended_ring_simple.x, 17}: written as extension 2 with y 17 below */
    {R,
     S,
     7,
     {{1073741824, 17, 0},
      {0, -17, 2},
      {0, 0, 2},
      {9663676416, 192, 0},
      {8053063680, 160, 0},
      {2684354560, 64, 0},
      {1610612736, 32, 0}}},
};

/* 2 ranks per node, all_reduce. Extensions: 1 tree_ll128 ({88160256, 128},
 * {178163712, 256}); 2 tree_simple_1 = nvlstree_simple ({787480576, 128},
 * {1073741824, 256}); 3 tree_simple_2 ({257114112, 128}, {269484032, 256}) */
static const struct region p5_ar2[] = {
    {T,
     LL128,
     11,
     {{0, 4, 0},
      {1314816, 4, 0},
      {1051648, 8, 0},
      {1051648, 12, 0},
      {2367488, 16, 0},
      {5525504, 32, 0},
      {9473024, 64, 0},
      {88160256, 128, 0},
      {178163712, 256, 0},
      {0, 0, 1},
      {0, -1, 1}}},
    {R,
     LL128,
     14,
     {{1314816, 4, 0},
      {19736576, 4, 0},
      {41842688, 8, 0},
      {296747008, 64, 0},
      {257114112, 128, 0},
      {269484032, 256, 0},
      {178163712, 256, 0},
      {88160256, 128, 0},
      {9473024, 64, 0},
      {5525504, 32, 0},
      {2367488, 16, 0},
      {1051648, 12, 0},
      {1051648, 8, 0},
      {1314816, 4, 0}}},
    {NT,
     S,
     6,
     {{19736576, 4, 0},
      {81844224, 4, 0},
      {275775488, 8, 0},
      {275775488, 48, 0},
      {296747008, 64, 0},
      {41842688, 8, 0}}},
    {T, LL128, 3, {{81844224, 4, 0}, {269484032, 4, 0}, {81844224, 4, 0}}},
    {T, S, 3, {{269484032, 4, 0}, {MS, 4, 0}, {269484032, 4, 0}}},
    {R,
     S,
     10,
     {{81844224, 5, 0},
      {MS, 5, 0},
      {MS, 32, 0},
      {1073741824, 40, 0},
      {1073741824, 128, 0},
      {787480576, 128, 0},
      {296747008, 64, 0},
      {275775488, 48, 0},
      {275775488, 8, 0},
      {81844224, 5, 0}}},
    {T,
     S,
     7,
     {{296747008, 64, 0},
      {787480576, 128, 0},
      {1073741824, 256, 0},
      {0, 0, 2},
      {0, 0, 3},
      {269484032, 256, 0},
      {257114112, 128, 0}}},
    {NT,
     S,
     6,
     {{0, 0, 2},
      {1073741824, 256, 0},
      {787480576, 128, 0},
      {1073741824, 128, 0},
      {1073741824, 40, 0},
      {MS, 32, 0}}},
};

/* 1 rank per node. all_reduce extensions: 1 tree_ll128 ({9999360, 64},
 * {119477248, 128}); 2 ring_ll128 ({4736000, 2}, {269484032, 128}) */
static const struct region p5_ar1[] = {
    {T,
     LL128,
     6,
     {{0, 16, 0}, {2367488, 16, 0}, {9999360, 64, 0}, {119477248, 128, 0}, {0, 0, 1}, {0, MR, 0}}},
    {R,
     LL128,
     9,
     {{0, 2, 0},
      {4736000, 2, 0},
      {269484032, 128, 0},
      {0, 0, 2},
      {0, 0, 1},
      {119477248, 128, 0},
      {9999360, 64, 0},
      {2367488, 16, 0},
      {0, 16, 0}}},
    {R, S, 4, {{4736000, 2, 0}, {MS, 2, 0}, {0, 0, 2}, {269484032, 128, 0}}},
};
/* all_gather: extension 1 ({4194304, 2}, {8589934592, 2048}) */
static const struct region p5_ag1[] = {
    {R, S, 4, {{4194304, 2, 0}, {MS, 2, 0}, {0, 0, 1}, {8589934592, 2048, 0}}},
};
/* reduce_scatter: extension 1 ({8388608, 2}, {4294967296, 1024}) */
static const struct region p5_rs1[] = {
    {R, S, 4, {{8388608, 2, 0}, {MS, 2, 0}, {0, 0, 1}, {4294967296, 1024, 0}}},
};

#define N_OF(a) ((int)(sizeof a / sizeof a[0]))
static const struct map p5_maps[] = {
    {8,
     PL_COLL_ALL_REDUCE,
     2,
     {{{402653184, 2048}, {402653184, 4096}}, {{8053063680, 160}, {9663676416, 192}}},
     N_OF(p5_ar8),
     p5_ar8},
    {2,
     PL_COLL_ALL_REDUCE,
     3,
     {{{88160256, 128}, {178163712, 256}},
      {{787480576, 128}, {1073741824, 256}},
      {{257114112, 128}, {269484032, 256}}},
     N_OF(p5_ar2),
     p5_ar2},
    {1,
     PL_COLL_ALL_REDUCE,
     2,
     {{{9999360, 64}, {119477248, 128}}, {{4736000, 2}, {269484032, 128}}},
     N_OF(p5_ar1),
     p5_ar1},
    {1, PL_COLL_ALL_GATHER, 1, {{{4194304, 2}, {8589934592, 2048}}}, N_OF(p5_ag1), p5_ag1},
    {1, PL_COLL_REDUCE_SCATTER, 1, {{{8388608, 2}, {4294967296, 1024}}}, N_OF(p5_rs1), p5_rs1},
};

bool net_ofi_tuner_known(const char *tuner) {
  return tuner != NULL && strcmp(tuner, PL_NCCL_TUNER_AWS_OFI_P5) == 0;
}

bool net_ofi_region_next(const char *tuner, enum pl_coll_op op, double bytes, int64_t ranks,
                         int64_t nodes, int *next, enum pl_coll_algo *algo,
                         enum pl_coll_proto *proto) {
  if (!net_ofi_tuner_known(tuner) || nodes <= 2 || ranks < 1 || !(bytes >= 0.0) || !isfinite(bytes))
    return false;
  const struct map *m = NULL;
  for (size_t i = 0; i < sizeof p5_maps / sizeof p5_maps[0]; i++)
    if (p5_maps[i].op == op && ranks == (int64_t)p5_maps[i].ranks_per_node * nodes)
      m = &p5_maps[i];
  if (m == NULL)
    return false;
  struct pt ext[4];
  for (int k = 0; k < m->n_ext; k++)
    ext[k] = extend(m->e[k].a, m->e[k].b);
  struct pt p = to_log2((struct pt){bytes, (double)ranks});
  for (int i = *next; i < m->n_regions; i++) {
    const struct region *r = &m->r[i];
    struct pt v[OFI_MAX_VERTICES];
    for (int j = 0; j < r->nv; j++) {
      const struct vtx *w = &r->v[j];
      if (w->ext == 0)
        v[j] = to_log2((struct pt){w->x, w->y});
      else if (w->y == 0.0)
        v[j] = ext[w->ext - 1];
      else if (w->y == -1.0) /* {0, extension.y} */
        v[j] = (struct pt){log2(1e-6), ext[w->ext - 1].y};
      else /* {extension.x, -y} */
        v[j] = (struct pt){ext[w->ext - 1].x, log2(-w->y)};
    }
    if (inside(p, v, r->nv) >= 0) {
      *next = i + 1;
      *algo = r->algo;
      *proto = r->proto;
      return true;
    }
  }
  *next = m->n_regions;
  return false;
}
