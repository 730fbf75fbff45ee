/* measured.c: measured runs for the study's figures. Each directory
 * is one run (a Kineto trace per rank), analyzed with pl_trace_analyze
 * (include/plateau/trace.h, docs/trace.md): step time, compute, overlapped and
 * exposed communication (means over ranks), and the collectives whose size
 * and group are known, with their nccl-tests bus bandwidth. */
#include "study_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/trace.h>

static void label_of(const char *path, char *buf, size_t n) {
  char tmp[512];
  study_copy(tmp, sizeof tmp, path);
  size_t len = strlen(tmp);
  while (len > 1 && tmp[len - 1] == '/')
    tmp[--len] = '\0';
  const char *slash = strrchr(tmp, '/');
  study_setf(buf, n, "%s", slash != NULL ? slash + 1 : tmp);
}

static int by_time_desc(const void *a, const void *b) {
  const struct pl_study_mcoll *x = a, *y = b;
  if (x->time_s != y->time_s)
    return x->time_s < y->time_s ? 1 : -1;
  return strcmp(x->op, y->op);
}

/* The collectives with known size and group, the most time-consuming first. */
static void take_colls(const struct pl_trace_set *set, struct pl_study_measured *m) {
  struct pl_study_mcoll all[64];
  int n = 0;
  for (int i = 0; i < set->n_coll && n < 64; i++) {
    const struct pl_trace_coll *c = &set->coll[i];
    if (c->group_size < 2 || !(c->bytes > 0.0) || !(c->busbw_bytes_per_s > 0.0))
      continue;
    struct pl_study_mcoll *x = &all[n++];
    study_copy(x->op, sizeof x->op, c->op);
    x->group_size = c->group_size;
    x->bytes = c->bytes;
    x->time_s = c->time_s;
    x->busbw_bytes_per_s = c->busbw_bytes_per_s;
  }
  qsort(all, (size_t)n, sizeof all[0], by_time_desc);
  m->n_coll = n < PL_STUDY_MAX_MCOLL ? n : PL_STUDY_MAX_MCOLL;
  memcpy(m->coll, all, (size_t)m->n_coll * sizeof all[0]);
}

static enum pl_status one(const char *dir, int threads, struct pl_study_measured *m,
                          struct pl_diag *diag) {
  struct pl_trace_opts o = {-1, threads, false};
  struct pl_trace_set *set = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status rc = pl_trace_analyze(&dir, 1, &o, &set, &d);
  if (rc != PL_OK)
    return pl_diag_set(diag, rc, "--measured '%s': %s", dir, d.msg);
  memset(m, 0, sizeof *m);
  label_of(dir, m->label, sizeof m->label);
  study_copy(m->path, sizeof m->path, dir);
  m->n_ranks = set->n_ranks;
  m->world_size = set->world_size > 0 ? set->world_size : set->n_ranks;
  m->step_time_s = set->step_time_s.mean;
  m->compute_s = set->compute_s.mean;
  m->comm_s = set->comm_s.mean;
  m->overlapped_comm_s = set->overlapped_comm_s.mean;
  m->exposed_comm_s = set->exposed_comm_s.mean;
  take_colls(set, m);
  bool gpu = set->any_gpu;
  pl_trace_set_free(set);
  if (!gpu || !(m->step_time_s > 0.0))
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                       "--measured '%s': no GPU kernels in complete steps, nothing to compare",
                       dir);
  return PL_OK;
}

enum pl_status pl_study_add_measured(struct pl_study *st, const char *const *dirs, int n,
                                     int threads, struct pl_diag *diag) {
  if (st->n_measured + n > PL_STUDY_MAX_MEASURED)
    return pl_diag_set(diag, PL_ERR_LIMIT, "--measured: %d runs, at most %d", st->n_measured + n,
                       PL_STUDY_MAX_MEASURED);
  for (int i = 0; i < n; i++) {
    enum pl_status rc = one(dirs[i], threads, &st->measured[st->n_measured], diag);
    if (rc != PL_OK)
      return rc;
    st->n_measured++;
  }
  return PL_OK;
}
