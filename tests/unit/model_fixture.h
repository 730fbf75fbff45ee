/* model_fixture.h: helpers the model-level unit tests share: a preset
 * loaded (the test fails on a load error), a layout resolved as the CLI
 * would on 8-GPU nodes, and an op found by name. */
#ifndef PLATEAU_TEST_MODEL_FIXTURE_H
#define PLATEAU_TEST_MODEL_FIXTURE_H

#include <plateau/flops.h>
#include <plateau/hw.h>
#include <plateau/layout.h>
#include <plateau/model.h>

#include <stdio.h>
#include <string.h>

#include "check.h"

static inline struct pl_model model(const char *name) {
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  memset(&m, 0, sizeof m);
  CHECK_STATUS(pl_model_load(name, &m, &d), PL_OK, dp);
  return m;
}

/* l (its fields as a user sets them) resolved against m on 8-GPU nodes; the
 * test fails when it does not resolve. */
static inline struct pl_layout resolved(const struct pl_model *m, struct pl_layout l) {
  struct pl_cluster c;
  struct pl_diag d, *dp = &d;
  memset(&c, 0, sizeof c);
  c.gpus_per_node = 8;
  CHECK_STATUS(pl_layout_resolve(&l, m, &c, &d), PL_OK, dp);
  return l;
}

/* The op named name among ops[0..n), or NULL. */
static inline const struct pl_op *find(const struct pl_op *ops, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(ops[i].name, name) == 0)
      return &ops[i];
  return NULL;
}

/* A model file's JSON refused by pl_model_from_json with a message that
 * contains msg (the test fails otherwise and prints what it got). */
static inline void model_json_refused(const char *json, const char *msg) {
  struct pl_model m;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_model_from_json(json, strlen(json), "test", &m, &d);
  CHECK(st != PL_OK);
  CHECK(strstr(d.msg, msg) != NULL);
  if (st == PL_OK || strstr(d.msg, msg) == NULL)
    fprintf(stderr, "  got: %s\n", d.msg);
}

/* The start of a small dense model file and a Mamba-2 mixer's fields, for
 * hybrid-stack refusal tests (test_mamba.c, test_moe_latent.c). */
#define HYBRID_JSON_BASE                                                                           \
  "{\"name\": \"h\", \"hidden\": 256, \"heads\": 4, \"ffn_hidden\": 512, \"vocab\": 1000, "        \
  "\"seq_len\": 512, \"mlp\": \"gelu\", \"pos\": \"rotary\", \"norm\": \"rms\", "
#define HYBRID_JSON_MAMBA                                                                          \
  "\"mamba_heads\": 8, \"mamba_head_dim\": 64, \"mamba_groups\": 2, \"mamba_state\": 16"

#endif
