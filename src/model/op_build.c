/* op_build.c: the two op builders every op list of src/model shares
 * (flops.c's transformer ops, mamba.c's Mamba-2 ops): a GEMM of count
 * products of one shape, and a memory-bound op with per-element costs. One
 * file below both so neither calls the other back. */
#include <plateau/flops.h>

#include <string.h>

#include "model/constants.h"
#include "model/model_int.h"

void model_op_gemm(struct pl_op *op, const char *name, int64_t m, int64_t n, int64_t k,
                   int64_t count) {
  memset(op, 0, sizeof *op);
  op->name = name;
  op->kind = PL_OP_GEMM;
  op->m = m;
  op->n = n;
  op->k = k;
  op->count = count;
  op->share = 1.0;
  op->fwd_flops = 2.0 * (double)m * (double)n * (double)k;
  op->bwd_flops = 2.0 * op->fwd_flops;
  op->fwd_bytes = BF16_BYTES * ((double)m * k + (double)k * n + (double)m * n);
  op->bwd_bytes = 2.0 * op->fwd_bytes; /* dgrad and wgrad each touch three matrices */
  op->fwd_flops *= (double)count;
  op->bwd_flops *= (double)count;
  op->fwd_bytes *= (double)count;
  op->bwd_bytes *= (double)count;
}

void model_op_memory(struct pl_op *op, const char *name, double elems, double fwd_flops,
                     double bwd_flops, double fwd_bytes, double bwd_bytes) {
  memset(op, 0, sizeof *op);
  op->name = name;
  op->kind = PL_OP_MEMORY;
  op->count = 1;
  op->share = 1.0;
  op->fwd_flops = fwd_flops * elems;
  op->bwd_flops = bwd_flops * elems;
  op->fwd_bytes = fwd_bytes * elems;
  op->bwd_bytes = bwd_bytes * elems;
}
