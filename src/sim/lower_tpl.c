/* lower_tpl.c: pass templates (docs/step-model.md section 11). A pass with
 * per-unit FSDP traffic issues the same tasks and edges as an earlier pass
 * of the same shape, up to ids, stage and micro-batch; lower.c records the
 * first pass of each shape (sim_tpl_save) and issues later ones as copies
 * (sim_tpl_replay), in the same order, so the engine sees the same graph bit
 * for bit (test_sim_fast.c checks it). */
#include <plateau/alloc.h>

#include <string.h>

#include "sim/lower_int.h"

/* The current inputs of a pass, and their pattern (unset / first equal). */
void sim_tpl_inputs(const struct lower *lw, int32_t *in, int8_t *pat) {
  for (int j = 0; j < LOWER_JOIN; j++)
    in[j] = j < lw->n_join ? lw->join[j] : SIM_NONE;
  in[LOWER_JOIN] = lw->unit_end[0];
  in[LOWER_JOIN + 1] = lw->unit_end[1];
  for (int j = 0; j < TPL_IN; j++) {
    pat[j] = -1;
    for (int k = 0; k <= j && in[j] != SIM_NONE && pat[j] < 0; k++)
      pat[j] = in[k] == in[j] ? (int8_t)k : -1;
  }
}

const struct tpl *sim_tpl_find(const struct lower *lw, const struct unit *u, bool ag,
                                  const int8_t *pat) {
  for (int i = 0; i < lw->n_tpl; i++) {
    const struct tpl *t = &lw->tpl[i];
    if (t->layers == u->layers && t->embed == u->embed && t->head == u->head &&
        t->pass == u->slot.pass && t->ag == ag && t->n_join == lw->n_join &&
        memcmp(t->pat, pat, sizeof t->pat) == 0)
      return t;
  }
  return NULL;
}

static int32_t tpl_decode(int32_t code, int32_t a, const int32_t *in) {
  return code == TPL_NONE ? SIM_NONE : code >= 0 ? a + code : in[-code - 1];
}

/* Compression tags of a copied pass (per-stage periods: no layer units). */
static void tpl_tags(struct lower *lw, int32_t a, int32_t n) {
  struct sim_tag *tg = &lw->st->tags[a];
  for (int32_t i = 0; i < n; i++)
    tg[i] = (struct sim_tag){lw->pass_id, lw->cur_unit, -1, 0, lw->cur_steady};
  if (lw->anchor_pair >= 0 && lw->pass_first >= a && lw->pass_first < a + n) {
    lw->st->tags[lw->pass_first].anchor = lw->stage_periods ? 3 : 2;
    lw->st->tags[lw->pass_first].pair = lw->anchor_pair;
  }
}

/* Issue the pass as a copy of template t: same work, streams of this stage,
 * this micro-batch, every edge at the same place (so each task's edge list
 * ends up in the order the derivation would give it). */
void sim_tpl_replay(struct lower *lw, const struct tpl *t, const struct unit *u,
                       const int32_t *in) {
  struct sim_step *st = lw->st;
  struct sim_engine *e = &st->eng;
  int32_t a = e->n_tasks, dstream = (lw->stage - t->stage) * PL_STREAM_N;
  if (!meta_room(st, a + t->n) || !sim_engine_reserve(e, t->n, t->ne)) {
    fail(lw, PL_ERR_NOMEM);
    return;
  }
  /* the tasks as sim_task_add issues them, the links of each
   * stream inside the pass copied (a link past the pass is a later task's) */
  const struct tpl_str *ts = &lw->tpl_str[t - lw->tpl];
  const int32_t *head = &lw->tpl_links[ts->l0], *wait = head + t->n;
  const struct sim_task *src = &e->tasks[t->a];
  struct sim_task *dst = &e->tasks[a];
  int32_t end = t->a + t->n, move = a - t->a, eb = e->n_edges;
  for (int32_t i = 0; i < t->n; i++) {
    dst[i].work_s = src[i].work_s;
    dst[i].start_s = dst[i].end_s = 0;
    dst[i].stream = src[i].stream + dstream;
    dst[i].res = src[i].res;
    dst[i].next = src[i].next != SIM_NONE && src[i].next < end ? src[i].next + move : SIM_NONE;
    dst[i].edges = head[i] >= 0 ? eb + head[i] : SIM_NONE; /* what the edges below leave */
    dst[i].waiting = wait[i];
  }
  e->n_tasks += t->n;
  for (int k = 0; k < ts->n; k++) {
    struct sim_stream *s = &e->streams[ts->str[k] + dstream];
    if (s->tail == SIM_NONE)
      s->head = s->first = a + ts->str_first[k];
    else
      e->tasks[s->tail].next = a + ts->str_first[k];
    s->tail = a + ts->str_last[k];
  }
  struct sim_meta *m = &st->meta[a];
  memcpy(m, &st->meta[t->a], (size_t)t->n * sizeof *m);
  int32_t mb = u->slot.mb, chunk = u->slot.chunk, dl = u->layer_first - t->layer_first;
  for (int32_t i = 0; i < t->n; i++) {
    m[i].stage = lw->stage;
    if (m[i].mb >= 0) { /* compute */
      m[i].mb = mb;
      m[i].chunk = chunk;
    }
    if (m[i].layers > 0)
      m[i].layer_first += dl;
  }
  st->copied += t->n;
  /* the edges as sim_dep issues them in recorded order: an edge
   * from a task of the pass links to that task's previous one (its list
   * head and the counts are already set above), one from an input is
   * prepended to the input's list */
  const struct tpl_edge *ed = &lw->tpl_edges[t->e0];
  struct sim_edge *ee = &e->edges[eb];
  for (int32_t i = 0; i < t->ne; i++) {
    ee[i].to = a + ed[i].to;
    if (ed[i].from >= 0) {
      ee[i].next = ed[i].next >= 0 ? eb + ed[i].next : SIM_NONE;
    } else {
      struct sim_task *f = &e->tasks[in[-ed[i].from - 1]];
      ee[i].next = f->edges;
      f->edges = eb + i;
    }
  }
  e->n_edges += t->ne;
  lw->n_join = t->n_join_out;
  for (int j = 0; j < t->n_join_out; j++)
    lw->join[j] = tpl_decode(t->out[j], a, in);
  lw->unit_end[0] = tpl_decode(t->out[LOWER_JOIN], a, in);
  lw->unit_end[1] = tpl_decode(t->out[LOWER_JOIN + 1], a, in);
  lw->last_comp = tpl_decode(t->out[LOWER_JOIN + 2], a, in);
  lw->pass_first = tpl_decode(t->out[LOWER_JOIN + 3], a, in);
  if (st->compress) /* per-stage periods: the tags the derivation would stamp */
    tpl_tags(lw, a, t->n);
}

