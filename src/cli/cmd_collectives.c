/* cmd_collectives.c: `plateau collectives` prints the modelled time and bus
 * bandwidth of NCCL collectives over a sweep of sizes and group sizes, laid
 * out like nccl-tests (one table per group size), or as CSV/JSON rows. With
 * --op all_gather,all_reduce --bytes 64M --nodes 1..256 it regenerates the
 * study's Figure 2 trend (docs/collectives.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"
#include "run_opts.h"

#define MAX_SIZES 4096
#define MAX_GROUPS 256
#define MAX_OPS PL_COLL_N_OPS
#define MAX_RANKS (1 << 24)

static const struct cli_opt coll_opts[] = {
    {"cluster", "C", "cluster preset or file (default dgx-h100)"},
    {"op", "OPS", "all_reduce|all_gather|reduce_scatter|all_to_all|broadcast|send_recv, or a "
                  "comma list (default all_reduce)"},
    {"nodes", "LIST", "group sizes in nodes: 1,2,4 or a range 1..256 doubling (default 1)"},
    {"gpus", "LIST", "group sizes in GPUs instead of --nodes: 8,16 or 8..2048"},
    {"ranks-per-node", "R", "ranks of the group in each node (default: all GPUs of a node)"},
    {"active-per-node", "A", "GPUs of each node on the network at once, sharing its NICs: in a training step every GPU runs its own group's call (default: the group's ranks alone, as nccl-tests)"},
    {"bytes", "SIZES", "nccl-tests sizes: 8..16G doubling, or 1M,64M (K/M/G = 2^10.., "
                       "default 8..8G)"},
    {"algo", "A", "auto|ring|tree|nvls|nvls_tree|p2p|pat|collnet_direct|collnet_chain (default auto: as NCCL's tuner)"},
    {"format", "F", "text|csv|json (default text)"},
    RUN_NETWORK_OPTS,
    CLI_NCCL_VERSION_OPT,
};
static const struct cli_cmd coll_cmd = {
    "collectives",
    "plateau collectives [--cluster C] [--op OPS] [--nodes LIST | --gpus LIST] [--bytes SIZES]",
    "Model NCCL collectives on a cluster: time, algbw and busbw (GB/s = 1e9 B/s, nccl-tests "
    "conventions) per size and group size, with the algorithm and protocol NCCL's tuner would "
    "pick. Formulas and sources: docs/collectives.md.",
    coll_opts, sizeof coll_opts / sizeof coll_opts[0], false};

struct sweep {
  struct pl_cluster cluster;
  enum pl_coll_op ops[MAX_OPS];
  int n_ops;
  int64_t ranks[MAX_GROUPS];
  int n_groups;
  int64_t per_node;          /* 0 = min(ranks, gpus per node) */
  int64_t active;            /* GPUs per node on the network at once; 0 = the group alone */
  double sizes[MAX_SIZES];
  int n_sizes;
  enum pl_coll_algo algo;
  enum cli_format fmt;
};

/* "a..b" doubling from a to b, or "a,b,c"; parse() turns one item into a value. */
static int list_parse(const char *opt, const char *text, double *out, int max, int *n,
                      enum pl_status (*parse)(const char *, double *, struct pl_diag *)) {
  char buf[512];
  struct pl_diag d;
  pl_diag_clear(&d);
  if (strlen(text) >= sizeof buf)
    return cli_fail("--%s: value too long", opt);
  snprintf(buf, sizeof buf, "%s", text);
  char *dots = strstr(buf, "..");
  *n = 0;
  if (dots != NULL) {
    *dots = '\0';
    double lo, hi;
    if (parse(buf, &lo, &d) != PL_OK || parse(dots + 2, &hi, &d) != PL_OK)
      return cli_fail("--%s: %s", opt, d.msg);
    if (!(lo > 0.0) || hi < lo)
      return cli_fail("--%s: range '%s' must run from a positive value up", opt, text);
    for (double v = lo; v <= hi * (1 + 1e-12); v *= 2.0) {
      if (*n == max)
        return cli_fail("--%s: more than %d values", opt, max);
      out[(*n)++] = v;
    }
    return 0;
  }
  for (char *item = buf, *next; item != NULL; item = next) {
    next = strchr(item, ',');
    if (next != NULL)
      *next++ = '\0';
    if (*n == max)
      return cli_fail("--%s: more than %d values", opt, max);
    if (parse(item, &out[*n], &d) != PL_OK)
      return cli_fail("--%s: %s", opt, d.msg);
    (*n)++;
  }
  return 0;
}

