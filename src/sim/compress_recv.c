/* compress_recv.c: with per-stage periods (compress_stage.c), the pp
 * transfers each stage receives, added once the step is done
 * (compress_int.h; docs/step-model.md section 11). */
#include <plateau/alloc.h>

#include <math.h>
#include <stddef.h>

#include "sim/compress_int.h"

/* ---- transfers received, with per-stage periods ----
 * A pp send counts as comm of the stage receiving it (account.c): the
 * receiver's exposed or overlapped time grows by the part of the send not
 * under its own comm, split by its compute stream being busy. Between
 * stages of different periods the sends slide against the receiver's
 * activity from period to period, so the inserted periods cannot carry
 * them as k copies; the engine therefore integrates each rank's own comm
 * only (acc_start), and here, with the step done, each send into a rank
 * at its time in the whole step (simulated, or the image j periods on of
 * one of the sender's last period before the cut) is laid over the
 * receiver's timeline at that time: as simulated before the cut and after
 * its inserted time, and inside it the receiver's last period before the
 * cut, j of its periods back. Exact as the sweep is, in another order. */

struct span {
  double a, b; /* [a, b) */
};

/* Stream s's tasks in the whole step's time, in start order: as simulated,
 * and the one running at the cut also as it ran before (its image k
 * periods earlier). */
static int32_t own_spans(const struct sim_engine *e, int32_t s, struct span *out) {
  const struct sim_cmp *c = &e->cmp;
  double shift = c->cut_shift[stream_rank(e, s)];
  const int32_t *ids = &c->sid[c->soff[s]];
  int32_t n = stream_count(e, s), k = 0;
  for (int32_t p = 0; p < n; p++) {
    const struct sim_task *t = &e->tasks[ids[p]];
    if (ids[p] == c->cut_run[s])
      out[k++] = (struct span){t->start_s - shift, t->end_s - shift};
    out[k++] = (struct span){t->start_s, t->end_s};
  }
  return k;
}

/* Stream s's sends to rank b in the whole step's time, in start order:
 * those finished before the cut, the images of its last period's (j = 1
 * .. k periods on), and those started after. */
static int32_t send_spans(const struct sim_engine *e, int32_t s, int32_t b, struct span *out) {
  const struct sim_cmp *c = &e->cmp;
  const int32_t *ids = &c->sid[c->soff[s]];
  int32_t n = stream_count(e, s), fin = c->fin[s], d = c->cut_d[s], k = 0;
  double P = stage_period(c, stream_rank(e, s));
  for (int32_t p = 0; p <= n; p++) { /* p == n: every send finished before the cut */
    if (p == fin)
      for (int32_t j = 1; j <= c->cut_k && d > 0; j++)
        for (int32_t q = fin - d; q < fin; q++) {
          const struct sim_task *t = &e->tasks[ids[q]];
          if (e->meta[ids[q]].peer == b)
            out[k++] = (struct span){t->start_s + j * P, t->end_s + j * P};
        }
    if (p == n)
      break;
    const struct sim_task *t = &e->tasks[ids[p]];
    if (e->meta[ids[p]].peer == b)
      out[k++] = (struct span){t->start_s, t->end_s};
  }
  return k;
}

/* The union of n sorted lists (list i: in[off[i] .. off[i + 1])), in start
 * order, into out; returns its length. */
static int32_t union_of(const struct span *in, const int32_t *off, int n, struct span *out) {
  int32_t at[SIM_MAX_RANK_STREAMS], k = 0;
  for (int i = 0; i < n; i++)
    at[i] = off[i];
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (at[i] < off[i + 1] && (best < 0 || in[at[i]].a < in[at[best]].a))
        best = i;
    if (best < 0)
      return k;
    struct span x = in[at[best]++];
    if (k > 0 && x.a <= out[k - 1].b)
      out[k - 1].b = x.b > out[k - 1].b ? x.b : out[k - 1].b;
    else
      out[k++] = x;
  }
}

/* The first of the sorted, disjoint spans l[0 .. n) that ends after x (n
 * when none). */
