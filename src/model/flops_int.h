/* flops_int.h (internal to src/model): what flops.c (the operations of a
 * step) and flops_totals.c (its FLOP totals) share: the per-GPU dimensions of
 * one micro-batch. */
#ifndef PL_FLOPS_INT_H
#define PL_FLOPS_INT_H

#include <stdint.h>

#include <plateau/layout.h>
#include <plateau/model.h>

#include "model/model_int.h"

/* The per-GPU dimensions of one micro-batch. */
struct dims {
  int64_t tp;
  int64_t seq;      /* tokens per sequence */
  int64_t s_q;      /* query tokens per sequence on this GPU: seq / cp */
  int64_t s_k;      /* keys each query is counted against: min(seq, window, packed sample) */
  int64_t pack;     /* layout.packed_sample_len when it splits the sequence (< seq), else 0:
                       attention runs per packed sample of pack tokens (finetune.c) */
  int64_t tokens;   /* mbs * s_q */
  int64_t tokens_n; /* tokens of norms/residuals: / tp with sequence parallelism */
  int64_t mbs;
};

static inline struct dims dims_of(const struct pl_model *m, const struct pl_layout *l) {
  struct dims d;
  d.tp = deg(l->tp);
  d.seq = l->seq > 0 ? l->seq : m->seq_len;
  d.s_q = d.seq / deg(l->cp);
  d.s_k = m->sliding_window > 0 && m->sliding_window < d.seq ? m->sliding_window : d.seq;
  d.pack = l->packed_sample_len > 0 && l->packed_sample_len < d.seq ? l->packed_sample_len : 0;
  if (d.pack > 0 && d.pack < d.s_k)
    d.s_k = d.pack;
  d.mbs = deg(l->mbs);
  d.tokens = d.mbs * d.s_q;
  d.tokens_n = l->sp && d.tp > 1 ? d.tokens / d.tp : d.tokens;
  return d;
}

#endif