static enum pl_status count_parse(const char *s, double *out, struct pl_diag *d) {
  int64_t v;
  enum pl_status st = pl_int_parse(s, &v, d);
  if (st == PL_OK && v > MAX_RANKS)
    st = pl_diag_set(d, PL_ERR_RANGE, "'%s' is more than %d", s, MAX_RANKS);
  *out = (double)v;
  return st;
}

static int parse_ops(const char *text, struct sweep *sw) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text ? text : "all_reduce");
  sw->n_ops = 0;
  for (char *item = buf, *next; item != NULL; item = next) {
    next = strchr(item, ',');
    if (next != NULL)
      *next++ = '\0';
    struct pl_diag d;
    pl_diag_clear(&d);
    if (sw->n_ops == MAX_OPS)
      return cli_fail("--op: at most %d collectives", MAX_OPS);
    if (pl_coll_op_parse(item, &sw->ops[sw->n_ops], &d) != PL_OK)
      return cli_fail("--op: %s", d.msg);
    sw->n_ops++;
  }
  return 0;
}

static int parse_groups(const struct cli_args *a, struct sweep *sw) {
  const char *nodes = cli_get(a, "nodes"), *gpus = cli_get(a, "gpus");
  if (nodes != NULL && gpus != NULL)
    return cli_fail("give --nodes or --gpus, not both");
  if (cli_get_int(a, "ranks-per-node", &sw->per_node) != 0 ||
      cli_get_int(a, "active-per-node", &sw->active) != 0)
    return 1;
  if (sw->active > sw->cluster.gpus_per_node)
    return cli_fail("--active-per-node %lld: cluster '%s' has %lld GPUs per node",
                    (long long)sw->active, sw->cluster.name, (long long)sw->cluster.gpus_per_node);
  if (sw->per_node > sw->cluster.gpus_per_node)
    return cli_fail("--ranks-per-node %lld: cluster '%s' has %lld GPUs per node",
                    (long long)sw->per_node, sw->cluster.name,
                    (long long)sw->cluster.gpus_per_node);
  double v[MAX_GROUPS];
  int n = 0;
  const char *opt = gpus != NULL ? "gpus" : "nodes";
  if (list_parse(opt, gpus ? gpus : (nodes ? nodes : "1"), v, MAX_GROUPS, &n, count_parse) != 0)
    return 1;
  int64_t per = sw->per_node > 0 ? sw->per_node : sw->cluster.gpus_per_node;
  for (int i = 0; i < n; i++) {
    int64_t k = (int64_t)v[i];
    sw->ranks[i] = gpus != NULL ? k : k * per;
    if (sw->ranks[i] > MAX_RANKS)
      return cli_fail("--%s: group of %lld ranks is more than %d", opt, (long long)sw->ranks[i],
                      MAX_RANKS);
  }
  sw->n_groups = n;
  return 0;
}

