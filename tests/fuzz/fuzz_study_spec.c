/* fuzz_study_spec.c: libFuzzer target for the study spec reader
 * (pl_study_spec_parse, src/study/spec.c).
 *
 * A spec that parses must be usable by pl_study_run: every axis within
 * 1..PL_STUDY_MAX_AXIS, nodes ascending and positive, every string
 * NUL-terminated, "fsdp" present, the focus model/cluster among the axes.
 * An error must carry a message. The study itself is not run (a grid runs
 * for seconds; tests/cli/sweep_study.sh covers it).
 *
 * Seed corpus (tests/fuzz/corpus/fuzz_study_spec/): the specs of
 * docs/study.md and tests/cli/sweep_study.sh, and bad_* specs with one
 * wrong field each. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

static void die(const char *what) {
  fprintf(stderr, "fuzz_study_spec: invariant broken: %s\n", what);
  abort();
}

static bool axis_ok(int n) { return n >= 1 && n <= PL_STUDY_MAX_AXIS; }

static bool terminated(const char *s, size_t n) { return memchr(s, '\0', n) != NULL; }

static void check_spec(const struct pl_study_spec *s) {
  if (!axis_ok(s->n_models) || !axis_ok(s->n_clusters) || !axis_ok(s->n_nodes) ||
      !axis_ok(s->n_strategies) || !axis_ok(s->n_batches))
    die("an axis outside 1..PL_STUDY_MAX_AXIS");
  for (int i = 0; i < s->n_nodes; i++)
    if (s->nodes[i] < 1 || (i > 0 && s->nodes[i] <= s->nodes[i - 1]))
      die("nodes not positive and ascending");
  for (int i = 0; i < s->n_batches; i++)
    if (s->batches[i].n < 1)
      die("a batch of fewer than one sequence");
  for (int i = 0; i < s->n_models; i++)
    if (!terminated(s->models[i], sizeof s->models[i]))
      die("an unterminated model name");
  for (int i = 0; i < s->n_clusters; i++)
    if (!terminated(s->clusters[i], sizeof s->clusters[i]))
      die("an unterminated cluster name");
  for (int i = 0; i < s->n_strategies; i++)
    if (!terminated(s->strategies[i], sizeof s->strategies[i]))
      die("an unterminated strategy name");
  if (pl_study_spec_strategy(s, "fsdp") < 0)
    die("a spec without the fsdp baseline");
  if (s->seq < 1 || !(s->coll_bytes > 0))
    die("seq or coll_bytes not positive");
  if (!terminated(s->best_space, sizeof s->best_space) ||
      !terminated(s->focus_model, sizeof s->focus_model) ||
      !terminated(s->focus_cluster, sizeof s->focus_cluster))
    die("an unterminated string");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct pl_study_spec s;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_study_spec_parse((const char *)data, size, "fuzz", &s, &d) == PL_OK)
    check_spec(&s);
  else if (d.msg[0] == '\0')
    die("a spec error without a message");
  return 0;
}
