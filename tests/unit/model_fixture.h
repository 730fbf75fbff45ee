/* model_fixture.h: helpers the model-level unit tests share: a preset
 * loaded (the test fails on a load error), a layout resolved as the CLI
 * would on 8-GPU nodes, and an op found by name. */
#ifndef PLATEAU_TEST_MODEL_FIXTURE_H
#define PLATEAU_TEST_MODEL_FIXTURE_H

#include <plateau/flops.h>
#include <plateau/hw.h>
#include <plateau/layout.h>
#include <plateau/model.h>

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

#endif