static int setup(const struct cli_args *a, struct sweep *sw) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *cl = cli_get(a, "cluster");
  if (pl_cluster_load(cl ? cl : "dgx-h100", &sw->cluster, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (cli_nccl_version(a, &sw->cluster) != 0)
    return 1;
  /* --nic-bandwidth, --sharp, --gpus-per-node, --nccl-tuner: the same edits predict takes
   * (flags the table above lacks read as absent) */
  if (pl_cluster_flags_read(&sw->cluster, cli_flag_get, (void *)a, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (parse_ops(cli_get(a, "op"), sw) != 0 || parse_groups(a, sw) != 0)
    return 1;
  const char *bytes = cli_get(a, "bytes");
  if (list_parse("bytes", bytes ? bytes : "8..8G", sw->sizes, MAX_SIZES, &sw->n_sizes,
                 pl_size_parse) != 0)
    return 1;
  for (int i = 0; i < sw->n_sizes; i++) /* nccl-tests sizes are whole bytes */
    if (sw->sizes[i] < 1 || sw->sizes[i] != floor(sw->sizes[i]) || sw->sizes[i] > 0x1p53)
      return cli_fail("--bytes: %.17g is not a whole number of bytes from 1 to 2^53",
                      sw->sizes[i]);
  const char *algo = cli_get(a, "algo");
  sw->algo = PL_ALGO_AUTO;
  if (algo != NULL && pl_coll_algo_parse(algo, &sw->algo, &d) != PL_OK)
    return cli_fail("--algo: %s", d.msg);
  return cli_get_format(a, &sw->fmt);
}

/* Ranks per node of a group: as asked, else a whole node (or the group if smaller). */
static struct pl_group group_of(const struct sweep *sw, int64_t ranks) {
  int64_t per = sw->per_node > 0 ? sw->per_node : sw->cluster.gpus_per_node;
  if (ranks < per)
    per = ranks;
  struct pl_group g = {ranks, per};
  return g;
}

struct result {
  enum pl_coll_op op;
  struct pl_group g;
  double bytes;
  struct pl_coll_cost cost;
};

/* nccl-tests' count column: elements of float per rank buffer as each test prints it. */
static long long count_of(enum pl_coll_op op, double bytes, int64_t n) {
  double elems = bytes / 4.0;
  if (op == PL_COLL_ALL_GATHER || op == PL_COLL_REDUCE_SCATTER || op == PL_COLL_ALL_TO_ALL)
    elems /= (double)n;
  return (long long)floor(elems);
}

static void text_header(const struct sweep *sw, enum pl_coll_op op, struct pl_group g) {
  int64_t nodes = g.ranks / g.ranks_per_node;
  printf("# %s on %s (%s): %lld ranks = %lld node%s x %lld\n", pl_coll_op_name(op),
         sw->cluster.name, sw->cluster.description, (long long)g.ranks, (long long)nodes,
         nodes == 1 ? "" : "s", (long long)g.ranks_per_node);
  if (sw->active > g.ranks_per_node && nodes > 1)
    printf("# %lld GPUs of each node on the network at once, sharing its NICs\n",
           (long long)sw->active);
  printf("#%12s %13s %9s %11s %8s %8s  %-10s %s\n", "size", "count", "type", "time", "algbw",
         "busbw", "algo", "proto");
  printf("#%12s %13s %9s %11s %8s %8s\n", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)");
}

static void emit_result(const struct sweep *sw, struct pl_emit *e, const struct result *r) {
  double algbw = r->cost.time_s > 0 ? r->bytes / r->cost.time_s : 0.0;
  double busbw = pl_coll_busbw(r->op, r->g.ranks, r->bytes, r->cost.time_s);
  const char *algo = pl_coll_algo_name(r->cost.algo), *proto = pl_coll_proto_name(r->cost.proto);
  int64_t nodes = r->g.ranks / r->g.ranks_per_node;
  if (sw->fmt == CLI_FORMAT_TEXT) {
    printf(" %12.0f %13lld %9s %11.2f %8.2f %8.2f  %-10s %s\n", r->bytes,
           count_of(r->op, r->bytes, r->g.ranks), "float", r->cost.time_s * 1e6, algbw / 1e9,
           busbw / 1e9, algo, proto);
  } else if (sw->fmt == CLI_FORMAT_CSV) {
    printf("%s,%lld,%lld,%.0f,%.9g,%.6g,%.6g,%s,%s\n", pl_coll_op_name(r->op),
           (long long)r->g.ranks, (long long)nodes, r->bytes, r->cost.time_s, algbw / 1e9,
           busbw / 1e9, algo, proto);
  } else {
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", pl_coll_op_name(r->op));
    pl_emit_int(e, "gpus", r->g.ranks);
    pl_emit_int(e, "nodes", nodes);
    pl_emit_int(e, "ranks_per_node", r->g.ranks_per_node);
    pl_emit_int(e, "active_per_node",
                sw->active > r->g.ranks_per_node ? sw->active : r->g.ranks_per_node);
    pl_emit_num(e, "bytes", r->bytes);
    pl_emit_num(e, "time_s", r->cost.time_s);
    pl_emit_num(e, "algbw_gbps", algbw / 1e9);
    pl_emit_num(e, "busbw_gbps", busbw / 1e9);
    pl_emit_str(e, "algo", algo);
    pl_emit_str(e, "proto", proto);
    pl_emit_obj_end(e);
  }
}

/* One table: an op on a group size over every size. */
static int run_table(const struct sweep *sw, struct pl_emit *e, enum pl_coll_op op, int64_t ranks) {
  struct pl_group g = group_of(sw, ranks);
  struct pl_diag d;
  pl_diag_clear(&d);
  if (ranks < 2) /* one rank moves nothing: NCCL returns at once, there is no time to model */
    return cli_fail("%s on %lld rank: a collective needs a group of at least 2 GPUs",
                    pl_coll_op_name(op), (long long)ranks);
  if (pl_coll_check(&sw->cluster, op, sw->sizes[0], g, sw->algo, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (sw->fmt == CLI_FORMAT_TEXT)
    text_header(sw, op, g);
  for (int i = 0; i < sw->n_sizes; i++) {
    struct result r = {.op = op, .g = g, .bytes = sw->sizes[i]};
    if (pl_coll_time_shared(&sw->cluster, op, r.bytes, g, sw->active, sw->algo, &r.cost) !=
        PL_OK) {
      pl_coll_check(&sw->cluster, op, r.bytes, g, sw->algo, &d);
      return cli_fail("%s", d.msg);
    }
    emit_result(sw, e, &r);
  }
  if (sw->fmt == CLI_FORMAT_TEXT)
    printf("\n");
  return 0;
}

static int run(const struct sweep *sw) {
  struct pl_emit *e = NULL;
  if (sw->fmt == CLI_FORMAT_JSON) {
    e = cli_emit_open();
    if (e == NULL)
      return cli_fail("out of memory");
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "cluster", sw->cluster.name);
    /* who picked each row's algorithm and protocol (--nccl-tuner, cluster.nccl_tuner) */
    pl_emit_str(e, "nccl_tuner", pl_cluster_nccl_tuner(&sw->cluster));
    pl_emit_arr_begin(e, "rows");
  } else if (sw->fmt == CLI_FORMAT_CSV) {
    printf("op,gpus,nodes,bytes,time_s,algbw_gbps,busbw_gbps,algo,proto\n");
  }
  int rc = 0;
  for (int o = 0; o < sw->n_ops && rc == 0; o++)
    for (int k = 0; k < sw->n_groups && rc == 0; k++)
      rc = run_table(sw, e, sw->ops[o], sw->ranks[k]);
  if (e != NULL) {
    pl_emit_arr_end(e);
    pl_emit_obj_end(e);
    struct pl_diag d;
    pl_diag_clear(&d);
    if (pl_emit_close(e, &d) != PL_OK && rc == 0)
      rc = cli_fail("%s", d.msg);
  }
  return rc;
}

int cmd_collectives(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&coll_cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  static struct sweep sw; /* ~40 KiB of sizes: off the stack */
  memset(&sw, 0, sizeof sw);
  if (setup(&args, &sw) != 0)
    return 1;
  return run(&sw);
}
