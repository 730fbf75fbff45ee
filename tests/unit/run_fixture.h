/* run_fixture.h: the small Llama-style run that the simulator's unit tests
 * derive their expected figures from by hand: h 1024, 8 heads of 128 (kv 8),
 * ffn 2816 (SwiGLU), RMSNorm, RoPE, no biases, no dropout, vocab 32000, two
 * layers; tp 1, cp 1, mbs 2 x seq 512 (1024 tokens), plain data parallel. */
#ifndef PLATEAU_TEST_RUN_FIXTURE_H
#define PLATEAU_TEST_RUN_FIXTURE_H

#include <plateau/predict.h>

#include <string.h>

static inline void small_llama(struct pl_run *run) {
  memset(run, 0, sizeof *run);
  struct pl_model *m = &run->model;
  m->layers = 2;
  m->hidden = 1024;
  m->heads = m->kv_heads = 8;
  m->head_dim = 128;
  m->ffn_hidden = 2816;
  m->vocab = 32000;
  m->seq_len = 512;
  m->mlp = PL_MLP_SWIGLU;
  m->norm = PL_NORM_RMS;
  m->pos = PL_POS_ROTARY;
  run->layout.tp = run->layout.cp = 1;
  run->layout.mbs = 2;
  run->layout.seq = 512;
  run->layout.shard = PL_SHARD_DDP;
}

#endif
