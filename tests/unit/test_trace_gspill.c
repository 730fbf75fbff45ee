/* test_trace_gspill.c: GPU events spilled to temporary files (src/trace/
 * gspill.c: linked there, measured by one sweep over runs sorted by start)
 * give exactly the results of the in-memory path (interval lists). Every
 * shipped trace (tests/data/traces, SOURCES.md there) and the generated
 * multi-step trace of trace_gen.h (kernels before their launches,
 * flows apart from runtime calls, a correlation with two kernels, recompute
 * frames, collectives found by External id and by time) are analyzed with
 * the default budgets (nothing spills: they are small) and with GPU budgets
 * of 4 to 128 records, alone and with launches spilled too (also on a
 * variant whose kernels run on two GPUs); every number of
 * every rank, collective and call must be identical, and so must the linked
 * records themselves. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "alloc_inject.h"
#include "check.h"
#include "trace/trace_int.h"
#include "trace_gen.h"

static struct pl_trace_set *run(const char *path, bool whole, int64_t launch_budget,
                                int64_t gpu_budget) {
  struct pl_trace_opts o = {-1, 1, whole};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = trace_analyze_budgets(&path, 1, &o, true, launch_budget, gpu_budget, &s, &d);
  if (st != PL_OK)
    fprintf(stderr, "%s: %s\n", path, d.msg);
  return s;
}

/* (gpu, launch) budgets in bytes: 128 is 4 GPU records of 32 bytes (the
 * minimum), so every piece of 4 GPU events spills, alone; 1024 (32 records)
 * with launches spilled 4 at a time; 4096 (128 records) alone */
static void compare(const char *path) {
  static const int64_t budgets[][2] = {{128, 0}, {1024, 128}, {4096, 0}};
  for (int w = 0; w < 2; w++) {
    struct pl_trace_set *ref = run(path, w == 1, 0, 0);
    CHECK(ref != NULL);
    for (size_t b = 0; ref != NULL && b < sizeof budgets / sizeof *budgets; b++) {
      struct pl_trace_set *s = run(path, w == 1, budgets[b][1], budgets[b][0]);
      CHECK(s != NULL);
      if (s != NULL && !same_set(ref, s)) {
        fprintf(stderr, "differs: %s, whole %d, gpu budget %lld, launch budget %lld\n", path, w,
                (long long)budgets[b][0], (long long)budgets[b][1]);
        CHECK(false);
      }
      pl_trace_set_free(s);
    }
    pl_trace_set_free(ref);
  }
}

/* The spilled records, linked, gathered back into one array. */
struct gathered {
  struct trace_grec *v;
  size_t n, cap;
};

static void gather(void *ctx, struct trace_grec *r, size_t n) {
  struct gathered *g = ctx;
  for (size_t i = 0; i < n && g->n < g->cap; i++)
    g->v[g->n++] = r[i];
}

/* What linking decides, byte for byte: every GPU event's record (step and
 * flags) and every NCCL kernel's collective, in memory and from the file. */
static void check_links(const char *path, int64_t launch_budget) {
  struct trace_data a, b;
  struct pl_diag diag;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  pl_diag_clear(&diag);
  b.gpu_budget_bytes = 128;
  b.spill_budget_bytes = launch_budget;
  CHECK_STATUS(trace_read(path, &a, &diag), PL_OK, diag_ptr(&diag));
  CHECK_STATUS(trace_read(path, &b, &diag), PL_OK, diag_ptr(&diag));
  CHECK(a.gspill == NULL && b.gspill != NULL && b.gpu.len <= 4);
  CHECK_STATUS(trace_link(&a, &diag), PL_OK, diag_ptr(&diag));
  CHECK_STATUS(trace_link(&b, &diag), PL_OK, diag_ptr(&diag));
  CHECK(b.gpu.len == 0 && b.gsorted != NULL && (size_t)b.n_gspill == a.gpu.len);
  struct gathered g = {calloc(a.gpu.len + 1, sizeof *g.v), 0, a.gpu.len};
  CHECK(g.v != NULL);
  if (g.v != NULL)
    CHECK_STATUS(trace_gspill_each(&b, false, gather, &g, &diag), PL_OK, diag_ptr(&diag));
  CHECK(g.n == a.gpu.len);
  size_t k = 0;
  bool same = true;
  for (size_t i = 0; g.v != NULL && i < g.n; i++) {
    const struct trace_gpu *x = &TRACE_AT(a.gpu, struct trace_gpu, i);
    same &= memcmp(x, &g.v[i].g, sizeof *x) == 0;
    if (x->kind == TRACE_COMM && k < a.comm.len) {
      const struct trace_comm *c = &TRACE_AT(a.comm, struct trace_comm, k++);
      same &= c->gpu == (int32_t)i && c->coll == g.v[i].coll && c->ext_id == g.v[i].ext_id;
    }
  }
  CHECK(same && k == a.comm.len);
  free(g.v);
  trace_data_free(&a);
  trace_data_free(&b);
}

int main(void) {
  for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++)
    compare(shipped[i]);
  const char *gen = gen_trace();
  CHECK(gen != NULL);
  if (gen != NULL) {
    compare(gen);
    check_links(gen, 0);
    check_links(gen, 128);
    /* 14 steps, default skip 14 / 6 = 2: 12 kept; recompute and both
     * collectives (allreduce, _allgather_base) seen from the file too */
    struct pl_trace_set *s = run(gen, false, 128, 128);
    CHECK(s != NULL && s->ranks[0].steps_total == 14 && s->ranks[0].steps == 12);
    CHECK(s != NULL && s->ranks[0].recompute_s > 0 && s->ranks[0].n_coll == 2);
    pl_trace_set_free(s);
    fail_each(gen, 128, 128);
    remove(gen);
  }
  trace_gen_two_devices = true;
  gen = gen_trace();
  CHECK(gen != NULL);
  if (gen != NULL) {
    compare(gen);
    check_links(gen, 128);
    struct pl_trace_set *s = run(gen, false, 0, 128);
    CHECK(s != NULL && s->n_ranks == 2); /* pid 0 and pid 3 */
    pl_trace_set_free(s);
    remove(gen);
  }
  check_links(TR "kineto2021_resnet50_worker0.json.gz", 0);
  check_links(TR "tracelens_mi300_resnet_act_checkpoint.json.gz", 128);
  check_links(TR "hta_nccl_data.json.gz", 0);
  return check_finish();
}
