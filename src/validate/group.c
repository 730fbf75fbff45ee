/* group.c: the validation summary grouped by dataset, GPU, framework or
 * precision (`plateau validate --by`, docs/accuracy.md "Usage").
 *
 * Each group is summarized exactly as a dataset is (pl_validation_summarize:
 * rows, predicted, mean/median/worst |error|, mean signed error), over the
 * rows whose key equals the group's name. Keys come from what the row was
 * read as: the dataset (file) name, the GPU preset, the framework its source
 * names, the precision of its layout; a row not read far enough to have one
 * is "unknown". Groups are listed in the order of their first row, so the
 * output follows the input files. */
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/validate.h>

#include "validate/validate_int.h"

static const char *const names[] = {"dataset", "gpu", "framework", "dtype"};

const char *pl_vgroup_name(enum pl_vgroup g) {
  return (size_t)g < sizeof names / sizeof names[0] ? names[g] : "?";
}

enum pl_status pl_vgroup_parse(const char *s, enum pl_vgroup *out, struct pl_diag *diag) {
  int i = name_index(names, sizeof names / sizeof names[0], s);
  if (i >= 0) {
    *out = (enum pl_vgroup)i;
    return PL_OK;
  }
  return pl_diag_set(diag, PL_ERR_RANGE,
                     "group '%s' unknown (known: dataset, gpu, framework, dtype)", s);
}

static const char *key(const struct pl_vrow *r, enum pl_vgroup by) {
  const char *k = "";
  switch (by) {
  case PL_VGROUP_DATASET:
    k = r->dataset;
    break;
  case PL_VGROUP_GPU:
    k = r->gpu;
    break;
  case PL_VGROUP_FRAMEWORK:
    k = r->framework;
    break;
  case PL_VGROUP_DTYPE:
    k = r->layout.gpus > 0 ? pl_dtype_name(r->layout.dtype) : ""; /* gpus 0: run not built */
    break;
  }
  return k[0] != '\0' ? k : "unknown";
}

struct match {
  enum pl_vgroup by;
  const char *name;
};

static bool in_group(const struct pl_vrow *r, const void *arg) {
  const struct match *m = arg;
  return strcmp(key(r, m->by), m->name) == 0;
}

static bool seen(const struct pl_vgroups *g, const char *name) {
  for (size_t i = 0; i < g->n; i++)
    if (strcmp(g->groups[i].name, name) == 0)
      return true;
  return false;
}

enum pl_status pl_validation_group(const struct pl_validation *v, enum pl_vgroup by,
                                   struct pl_vgroups *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->by = by;
  /* at most one group per row */
  out->groups = pl_reallocarray(NULL, v->n_rows > 0 ? v->n_rows : 1, sizeof *out->groups);
  if (out->groups == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory grouping by %s",
                       pl_vgroup_name(by));
  for (size_t i = 0; i < v->n_rows; i++) {
    const char *name = key(&v->rows[i], by);
    if (seen(out, name))
      continue;
    struct match m = {by, name};
    enum pl_status st = validate_summarize_sel(v->rows, v->n_rows, in_group, &m, name,
                                               &out->groups[out->n], diag);
    if (st != PL_OK) {
      pl_vgroups_free(out);
      return st;
    }
    out->n++;
  }
  return PL_OK;
}

void pl_vgroups_free(struct pl_vgroups *g) {
  pl_free(g->groups);
  memset(g, 0, sizeof *g);
}
