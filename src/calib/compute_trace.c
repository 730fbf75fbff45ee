/* compute_trace.c: the compute observations of one Kineto trace recorded
 * with record_shapes=True (include/plateau/calib_compute.h).
 *
 * Linking follows Kineto's own ids (the same the streaming reader in
 * src/trace/link.c uses): a GPU kernel's args.correlation equals that of the
 * cuda_runtime/cuda_driver call that launched it, and that call's
 * args."External id" is the one of the innermost cpu_op around the launch.
 * Each cpu_op's args carry "Input Dims", "Input type" and "Concrete Inputs"
 * (scalars as text) when shapes were recorded (torch.profiler
 * record_shapes=True; PyTorch torch/csrc/profiler/... collection of
 * inputs). Argument positions of the attention ops are those of their ATen
 * schemas (aten/src/ATen/native/native_functions.yaml, PyTorch 2.5-2.11):
 * the query and is_causal positions are listed in attn_ops below. */
#include <plateau/alloc.h>
#include <plateau/calib_compute.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/json.h"

/* ---------------------------------------------------------------- reading */

static enum pl_status read_all(const char *path, char **text, size_t *len, struct pl_diag *diag) {
  gzFile f = gzopen(path, "rb");
  if (f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "%s: cannot open the trace", path);
  size_t cap = 1 << 20, n = 0;
  char *buf = pl_malloc(cap + 1);
  enum pl_status st = buf == NULL ? PL_ERR_NOMEM : PL_OK;
  while (st == PL_OK) {
    if (n == cap) {
      if (cap >= PL_COMPUTE_MAX_FILE_BYTES) {
        st = pl_diag_set(diag, PL_ERR_LIMIT, "%s: larger than %u MiB uncompressed", path,
                         PL_COMPUTE_MAX_FILE_BYTES >> 20);
        break;
      }
      char *nb = pl_realloc(buf, 2 * cap + 1);
      if (nb == NULL) {
        st = PL_ERR_NOMEM;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    int got = gzread(f, buf + n, (unsigned)(cap - n));
    if (got < 0) {
      st = pl_diag_set(diag, PL_ERR_IO, "%s: unreadable (corrupt gzip data?)", path);
      break;
    }
    if (got == 0)
      break;
    n += (size_t)got;
  }
  gzclose(f);
  if (st == PL_ERR_NOMEM)
    pl_diag_set(diag, PL_ERR_NOMEM, "%s: out of memory reading the trace", path);
  if (st != PL_OK) {
    pl_free(buf);
    return st;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return PL_OK;
}

/* ---------------------------------------------------------------- events */

struct rt { int64_t corr, ext; double ts_us; /* the launch call's start */ };
struct op { int64_t ext; yajl_val ev; double kernel_s; int kernels; double beside_s; };
struct kern {
  int64_t corr;
  double dur_s;
  int64_t dev;       /* the GPU event's pid (Kineto: the device) */
  double ts_us, end_us;
  bool comm;         /* an NCCL/RCCL kernel */
  bool copy;         /* a memcpy: in the idle walk only (idle_by_phase), not an op's time */
};
/* A communication kernel's span on its device, for beside_comm. */
struct span { int64_t dev; double a, b; };
/* A CPU range that sets the phase of the ops inside it (pl_compute_phase). */
struct range { int64_t tid; double start, end; enum pl_compute_phase phase; };

struct events {
  struct rt *rts;
  struct op *ops;
  struct kern *ks;
  struct range *ranges;
  struct span *comm;  /* communication kernels, by (dev, start), merged */
  size_t n_rts, n_ops, n_ks, n_ranges, n_comm;
  int64_t steps;
};

static bool num_of(yajl_val v, int64_t *out) {
  if (v != NULL && YAJL_IS_INTEGER(v)) {
    *out = YAJL_GET_INTEGER(v);
    return true;
  }
  if (v != NULL && YAJL_IS_NUMBER(v)) {
    double d = YAJL_GET_DOUBLE(v); /* a cast outside int64's range is undefined: not a number */
    if (!(d > -9.2e18 && d < 9.2e18))
      return false;
    *out = (int64_t)d;
    return true;
  }
  const char *s = v != NULL && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
  if (s != NULL) {
    char *end = NULL;
    long long x = strtoll(s, &end, 10);
    if (end != s && *end == '\0') {
      *out = x;
      return true;
    }
  }
  return false;
}

static const char *str_of(yajl_val ev, const char *key) {
  yajl_val v = base_json_get(ev, key);
  return v != NULL && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "";
}

static int cmp_rt(const void *a, const void *b) {
  int64_t x = ((const struct rt *)a)->corr, y = ((const struct rt *)b)->corr;
  return (x > y) - (x < y);
}

static int cmp_range(const void *a, const void *b) {
  const struct range *x = a, *y = b;
  if (x->tid != y->tid)
    return (x->tid > y->tid) - (x->tid < y->tid);
  return (x->start > y->start) - (x->start < y->start);
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The phase range an event opens, if any (pl_compute_phase's sources). */
static bool phase_range(yajl_val ev, struct range *r) {
  const char *name = str_of(ev, "name");
  if (starts_with(name, "autograd::engine::evaluate_function: "))
    r->phase = PL_PHASE_BWD;
  else if (starts_with(name, "Optimizer.step#") || starts_with(name, "Optimizer.zero_grad#"))
    r->phase = PL_PHASE_OPT;
  else
    return false;
  yajl_val ts = base_json_get(ev, "ts"), dur = base_json_get(ev, "dur");
  if (!num_of(base_json_get(ev, "tid"), &r->tid) || ts == NULL || !YAJL_IS_NUMBER(ts) ||
      dur == NULL || !YAJL_IS_NUMBER(dur))
    return false;
  r->start = YAJL_GET_DOUBLE(ts);
  r->end = r->start + YAJL_GET_DOUBLE(dur);
  return true;
}

/* Distinct ProfilerStep#N names (a range may appear on the CPU and GPU side). */
static int64_t count_steps(yajl_val evs) {
  int64_t hi = -1, lo = INT64_MAX, n = 0;
  for (size_t i = 0; i < evs->u.array.len; i++) {
    const char *name = str_of(evs->u.array.values[i], "name");
    if (!starts_with(name, "ProfilerStep#"))
      continue;
    char *end = NULL;
    long long k = strtoll(name + 13, &end, 10);
    if (end == name + 13)
      continue;
    if (k > hi)
      hi = k;
    if (k < lo)
      lo = k;
    n++;
  }
  return n == 0 ? 0 : hi - lo + 1;
}

static int cmp_op(const void *a, const void *b) {
  int64_t x = ((const struct op *)a)->ext, y = ((const struct op *)b)->ext;
  return (x > y) - (x < y);
}

/* Sort each kind of event once and collect them (arrays sized to the event count). */
/* An NCCL/RCCL kernel: "nccl" or "rccl" anywhere in its name, any case (the
 * rule of src/trace/names.c trace_is_comm_kernel; RCCL keeps the nccl
 * prefix). */
static bool is_comm(const char *name) {
  for (size_t i = 0; name[i] != '\0' && name[i + 1] != '\0' && name[i + 2] != '\0' &&
                     name[i + 3] != '\0';
       i++) {
    char c0 = (char)(name[i] | 0x20);
    if ((c0 == 'n' || c0 == 'r') && (name[i + 1] | 0x20) == 'c' && (name[i + 2] | 0x20) == 'c' &&
        (name[i + 3] | 0x20) == 'l')
      return true;
  }
  return false;
}

static int cmp_span(const void *a, const void *b) {
  const struct span *x = a, *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  return (x->a > y->a) - (x->a < y->a);
}

/* The communication kernels' spans, sorted by (dev, start) and merged. */
static enum pl_status comm_spans(struct events *e) {
  e->comm = pl_calloc(e->n_ks ? e->n_ks : 1, sizeof *e->comm);
  if (e->comm == NULL)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < e->n_ks; i++)
    if (e->ks[i].comm && e->ks[i].end_us > e->ks[i].ts_us)
      e->comm[e->n_comm++] = (struct span){e->ks[i].dev, e->ks[i].ts_us, e->ks[i].end_us};
  qsort(e->comm, e->n_comm, sizeof *e->comm, cmp_span);
  size_t k = 0;
  for (size_t i = 1; i < e->n_comm; i++) {
    if (e->comm[i].dev == e->comm[k].dev && e->comm[i].a <= e->comm[k].b) {
      if (e->comm[i].b > e->comm[k].b)
        e->comm[k].b = e->comm[i].b;
    } else {
      e->comm[++k] = e->comm[i];
    }
  }
  e->n_comm = e->n_comm ? k + 1 : 0;
  return PL_OK;
}

/* How long compute kernel k ran while a communication kernel ran on its
 * device, in s. Open intervals: kernels that only touch do not overlap. */
static double beside_comm(const struct events *e, const struct kern *k) {
  size_t lo = 0, hi = e->n_comm; /* first span of k's device ending after k starts */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const struct span *m = &e->comm[mid];
    if (m->dev < k->dev || (m->dev == k->dev && m->b <= k->ts_us))
      lo = mid + 1;
    else
      hi = mid;
  }
  double us = 0;
  for (size_t i = lo; i < e->n_comm && e->comm[i].dev == k->dev && e->comm[i].a < k->end_us; i++) {
    double a = e->comm[i].a > k->ts_us ? e->comm[i].a : k->ts_us;
    double b = e->comm[i].b < k->end_us ? e->comm[i].b : k->end_us;
    us += b > a ? b - a : 0;
  }
  return us * 1e-6;
}

static enum pl_status collect(yajl_val evs, struct events *e) {
  size_t n = evs->u.array.len;
  e->rts = pl_calloc(n ? n : 1, sizeof *e->rts);
  e->ops = pl_calloc(n ? n : 1, sizeof *e->ops);
  e->ks = pl_calloc(n ? n : 1, sizeof *e->ks);
  e->ranges = pl_calloc(n ? n : 1, sizeof *e->ranges);
  if (e->rts == NULL || e->ops == NULL || e->ks == NULL || e->ranges == NULL)
    return PL_ERR_NOMEM;
  e->steps = count_steps(evs);
  for (size_t i = 0; i < n; i++) {
    yajl_val ev = evs->u.array.values[i];
    const char *cat = str_of(ev, "cat");
    yajl_val args = base_json_get(ev, "args");
    int64_t corr = 0, ext = 0;
    if (phase_range(ev, &e->ranges[e->n_ranges]))
      e->n_ranges++;
    bool has_corr = num_of(base_json_get(args, "correlation"), &corr);
    bool has_ext = num_of(base_json_get(args, "External id"), &ext);
    if ((strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) && has_corr &&
        has_ext) {
      yajl_val t = base_json_get(ev, "ts");
      e->rts[e->n_rts++] =
          (struct rt){corr, ext, t != NULL && YAJL_IS_NUMBER(t) ? YAJL_GET_DOUBLE(t) : 0};
    }
    else if (strcmp(cat, "cpu_op") == 0 && has_ext)
      e->ops[e->n_ops++] = (struct op){ext, ev, 0, 0, 0};
    else if ((strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memset") == 0 ||
              strcmp(cat, "gpu_memcpy") == 0) &&
             has_corr) {
      yajl_val d = base_json_get(ev, "dur"), t = base_json_get(ev, "ts");
      double dur = d != NULL && YAJL_IS_NUMBER(d) ? YAJL_GET_DOUBLE(d) : 0;
      double ts = t != NULL && YAJL_IS_NUMBER(t) ? YAJL_GET_DOUBLE(t) : 0;
      int64_t dev = 0;
      num_of(base_json_get(ev, "pid"), &dev);
      const char *name = str_of(ev, "name");
      e->ks[e->n_ks++] = (struct kern){corr, dur > 0 ? dur * 1e-6 : 0, dev, ts,
                                       ts + (dur > 0 ? dur : 0), is_comm(name),
                                       strcmp(cat, "gpu_memcpy") == 0};
    }
  }
  qsort(e->rts, e->n_rts, sizeof *e->rts, cmp_rt);
  qsort(e->ops, e->n_ops, sizeof *e->ops, cmp_op);
  qsort(e->ranges, e->n_ranges, sizeof *e->ranges, cmp_range);
  return comm_spans(e);
}

/* Inside a range of this phase on the op's thread: the last range of that
 * thread starting at or before the op (ranges of one phase do not nest). */
static bool in_range(const struct events *e, enum pl_compute_phase ph, int64_t tid, double ts) {
  size_t lo = 0, hi = e->n_ranges; /* first range with (tid, start) > (tid, ts) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const struct range *r = &e->ranges[mid];
    if (r->tid < tid || (r->tid == tid && r->start <= ts))
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0;) {
    const struct range *r = &e->ranges[i];
    if (r->tid != tid)
      return false;
    if (r->phase == ph && ts <= r->end)
      return true;
    if (r->phase == ph)
      return false;
  }
  return false;
}

static enum pl_compute_phase phase_of(const struct events *e, yajl_val ev) {
  const char *name = str_of(ev, "name");
  if (starts_with(name, "aten::_foreach_") || starts_with(name, "aten::_fused_adam"))
    return PL_PHASE_OPT;
  int64_t tid;
  yajl_val ts = base_json_get(ev, "ts");
  if (!num_of(base_json_get(ev, "tid"), &tid) || ts == NULL || !YAJL_IS_NUMBER(ts))
    return PL_PHASE_FWD;
  double t = YAJL_GET_DOUBLE(ts);
  if (in_range(e, PL_PHASE_OPT, tid, t))
    return PL_PHASE_OPT;
  return in_range(e, PL_PHASE_BWD, tid, t) ? PL_PHASE_BWD : PL_PHASE_FWD;
}

static const struct rt *rt_of(const struct events *e, int64_t corr) {
  struct rt key = {corr, 0, 0};
  return bsearch(&key, e->rts, e->n_rts, sizeof *e->rts, cmp_rt);
}

static struct op *op_of_kernel(struct events *e, int64_t corr) {
  const struct rt *r = rt_of(e, corr);
  if (r == NULL)
    return NULL;
  struct op ok = {r->ext, NULL, 0, 0, 0};
  return bsearch(&ok, e->ops, e->n_ops, sizeof *e->ops, cmp_op);
}

/* ---------------------------------------------------------------- shapes */

/* Input Dims entry i as up to 4 dims; returns the rank, -1 when absent. */
static int dims_of(yajl_val args, size_t i, int64_t d[4]) {
  yajl_val all = base_json_get(args, "Input Dims");
  if (all == NULL || !YAJL_IS_ARRAY(all) || i >= all->u.array.len)
    return -1;
  yajl_val a = all->u.array.values[i];
  if (!YAJL_IS_ARRAY(a) || a->u.array.len > 4)
    return -1;
  for (size_t j = 0; j < a->u.array.len; j++) /* beyond 2^31 a dimension is garbage */
    if (!num_of(a->u.array.values[j], &d[j]) || d[j] < 0 || d[j] > (INT64_C(1) << 31))
      return -1;
  return (int)a->u.array.len;
}

static double numel(const int64_t *d, int rank) {
  double n = 1;
  for (int j = 0; j < rank; j++)
    n *= (double)d[j];
  return n;
}

static const char *list_str(yajl_val args, const char *key, size_t i) {
  yajl_val a = base_json_get(args, key);
  if (a == NULL || !YAJL_IS_ARRAY(a) || i >= a->u.array.len ||
      !YAJL_IS_STRING(a->u.array.values[i]))
    return "";
  return YAJL_GET_STRING(a->u.array.values[i]);
}

/* Bytes per element of a recorded "Input type"; 0 for a non-tensor. */
static double elem_bytes(const char *t) {
  static const struct { const char *name; double bytes; } types[] = {
      {"float", 4},          {"c10::BFloat16", 2},       {"c10::Half", 2},
      {"double", 8},         {"long int", 8},            {"int", 4},
      {"bool", 1},           {"unsigned char", 1},       {"signed char", 1},
      {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"short int", 2},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp(t, types[i].name) == 0)
      return types[i].bytes;
  return 0;
}

/* ---------------------------------------------------------------- classification */

struct attn_op {
  const char *name;
  int q;        /* argument index of the query */
  int causal;   /* argument index of is_causal */
  bool bshd;    /* tensors laid out (batch, seq, heads, dim), else (batch, heads, seq, dim) */
  bool bwd;
};

/* ATen schemas (native_functions.yaml) of the SDPA backends' ops. */
static const struct attn_op attn_ops[] = {
    {"aten::_scaled_dot_product_flash_attention", 0, 4, false, false},
    {"aten::_scaled_dot_product_flash_attention_backward", 1, 11, false, true},
    {"aten::_flash_attention_forward", 0, 8, true, false},
    {"aten::_flash_attention_backward", 1, 11, true, true},
    {"aten::_scaled_dot_product_cudnn_attention", 0, 6, false, false},
    {"aten::_scaled_dot_product_cudnn_attention_backward", 1, 14, false, true},
    {"aten::_cudnn_attention_forward", 0, 10, false, false},
    {"aten::_cudnn_attention_backward", 1, 14, false, true},
    {"aten::_scaled_dot_product_efficient_attention", 0, 6, false, false},
    {"aten::_scaled_dot_product_efficient_attention_backward", 1, 11, false, true},
};

/* Observation of an attention op, or the reason it cannot be one. */
static const char *attention(const struct attn_op *a, yajl_val args, struct pl_compute_obs *o) {
  int64_t q[4], k[4];
  if (dims_of(args, (size_t)a->q, q) != 4 || dims_of(args, (size_t)a->q + 1, k) != 4)
    return "no shapes recorded";
  if (strcmp(list_str(args, "Concrete Inputs", (size_t)a->causal), "True") != 0)
    return "not causal (plateau times causal attention)";
  int64_t b = q[0], h = a->bshd ? q[2] : q[1], sq = a->bshd ? q[1] : q[2], d = q[3];
  int64_t hk = a->bshd ? k[2] : k[1], sk = a->bshd ? k[1] : k[2];
  o->kind = a->bwd ? PL_COMPUTE_ATTN_BWD : PL_COMPUTE_ATTN_FWD;
  o->m = sq;
  o->n = sk;
  o->k = d;
  o->count = b * h;
  /* src/model/flops.c attention(): 4 b h sq sk d forward, 2.5x in backward;
   * bytes: q/o (and dq/do) and k/v (dk/dv) in 16 bits */
  double fwd = 4.0 * (double)b * (double)h * (double)sq * (double)sk * (double)d;
  double qe = (double)b * (double)sq * (double)h * (double)d;
  double ke = (double)b * (double)sk * (double)hk * (double)d;
  o->flops = a->bwd ? 2.5 * fwd : fwd;
  o->bytes = 2.0 * (a->bwd ? 4 * qe + 4 * ke : 2 * qe + 2 * ke);
  return NULL;
}

/* GEMM ops: the argument index of A ((batch x) m x k), B follows it. */
static const char *gemm(const char *name, yajl_val args, struct pl_compute_obs *o) {
  int ia = strcmp(name, "aten::addmm") == 0 || strcmp(name, "aten::baddbmm") == 0 ? 1 : 0;
  bool fp8 = strcmp(name, "aten::_scaled_mm") == 0;
  int64_t a[4], b[4];
  int ra = dims_of(args, (size_t)ia, a), rb = dims_of(args, (size_t)ia + 1, b);
  if (ra < 2 || ra > 3 || rb != ra)
    return "no shapes recorded";
  const char *t = list_str(args, "Input type", (size_t)ia);
  if (!fp8 && strcmp(t, "c10::BFloat16") != 0 && strcmp(t, "c10::Half") != 0)
    return "GEMM not in bf16/fp16 (not timed by plateau)";
  int off = ra - 2;
  o->kind = fp8 ? PL_COMPUTE_GEMM_FP8 : PL_COMPUTE_GEMM;
  o->m = a[off];
  o->k = a[off + 1];
  o->n = b[off + 1];
  o->count = ra == 3 ? a[0] : 1;
  if (b[off] != o->k || o->m <= 0 || o->n <= 0 || o->k <= 0 || o->count <= 0)
    return "inconsistent GEMM shapes";
  return NULL;
}

static bool name_in(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(name, list[i]) == 0)
      return true;
  return false;
}

/* Memory-bound ops with a known least byte count: every tensor input read
 * once, the output written once (the broadcast of the inputs, in the widest
 * input type; in place: the first input's). */
static const char *memory(const char *name, yajl_val args, struct pl_compute_obs *o) {
  static const char *const binary[] = {"aten::add", "aten::sub", "aten::mul", "aten::div",
                                       "aten::copy_"};
  static const char *const inplace[] = {"aten::add_", "aten::sub_", "aten::mul_", "aten::div_"};
  static const char *const unary[] = {"aten::neg", "aten::silu", "aten::pow", "aten::rsqrt",
                                      "aten::sigmoid", "aten::exp"};
  static const char *const fill[] = {"aten::fill_", "aten::zero_"};
  bool is_bin = name_in(name, binary, 5), is_inp = name_in(name, inplace, 4);
  bool is_un = name_in(name, unary, 6), is_fill = name_in(name, fill, 2);
  if (!is_bin && !is_inp && !is_un && !is_fill)
    return "op without a byte count";
  double in = 0, out_n = 0, out_s = 0, first_n = 0, first_s = 0;
  int tensors = 0;
  for (size_t i = 0; i < 2; i++) {
    int64_t d[4];
    int r = dims_of(args, i, d);
    double s = elem_bytes(list_str(args, "Input type", i));
    if (r <= 0 || s <= 0)
      continue;
    double ne = numel(d, r);
    if (tensors++ == 0) {
      first_n = ne;
      first_s = s;
    }
    in += ne * s;
    out_n = ne > out_n ? ne : out_n;
    out_s = s > out_s ? s : out_s;
  }
  if (tensors == 0)
    return "no shapes recorded";
  if (is_fill)
    o->bytes = first_n * first_s;
  else if (strcmp(name, "aten::copy_") == 0)
    o->bytes = in; /* dst and src: one written, one read */
  else if (is_inp)
    o->bytes = in + first_n * first_s;
  else if (is_un)
    o->bytes = 2.0 * first_n * first_s;
  else
    o->bytes = in + out_n * out_s;
  if (o->bytes < PL_COMPUTE_MIN_MEMORY_BYTES)
    return "memory-bound under 8 MiB (launch-bound)";
  o->kind = PL_COMPUTE_MEMORY;
  return NULL;
}

static const char *classify(yajl_val ev, struct pl_compute_obs *o) {
  const char *name = str_of(ev, "name");
  yajl_val args = base_json_get(ev, "args");
  for (size_t i = 0; i < sizeof attn_ops / sizeof attn_ops[0]; i++)
    if (strcmp(name, attn_ops[i].name) == 0)
      return attention(&attn_ops[i], args, o);
  if (strcmp(name, "aten::mm") == 0 || strcmp(name, "aten::addmm") == 0 ||
      strcmp(name, "aten::bmm") == 0 || strcmp(name, "aten::baddbmm") == 0 ||
      strcmp(name, "aten::_scaled_mm") == 0)
    return gemm(name, args, o);
  return memory(name, args, o);
}

/* ---------------------------------------------------------------- bookkeeping */

static void skip(struct pl_compute_trace *t, const char *name, const char *why, int kernels,
                 double s) {
  for (size_t i = 0; i < t->n_skips; i++) {
    struct pl_compute_skip *k = &t->skips[i];
    if (strcmp(k->name, name) == 0 && strcmp(k->why, why) == 0) {
      k->ops++;
      k->kernels += kernels;
      k->time_s += s;
      return;
    }
  }
  if (t->n_skips == PL_COMPUTE_MAX_NAMES) {
    t->skips_dropped++;
    return;
  }
  struct pl_compute_skip *k = &t->skips[t->n_skips++];
  snprintf(k->name, sizeof k->name, "%s", name);
  snprintf(k->why, sizeof k->why, "%s", why);
  k->ops = 1;
  k->kernels = kernels;
  k->time_s = s;
}

static int cmp_skip(const void *a, const void *b) {
  double x = ((const struct pl_compute_skip *)a)->time_s,
         y = ((const struct pl_compute_skip *)b)->time_s;
  return (x < y) - (x > y);
}

/* Appends o to a growing array of observations (*arr, *n of *cap; the first
 * allocation first_cap): the fitted ops and those left out beside a
 * collective share it. */
static enum pl_status push_obs(struct pl_compute_obs **arr, size_t *n, size_t *cap,
                               size_t first_cap, const struct pl_compute_obs *o) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : first_cap;
    struct pl_compute_obs *g = pl_reallocarray(*arr, c, sizeof *g);
    if (g == NULL)
      return PL_ERR_NOMEM;
    *arr = g;
    *cap = c;
  }
  (*arr)[(*n)++] = *o;
  return PL_OK;
}

static enum pl_status link_all(struct events *e, struct pl_compute_trace *t) {
  for (size_t i = 0; i < e->n_ks; i++) {
    if (e->ks[i].copy)
      continue;
    t->kernels++;
    t->kernel_s += e->ks[i].dur_s;
    struct op *op = op_of_kernel(e, e->ks[i].corr);
    if (op == NULL) {
      t->unlinked_kernels++;
      t->unlinked_s += e->ks[i].dur_s;
      continue;
    }
    op->kernel_s += e->ks[i].dur_s;
    op->kernels++;
    op->beside_s += e->ks[i].comm ? 0 : beside_comm(e, &e->ks[i]);
  }
  for (size_t i = 0; i < e->n_ops; i++) {
    struct op *op = &e->ops[i];
    if (op->kernels == 0)
      continue;
    struct pl_compute_obs o;
    memset(&o, 0, sizeof o);
    o.phase = phase_of(e, op->ev);
    t->phase_s[o.phase] += op->kernel_s;
    snprintf(o.op, sizeof o.op, "%s", str_of(op->ev, "name"));
    const char *why = classify(op->ev, &o);
    if (why != NULL) {
      skip(t, str_of(op->ev, "name"), why, op->kernels, op->kernel_s);
      continue;
    }
    o.time_s = op->kernel_s;
    o.kernels = op->kernels;
    /* The step simulator slows compute by the GPU's overlap_slowdown while a
     * collective runs on its rank (src/sim/engine.c rates_for: NCCL's CTAs
     * hold SMs). A kernel measured beside one already carries that loss; a
     * fit to it would fold it into the efficiency and predict would apply it
     * again (docs/trace.md 10.2 for the collective's side). Left out of obs,
     * kept apart in t->beside for `--overlap correct|include`. */
    if (op->beside_s > 0) {
      skip(t, str_of(op->ev, "name"), "ran beside a collective", op->kernels, op->kernel_s);
      o.beside_s = op->beside_s < o.time_s ? op->beside_s : o.time_s;
      if (o.time_s > 0 && push_obs(&t->beside, &t->n_beside, &t->cap_beside, 64, &o) != PL_OK)
        return PL_ERR_NOMEM;
      continue;
    }
    if (o.time_s <= 0) {
      skip(t, str_of(op->ev, "name"), "kernels of zero duration", op->kernels, 0);
      continue;
    }
    if (push_obs(&t->obs, &t->n_obs, &t->cap_obs, 256, &o) != PL_OK)
      return PL_ERR_NOMEM;
  }
  qsort(t->skips, t->n_skips, sizeof t->skips[0], cmp_skip);
  return PL_OK;
}

static int cmp_kern(const void *a, const void *b) {
  const struct kern *x = a, *y = b;
  if (x->dev != y->dev)
    return (x->dev > y->dev) - (x->dev < y->dev);
  return (x->ts_us > y->ts_us) - (x->ts_us < y->ts_us);
}

/* The GPU's idle time by the phase of the op whose event ends each gap
 * (pl_compute_trace idle_host_s, idle_queued_s; docs/trace.md 9.5): per device,
 * the events in start order, a gap from the latest end so far to the next
 * start; host wait when that event's launch call started after the device
 * went idle (HTA's rule, docs/trace.md 3.6), else queued. The first event of
 * each device ends no gap; events with no op to link to end none counted. */
static void idle_by_phase(struct events *e, struct pl_compute_trace *t) {
  qsort(e->ks, e->n_ks, sizeof *e->ks, cmp_kern);
  double end_us = 0; /* the latest end so far on this device */
  for (size_t i = 0; i < e->n_ks; i++) {
    const struct kern *k = &e->ks[i];
    if (i == 0 || e->ks[i - 1].dev != k->dev) {
      end_us = k->end_us;
      continue;
    }
    double gap_us = k->ts_us - end_us;
    if (k->end_us > end_us)
      end_us = k->end_us;
    if (gap_us <= 0)
      continue;
    const struct rt *r = rt_of(e, k->corr);
    struct op *op = op_of_kernel(e, k->corr);
    if (r == NULL || op == NULL)
      continue;
    enum pl_compute_phase ph = phase_of(e, op->ev);
    double gap_s = gap_us * 1e-6;
    if (r->ts_us > k->ts_us - gap_us)
      t->idle_host_s[ph] += gap_s;
    else
      t->idle_queued_s[ph] += gap_s;
  }
}

enum pl_status pl_compute_obs_parse(const char *text, size_t len, const char *origin,
                                    struct pl_compute_trace **out, struct pl_diag *diag) {
  *out = NULL;
  yajl_val doc = NULL;
  enum pl_status st = base_json_parse(text, len, origin, &doc, diag);
  if (st != PL_OK)
    return st;
  yajl_val evs = base_json_get(doc, "traceEvents");
  if (evs == NULL || !YAJL_IS_ARRAY(evs)) {
    base_json_free(doc);
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: no \"traceEvents\" array (not a Kineto trace)",
                       origin);
  }
  struct pl_compute_trace *t = pl_calloc(1, sizeof *t);
  struct events e;
  memset(&e, 0, sizeof e);
  st = t == NULL ? PL_ERR_NOMEM : collect(evs, &e);
  if (st == PL_OK) {
    snprintf(t->origin, sizeof t->origin, "%s", origin);
    t->steps = e.steps;
    st = link_all(&e, t);
    if (st == PL_OK)
      idle_by_phase(&e, t);
  }
  pl_free(e.ranges);
  pl_free(e.comm);
  pl_free(e.rts);
  pl_free(e.ops);
  pl_free(e.ks);
  base_json_free(doc);
  if (st != PL_OK) {
    pl_compute_trace_free(t);
    return pl_diag_set(diag, PL_ERR_NOMEM, "%s: out of memory reading the trace", origin);
  }
  if (t->kernels == 0) {
    pl_compute_trace_free(t);
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: no GPU kernels in the trace", origin);
  }
  *out = t;
  return PL_OK;
}

enum pl_status pl_compute_obs_load(const char *path, struct pl_compute_trace **out,
                                   struct pl_diag *diag) {
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = read_all(path, &text, &len, diag);
  if (st != PL_OK)
    return st;
  st = pl_compute_obs_parse(text, len, path, out, diag);
  pl_free(text);
  return st;
}

void pl_compute_trace_free(struct pl_compute_trace *t) {
  if (t == NULL)
    return;
  pl_free(t->obs);
  pl_free(t->beside);
  pl_free(t);
}

struct pl_compute_obs pl_compute_obs_alone(const struct pl_compute_obs *o,
                                           double overlap_slowdown) {
  struct pl_compute_obs a = *o;
  double s = overlap_slowdown > 0 ? overlap_slowdown : 0;
  a.time_s = o->time_s - o->beside_s * s / (1 + s);
  a.beside_s = 0;
  return a;
}