/* What the recorded edges of a template's pass leave behind, for tpl_replay
 * to set at once: each task's list head (its last edge out) and count of
 * edges in, and each edge's link to the previous edge of its source. */
static bool tpl_links_of(struct lower *lw, const struct tpl *t, struct tpl_str *ts) {
  if (t->n > INT32_MAX / 2 - lw->n_tpl_links)
    return false;
  int32_t need = lw->n_tpl_links + 2 * t->n;
  if (need > lw->cap_tpl_links) {
    int32_t cap = lw->cap_tpl_links ? lw->cap_tpl_links : 1024;
    while (cap < need)
      cap = cap > INT32_MAX / 2 ? need : 2 * cap;
    int32_t *p = sim_reallocarray(lw->tpl_links, (size_t)cap, sizeof *p);
    if (p == NULL)
      return false;
    lw->tpl_links = p;
    lw->cap_tpl_links = cap;
  }
  ts->l0 = lw->n_tpl_links;
  int32_t *head = &lw->tpl_links[ts->l0], *wait = head + t->n;
  for (int32_t i = 0; i < t->n; i++) {
    head[i] = -1;
    wait[i] = 0;
  }
  for (int32_t i = 0; i < t->ne; i++) {
    struct tpl_edge *ed = &lw->tpl_edges[t->e0 + i];
    wait[ed->to]++;
    if (ed->from >= 0) {
      ed->next = head[ed->from];
      head[ed->from] = i;
    }
  }
  lw->n_tpl_links = need;
  return true;
}

/* The streams a template's pass issues on, with the first and last task
 * of each (tpl_replay links them onto the copy's streams). */
static bool tpl_streams(const struct sim_engine *e, const struct tpl *t, struct tpl_str *ts) {
  ts->n = 0;
  for (int32_t i = 0; i < t->n; i++) {
    int32_t sid = e->tasks[t->a + i].stream;
    int k = 0;
    while (k < ts->n && ts->str[k] != sid)
      k++;
    if (k == ts->n) {
      if (k == PL_STREAM_N)
        return false; /* cannot happen: a pass is on one stage */
      ts->n++;
      ts->str[k] = sid;
      ts->str_first[k] = i;
    }
    ts->str_last[k] = i;
  }
  return true;
}

/* Keep the pass just recorded as a template when every id it left behind
 * can be coded. */
void sim_tpl_save(struct lower *lw, const struct unit *u, bool ag, int n_join_in,
                     const int8_t *pat, int32_t e0) {
  if (lw->rec_bad || lw->n_tpl == TPL_MAX || lw->err != PL_OK)
    return;
  struct tpl t = {u->layers, u->slot.pass, n_join_in, u->embed, u->head, ag, {0},
                  lw->stage, u->layer_first, lw->rec_a, lw->st->eng.n_tasks - lw->rec_a,
                  e0, lw->n_tpl_edges - e0, {0}, lw->n_join};
  memcpy(t.pat, pat, sizeof t.pat);
  if (lw->tpl_str == NULL && (lw->tpl_str = sim_malloc(TPL_MAX * sizeof *lw->tpl_str)) == NULL)
    return; /* no template: the passes are derived */
  if (!tpl_streams(&lw->st->eng, &t, &lw->tpl_str[lw->n_tpl]) ||
      !tpl_links_of(lw, &t, &lw->tpl_str[lw->n_tpl]))
    return;
  int32_t ids[TPL_OUT];
  for (int j = 0; j < LOWER_JOIN; j++)
    ids[j] = j < lw->n_join ? lw->join[j] : SIM_NONE;
  ids[LOWER_JOIN] = lw->unit_end[0];
  ids[LOWER_JOIN + 1] = lw->unit_end[1];
  ids[LOWER_JOIN + 2] = lw->last_comp;
  ids[LOWER_JOIN + 3] = lw->pass_first;
  for (int j = 0; j < TPL_OUT; j++) {
    t.out[j] = tpl_code(lw, ids[j]);
    if (t.out[j] == TPL_BAD)
      return;
  }
  lw->tpl[lw->n_tpl++] = t;
}
