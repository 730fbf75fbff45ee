/* heap.c: the event queue of the step simulator, a binary min-heap keyed on
 * (time, insertion sequence) as libuv keys its timers. Equal times pop in the
 * order they were pushed, so a run is deterministic on any machine; times
 * are doubles and never rounded. Push and pop are O(log n). */
#include <plateau/alloc.h>

#include "sim/sim_int.h"

static bool before(const struct sim_event *a, const struct sim_event *b) {
  if (a->t_s != b->t_s)
    return a->t_s < b->t_s;
  return a->seq < b->seq;
}

static void swap(struct sim_event *a, struct sim_event *b) {
  struct sim_event t = *a;
  *a = *b;
  *b = t;
}

void sim_heap_push(struct sim_heap *h, struct sim_event ev, bool *nomem) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    struct sim_event *p = pl_reallocarray(h->ev, cap, sizeof *p);
    if (p == NULL) {
      *nomem = true;
      return;
    }
    h->ev = p;
    h->cap = cap;
  }
  ev.seq = h->seq++;
  size_t i = h->n++;
  h->ev[i] = ev;
  while (i > 0 && before(&h->ev[i], &h->ev[(i - 1) / 2])) {
    swap(&h->ev[i], &h->ev[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
}

bool sim_heap_pop(struct sim_heap *h, struct sim_event *out) {
  if (h->n == 0)
    return false;
  *out = h->ev[0];
  h->ev[0] = h->ev[--h->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && before(&h->ev[l], &h->ev[m]))
      m = l;
    if (r < h->n && before(&h->ev[r], &h->ev[m]))
      m = r;
    if (m == i)
      break;
    swap(&h->ev[i], &h->ev[m]);
    i = m;
  }
  return true;
}

void sim_heap_free(struct sim_heap *h) {
  pl_free(h->ev);
  h->ev = NULL;
  h->n = h->cap = 0;
}
