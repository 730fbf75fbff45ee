/* figs.c: the study's figures in report order, and their findings.
 * Every figure is rebuilt from the results when asked, so the sentences can
 * only say what the data says. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

typedef void (*fig_fn)(const struct pl_study *st, struct study_fig *f);

static const fig_fn figures[] = {
    study_fig_scaling,     study_fig_mfu,         study_fig_breakdown,   study_fig_exposed,
    study_fig_power,       study_fig_best,        study_fig_generations, study_fig_gen_scaling,
    study_fig_memory,      study_fig_batch,       study_fig_collectives, study_fig_collectives_size,
    study_fig_measured,
};
#define N_FIGS ((int)(sizeof figures / sizeof figures[0]))

struct study_fig *study_figs_build(const struct pl_study *st, int *n) {
  struct study_fig *f = pl_calloc((size_t)N_FIGS, sizeof *f);
  if (f == NULL)
    return NULL;
  for (int i = 0; i < N_FIGS; i++) {
    figures[i](st, &f[i]);
    size_t len = strlen(f[i].findings);
    while (len > 0 && f[i].findings[len - 1] == ' ')
      f[i].findings[--len] = '\0';
  }
  *n = N_FIGS;
  return f;
}

int pl_study_findings(const struct pl_study *st, struct pl_study_finding *out, int max) {
  int n = 0, k = 0;
  struct study_fig *f = study_figs_build(st, &n);
  if (f == NULL)
    return 0;
  for (int i = 0; i < n && k < max; i++) {
    if (f[i].skip[0] != '\0' || f[i].findings[0] == '\0')
      continue;
    study_copy(out[k].figure, sizeof out[k].figure, f[i].id);
    study_copy(out[k].text, sizeof out[k].text, f[i].findings);
    k++;
  }
  pl_free(f);
  return k;
}
