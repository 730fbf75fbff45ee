/* best.c: the best layout at one grid point, by throughput, from the
 * layout search (include/plateau/search.h, docs/search.md). This is the one
 * place the study picks a layout, so another search can be switched in here.
 * The search runs serially: the study already spreads points over threads. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

void study_best_layout(const struct pl_study *st, const struct pl_run *base,
                       struct pl_study_point *p) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.objective = PL_OBJECTIVE_THROUGHPUT;
  o.top_k = 1;
  struct pl_diag d;
  pl_diag_clear(&d);
  /* The spec's constraints were checked when it was parsed. */
  if (st->spec.best_space[0] != '\0' &&
      pl_search_space_parse(st->spec.best_space, &o.space, &d) != PL_OK) {
    p->status = PL_STUDY_INFEASIBLE;
    p->why[0] = '\0';
    study_appendf(p->why, sizeof p->why, "best: %s", d.msg);
    return;
  }
  struct pl_search_result r;
  if (pl_search_run(base, &o, &r, &d) != PL_OK) {
    p->status = PL_STUDY_INFEASIBLE;
    p->why[0] = '\0';
    study_appendf(p->why, sizeof p->why, "best: %s", d.msg);
    return;
  }
  p->search_evaluated = r.evaluated;
  if (r.n_hits > 0) {
    p->pred = r.hits[0].pred;
    p->has_pred = true;
    p->status = PL_STUDY_OK;
  } else if (r.has_closest) {
    p->pred = r.closest;
    p->has_pred = true;
    p->status = PL_STUDY_NO_FIT;
    p->why[0] = '\0';
    study_appendf(p->why, sizeof p->why, "no layout fits; the closest %s", r.closest.memory.why);
  } else {
    p->status = PL_STUDY_INFEASIBLE;
    study_setf(p->why, sizeof p->why, "no layout can run (%lld considered, all rejected)",
               (long long)r.considered);
  }
  pl_search_result_free(&r);
}
