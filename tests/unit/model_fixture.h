/* model_fixture.h: helpers the model-level unit tests share: a preset
 * loaded (the test fails on a load error) and an op found by name. */
#ifndef PLATEAU_TEST_MODEL_FIXTURE_H
#define PLATEAU_TEST_MODEL_FIXTURE_H

#include <plateau/flops.h>
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

/* The op named name among ops[0..n), or NULL. */
static inline const struct pl_op *find(const struct pl_op *ops, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(ops[i].name, name) == 0)
      return &ops[i];
  return NULL;
}

#endif
