/* names.c: what kernel names and argument strings say about an event.
 *
 * Communication kernels are the NCCL and RCCL ones: their names contain
 * "nccl" (NVIDIA ncclKernel_* / ncclDevKernel_*, and RCCL, which keeps the
 * nccl prefix, e.g. ncclDevKernel_Generic) or "rccl". This is the rule
 * TraceLens (AMD-AGI/TraceLens, GPUEventAnalyser) and the study's PerfettoSQL
 * queries use; other custom all-reduce kernels (vLLM's multimem_all_reduce,
 * cross_device_reduce) count as compute and are named in docs/trace.md 1.
 * Bus bandwidth factors: nccl-tests doc/PERFORMANCE.md. */
#include <ctype.h>
#include <string.h>

#include "trace_int.h"

static bool ieq_prefix(const char *s, size_t n, const char *p) {
  size_t k = strlen(p);
  if (n < k)
    return false;
  for (size_t i = 0; i < k; i++)
    if (tolower((unsigned char)s[i]) != p[i])
      return false;
  return true;
}

/* "nccl" or "rccl" anywhere, any case. */
bool trace_is_comm_kernel(const char *s, size_t n) {
  /* "nccl" or "rccl", any case: Horspool's search for a 4-byte window whose
   * last byte decides the shift (most kernel names have few c, l, n, r) */
  for (size_t j = 3; j < n;) {
    char c = (char)(s[j] | 0x20);
    if (c == 'l') {
      char p = (char)(s[j - 3] | 0x20);
      if ((s[j - 1] | 0x20) == 'c' && (s[j - 2] | 0x20) == 'c' && (p == 'n' || p == 'r'))
        return true;
      j += 4;
    } else {
      j += c == 'c' ? 1 : c == 'n' || c == 'r' ? 3 : 4;
    }
  }
  return false;
}

/* Op from "ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL". */
enum trace_op trace_op_from_kernel(const char *s, size_t n) {
  static const struct {
    const char *p;
    enum trace_op op;
  } map[] = {
      {"allreduce", TRACE_OP_ALL_REDUCE}, {"allgather", TRACE_OP_ALL_GATHER},
      {"reducescatter", TRACE_OP_REDUCE_SCATTER}, {"alltoall", TRACE_OP_ALL_TO_ALL},
      {"broadcast", TRACE_OP_BROADCAST}, {"sendrecv", TRACE_OP_SEND_RECV},
      {"send", TRACE_OP_SEND_RECV}, {"recv", TRACE_OP_SEND_RECV}, {"reduce", TRACE_OP_REDUCE},
  };
  const char *k = NULL;
  for (size_t i = 0; i + 7 <= n && k == NULL; i++)
    if (memcmp(s + i, "Kernel_", 7) == 0)
      k = s + i + 7;
  if (k == NULL)
    return TRACE_OP_UNKNOWN;
  size_t rest = n - (size_t)(k - s);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (ieq_prefix(k, rest, map[i].p))
      return map[i].op;
  return TRACE_OP_UNKNOWN;
}

/* Op from args "Collective name": "allreduce", "_allgather_base",
 * "reduce_scatter_tensor_coalesced", "all_to_all", ... (underscores ignored). */
enum trace_op trace_op_from_collective(const char *s, size_t n) {
  static const struct {
    const char *p;
    enum trace_op op;
  } map[] = {
      {"allreduce", TRACE_OP_ALL_REDUCE}, {"allgather", TRACE_OP_ALL_GATHER},
      {"reducescatter", TRACE_OP_REDUCE_SCATTER}, {"alltoall", TRACE_OP_ALL_TO_ALL},
      {"broadcast", TRACE_OP_BROADCAST}, {"send", TRACE_OP_SEND_RECV},
      {"recv", TRACE_OP_SEND_RECV}, {"reduce", TRACE_OP_REDUCE}, {"gather", TRACE_OP_GATHER},
      {"scatter", TRACE_OP_SCATTER}, {"barrier", TRACE_OP_BARRIER},
  };
  char t[40];
  size_t m = 0;
  for (size_t i = 0; i < n && m + 1 < sizeof t; i++)
    if (s[i] != '_')
      t[m++] = (char)tolower((unsigned char)s[i]);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (ieq_prefix(t, m, map[i].p))
      return map[i].op;
  return TRACE_OP_UNKNOWN;
}

/* Element size of a PyTorch dtype name ("BFloat16", "c10::Half", "Float"),
 * and the C++ type names older profilers wrote in "Input type" (TypeMeta's
 * demangled names on Linux: "long int" for int64, "short int", "signed
 * char" for int8, "unsigned char" for uint8). */
int32_t trace_dtype_bytes(const char *s, size_t n) {
  static const struct {
    const char *name;
    int32_t bytes;
  } map[] = {
      {"bfloat16", 2}, {"half", 2}, {"float16", 2}, {"float8", 1}, {"float", 4},
      {"double", 8},   {"long", 8}, {"int64", 8},   {"int32", 4},  {"int", 4},
      {"short", 2},    {"char", 1}, {"byte", 1},    {"bool", 1},   {"uint8", 1},
      {"int8", 1},     {"complexfloat", 8}, {"complexdouble", 16}, {"long int", 8},
      {"long long int", 8}, {"short int", 2}, {"signed char", 1}, {"unsigned char", 1},
  };
  if (n > 5 && memcmp(s, "c10::", 5) == 0) {
    s += 5;
    n -= 5;
  }
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    size_t k = strlen(map[i].name);
    /* whole-name match, except float8 variants (Float8_e4m3fn, ...) */
    bool whole = n == k || (k == 6 && memcmp(map[i].name, "float8", 6) == 0);
    if (whole && ieq_prefix(s, n, map[i].name))
      return map[i].bytes;
  }
  return 0;
}

const char *trace_op_name(enum trace_op op) {
  static const char *names[TRACE_OP_N] = {
      "unknown", "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
      "send_recv", "reduce", "gather", "scatter", "barrier",
  };
  return (unsigned)op < TRACE_OP_N ? names[op] : "unknown";
}

/* nccl-tests doc/PERFORMANCE.md: busbw = algbw x factor. all_reduce moves
 * 2(n-1)/n of the buffer per rank; all_gather, reduce_scatter, all_to_all,
 * gather and scatter (n-1)/n; broadcast, reduce and send/recv 1. */
double trace_bus_factor(enum trace_op op, int64_t n) {
  if (n <= 0)
    return 0;
  double f = (double)(n - 1) / (double)n;
  switch (op) {
  case TRACE_OP_ALL_REDUCE:
    return 2 * f;
  case TRACE_OP_ALL_GATHER:
  case TRACE_OP_REDUCE_SCATTER:
  case TRACE_OP_ALL_TO_ALL:
  case TRACE_OP_GATHER:
  case TRACE_OP_SCATTER:
    return f;
  case TRACE_OP_BROADCAST:
  case TRACE_OP_REDUCE:
  case TRACE_OP_SEND_RECV:
    return 1;
  default:
    return 0;
  }
}

int64_t trace_rank_from_path(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  for (size_t i = 0; i + 4 < n; i++) {
    if (!ieq_prefix(base + i, n - i, "rank"))
      continue;
    size_t j = i + 4;
    if (j < n && (base[j] == '-' || base[j] == '_' || base[j] == '.'))
      j++;
    if (j >= n || !isdigit((unsigned char)base[j]))
      continue;
    int64_t r = 0;
    for (; j < n && isdigit((unsigned char)base[j]) && r < 100000000; j++)
      r = r * 10 + (base[j] - '0');
    return r;
  }
  return -1;
}
