/* heap.c: an indexed binary min-heap of items keyed on (due time, sequence),
 * as libuv keys its timers; the step simulator keeps its ranks in it when it
 * has more than a few (engine.c), each keyed on its first task's completion
 * time and rescheduling order. With sim_heap_set the sequence is the order of
 * (re)insertion, so equal times pop in that order; with sim_heap_set_key the
 * caller gives it. A run is deterministic on any machine; times are doubles
 * and never rounded. An item is in the heap at most once: moving it moves
 * its entry (O(log n)) instead of leaving a stale one behind. Each entry
 * carries its key, so sifting compares within one contiguous array (no
 * lookups by item). */
#include <plateau/alloc.h>

#include <string.h>

#include "sim/sim_int.h"

enum pl_status sim_heap_init(struct sim_heap *h, int32_t n_items) {
  memset(h, 0, sizeof *h);
  size_t n = n_items > 0 ? (size_t)n_items : 1;
  h->items = sim_malloc(n * sizeof *h->items);
  h->at = sim_malloc(n * sizeof *h->at);
  h->due = sim_malloc(n * sizeof *h->due);
  if (h->items == NULL || h->at == NULL || h->due == NULL)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    h->at[i] = SIM_NONE;
  h->n_items = (int32_t)n;
  return PL_OK;
}

void sim_heap_free(struct sim_heap *h) {
  sim_free(h->items);
  sim_free(h->at);
  sim_free(h->due);
  memset(h, 0, sizeof *h);
}

static bool before(const struct sim_heap_entry *a, const struct sim_heap_entry *b) {
  if (a->due_s != b->due_s)
    return a->due_s < b->due_s;
  return a->seq < b->seq;
}

static void place(struct sim_heap *h, int32_t pos, const struct sim_heap_entry *e) {
  h->items[pos] = *e;
  h->at[e->item] = pos;
}

static void sift_up(struct sim_heap *h, int32_t pos, struct sim_heap_entry e) {
  while (pos > 0 && before(&e, &h->items[(pos - 1) / 2])) {
    place(h, pos, &h->items[(pos - 1) / 2]);
    pos = (pos - 1) / 2;
  }
  place(h, pos, &e);
}

static void sift_down(struct sim_heap *h, int32_t pos, struct sim_heap_entry e) {
  for (;;) {
    int32_t l = 2 * pos + 1, m = l;
    if (l >= h->n)
      break;
    if (l + 1 < h->n && before(&h->items[l + 1], &h->items[l]))
      m = l + 1;
    if (!before(&h->items[m], &e))
      break;
    place(h, pos, &h->items[m]);
    pos = m;
  }
  place(h, pos, &e);
}

void sim_heap_set(struct sim_heap *h, int32_t item, double due_s) {
  sim_heap_set_key(h, item, due_s, h->next_seq++);
}

void sim_heap_set_key(struct sim_heap *h, int32_t item, double due_s, uint64_t seq) {
  struct sim_heap_entry e = {due_s, seq, item};
  h->due[item] = due_s;
  int32_t pos = h->at[item];
  if (pos == SIM_NONE) {
    sift_up(h, h->n++, e);
    return;
  }
  if (pos > 0 && before(&e, &h->items[(pos - 1) / 2]))
    sift_up(h, pos, e);
  else
    sift_down(h, pos, e);
}

void sim_heap_remove(struct sim_heap *h, int32_t item) {
  int32_t pos = h->at[item];
  if (pos == SIM_NONE)
    return;
  h->at[item] = SIM_NONE;
  if (pos == --h->n)
    return;
  struct sim_heap_entry e = h->items[h->n];
  if (pos > 0 && before(&e, &h->items[(pos - 1) / 2]))
    sift_up(h, pos, e);
  else
    sift_down(h, pos, e);
}

int32_t sim_heap_pop(struct sim_heap *h) {
  if (h->n == 0)
    return SIM_NONE;
  int32_t top = h->items[0].item;
  h->at[top] = SIM_NONE;
  if (--h->n > 0)
    sift_down(h, 0, h->items[h->n]);
  return top;
}

void sim_heap_shift(struct sim_heap *h, double delta_s) {
  for (int32_t i = 0; i < h->n; i++) {
    h->items[i].due_s += delta_s;
    h->due[h->items[i].item] = h->items[i].due_s;
  }
  /* adding one constant keeps the order up to new ties: heapify again */
  for (int32_t i = h->n / 2 - 1; i >= 0; i--)
    sift_down(h, i, h->items[i]);
}