static int32_t ending_after(const struct span *l, int32_t n, double x) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (l[mid].b <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Length of [x0, x1) inside the sorted, disjoint spans l[0 .. n). */
static double inside(const struct span *l, int32_t n, double x0, double x1) {
  double t = 0;
  for (int32_t i = ending_after(l, n, x0); i < n && l[i].a < x1; i++) {
    double a = l[i].a > x0 ? l[i].a : x0, b = l[i].b < x1 ? l[i].b : x1;
    t += b > a ? b - a : 0;
  }
  return t;
}

/* A receiver's timeline: its own comm streams' spans (list i: own[off[i]
 * .. off[i + 1]), each sorted and disjoint) and its compute spans. */
struct recv_line {
  const struct span *own, *comp;
  const int32_t *off;
  int n, n_comp;
};

/* [x0, x1) of the timeline as simulated: the part not under own comm,
 * split by compute busy or idle. The own streams are walked together from
 * x0 (a cursor each): a point under one of their spans moves to the
 * furthest end among those covering it; a free point starts a gap up to
 * the next span's start. */
static void not_own(const struct recv_line *L, double x0, double x1, double *idle, double *busy) {
  int32_t at[SIM_MAX_RANK_STREAMS];
  for (int i = 0; i < L->n; i++)
    at[i] = L->off[i] + ending_after(L->own + L->off[i], L->off[i + 1] - L->off[i], x0);
  double g = x0;
  while (g < x1) {
    double cover = g, next = x1;
    for (int i = 0; i < L->n; i++) {
      while (at[i] < L->off[i + 1] && L->own[at[i]].b <= g)
        at[i]++;
      if (at[i] == L->off[i + 1])
        continue;
      const struct span *p = &L->own[at[i]];
      if (p->a <= g)
        cover = p->b > cover ? p->b : cover;
      else
        next = p->a < next ? p->a : next;
    }
    if (cover > g) {
      g = cover;
      continue;
    }
    double under = inside(L->comp, L->n_comp, g, next);
    *busy += under;
    *idle += (next - g) - under;
    g = next;
  }
}

/* The same at whole-step times: inside rank r's inserted time, mapped j
 * periods back into its last period before the cut. */
static void not_own_at(const struct sim_engine *e, int32_t r, const struct recv_line *L, double x0,
                       double x1, double *idle, double *busy) {
  const struct sim_cmp *c = &e->cmp;
  double cut = c->cut_s, end = cut + c->cut_shift[r], P = stage_period(c, r);
  if (x0 < cut) {
    not_own(L, x0, x1 < cut ? x1 : cut, idle, busy);
    x0 = cut;
  }
  while (x0 < x1 && x0 < end) {
    /* x0 in the j-th inserted period, [cut + (j - 1) P, cut + j P) */
    int32_t j = (int32_t)floor((x0 - cut) / P) + 1;
    j = j < 1 ? 1 : j;
    while (j < c->cut_k && cut + j * P <= x0) /* rounding at a period's edge */
      j++;
    j = j < c->cut_k ? j : c->cut_k;
    double y = j == c->cut_k ? end : cut + j * P;
    y = y < x1 ? y : x1;
    not_own(L, x0 - j * P, y - j * P, idle, busy);
    x0 = y;
  }
  if (x0 < x1)
    not_own(L, x0, x1, idle, busy);
}

/* Add every rank's transfers received (see above). */
static enum pl_status stage_recv(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  /* room for one rank's tasks with a pre-image per stream, and twice for
   * every send with its images (the lists, then their union) */
  size_t cap = 1, sends = 1;
  for (int32_t r = 0; r < e->n_ranks; r++) {
    size_t n = 0;
    for (int j = 0; j < e->ranks[r].n_streams; j++)
      n += (size_t)stream_count(e, e->ranks[r].streams[j]) + 1;
    cap = n > cap ? n : cap;
  }
  for (int32_t s = 0; s < e->n_streams; s++)
    if (e->streams[s].first != SIM_NONE && e->meta[e->streams[s].first].peer >= 0)
      sends += (size_t)stream_count(e, s) + (size_t)c->cut_k * (size_t)c->cut_d[s];
  struct span *buf = sim_malloc((cap + 2 * sends) * sizeof *buf);
  if (buf == NULL)
    return PL_ERR_NOMEM;
  struct span *raw = buf + cap, *in = raw + sends;
  for (int32_t r = 0; r < e->n_ranks; r++) {
    /* the sends into r, as one union (1F1B with vp = 1: one stream of
     * each neighbour sends to it) */
    int32_t off[SIM_MAX_RANK_STREAMS + 1], n = 0;
    off[0] = 0;
    for (int32_t s = 0; s < e->n_streams && n < SIM_MAX_RANK_STREAMS; s++) {
      int32_t first = e->streams[s].first;
      if (first == SIM_NONE || stream_rank(e, s) == r || e->meta[first].peer < 0)
        continue;
      int32_t got = send_spans(e, s, r, raw + off[n]);
      if (got > 0) {
        off[n + 1] = off[n] + got;
        n++;
      }
    }
    int32_t m = union_of(raw, off, n, in);
    if (m == 0)
      continue;
    /* r's own spans: compute first in buf, then each comm stream */
    const struct sim_rank *rk = &e->ranks[r];
    int32_t own_off[SIM_MAX_RANK_STREAMS + 1], n_own = 0, n_comp = 0, at = 0;
    for (int j = 0; j < rk->n_streams; j++) {
      int32_t s = rk->streams[j], first = e->streams[s].first;
      if (first != SIM_NONE && e->tasks[first].res == SIM_RES_COMPUTE)
        at = n_comp = own_spans(e, s, buf);
    }
    own_off[0] = at;
    for (int j = 0; j < rk->n_streams; j++) {
      int32_t s = rk->streams[j], first = e->streams[s].first;
      if (first == SIM_NONE || e->tasks[first].res == SIM_RES_COMPUTE)
        continue;
      own_off[n_own + 1] = own_off[n_own] + own_spans(e, s, buf + own_off[n_own]);
      n_own++;
    }
    struct recv_line L = {buf, buf, own_off, n_own, n_comp};
    double idle = 0, busy = 0;
    for (int32_t i = 0; i < m; i++)
      not_own_at(e, r, &L, in[i].a, in[i].b, &idle, &busy);
    e->acc[r].exposed_s += idle;
    e->acc[r].overlapped_s += busy;
  }
  sim_free(buf);
  return PL_OK;
}

enum pl_status sim_cmp_stage_end(struct sim_engine *e) {
  if (!e->cmp.stage_mode || !e->cmp.staged || e->cmp.failed)
    return PL_OK;
  return stage_recv(e);
}
