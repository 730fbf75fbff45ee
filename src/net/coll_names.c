/* coll_names.c: names, parsing and the nccl-tests bus-bandwidth convention
 * (nccl-tests doc/PERFORMANCE.md: all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter and all_to_all (n-1)/n; broadcast and send/recv 1). */
#include <plateau/coll.h>

#include <ctype.h>
#include <string.h>

static const char *const op_names[PL_COLL_N_OPS] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv"};
static const char *const algo_names[PL_ALGO_N] = {"auto", "ring", "tree", "nvls", "nvls_tree",
                                                  "p2p",  "pat",
                                                  "collnet_direct", "collnet_chain"};
static const char *const proto_names[PL_PROTO_N] = {"LL", "LL128", "Simple"};

const char *pl_coll_op_name(enum pl_coll_op op) {
  return (unsigned)op < PL_COLL_N_OPS ? op_names[op] : "?";
}

const char *pl_coll_algo_name(enum pl_coll_algo a) {
  return (unsigned)a < PL_ALGO_N ? algo_names[a] : "?";
}

const char *pl_coll_proto_name(enum pl_coll_proto p) {
  return (unsigned)p < PL_PROTO_N ? proto_names[p] : "?";
}

/* Lower case without '_' and '-': "AllReduce", "all-reduce", "allreduce" match. */
static void squash(const char *s, char *out, size_t n) {
  size_t k = 0;
  for (; *s && k + 1 < n; s++)
    if (*s != '_' && *s != '-')
      out[k++] = (char)tolower((unsigned char)*s);
  out[k] = '\0';
}

static int lookup(const char *s, const char *const *names, int count) {
  char a[64], b[64];
  if (s == NULL || strlen(s) >= sizeof a)
    return -1;
  squash(s, a, sizeof a);
  for (int i = 0; i < count; i++) {
    squash(names[i], b, sizeof b);
    if (strcmp(a, b) == 0)
      return i;
  }
  return -1;
}

enum pl_status pl_coll_op_parse(const char *s, enum pl_coll_op *out, struct pl_diag *diag) {
  int i = lookup(s, op_names, PL_COLL_N_OPS);
  if (i < 0)
    return pl_diag_set(diag, PL_ERR_UNKNOWN,
                       "unknown collective '%s' (expected all_reduce, all_gather, reduce_scatter, "
                       "all_to_all, broadcast, send_recv)",
                       s ? s : "");
  *out = (enum pl_coll_op)i;
  return PL_OK;
}

enum pl_status pl_coll_algo_parse(const char *s, enum pl_coll_algo *out, struct pl_diag *diag) {
  int i = lookup(s, algo_names, PL_ALGO_N);
  if (i < 0)
    return pl_diag_set(diag, PL_ERR_UNKNOWN,
                       "unknown algorithm '%s' (expected auto, ring, tree, nvls, nvls_tree, p2p, pat, "
                       "collnet_direct, collnet_chain)",
                       s ? s : "");
  *out = (enum pl_coll_algo)i;
  return PL_OK;
}

double pl_coll_bus_factor(enum pl_coll_op op, int64_t n) {
  if (n < 1)
    return 0.0;
  double k = (double)n;
  switch (op) {
  case PL_COLL_ALL_REDUCE: return 2.0 * (k - 1.0) / k;
  case PL_COLL_ALL_GATHER:
  case PL_COLL_REDUCE_SCATTER:
  case PL_COLL_ALL_TO_ALL: return (k - 1.0) / k;
  default: return 1.0;
  }
}

double pl_coll_busbw(enum pl_coll_op op, int64_t n, double bytes, double time_s) {
  if (!(time_s > 0.0))
    return 0.0;
  return bytes / time_s * pl_coll_bus_factor(op, n);
}
