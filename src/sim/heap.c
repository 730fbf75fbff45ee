/* heap.c: the event queue of the step simulator, an indexed binary min-heap
 * of items (tasks) keyed on (due time, insertion sequence), as libuv keys its
 * timers. Equal times pop in the order they were (re)inserted, so a run is
 * deterministic on any machine; times are doubles and never rounded. An item
 * is in the heap at most once: rescheduling a running task moves its entry
 * (O(log n)) instead of leaving a stale one behind, so the heap holds only
 * the tasks running now. */
#include <plateau/alloc.h>

#include <string.h>

#include "sim/sim_int.h"

enum pl_status sim_heap_init(struct sim_heap *h, int32_t n_items) {
  memset(h, 0, sizeof *h);
  size_t n = n_items > 0 ? (size_t)n_items : 1;
  h->items = pl_malloc(n * sizeof *h->items);
  h->at = pl_malloc(n * sizeof *h->at);
  h->due = pl_malloc(n * sizeof *h->due);
  h->seq = pl_malloc(n * sizeof *h->seq);
  if (h->items == NULL || h->at == NULL || h->due == NULL || h->seq == NULL)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    h->at[i] = SIM_NONE;
  h->n_items = (int32_t)n;
  return PL_OK;
}

void sim_heap_free(struct sim_heap *h) {
  pl_free(h->items);
  pl_free(h->at);
  pl_free(h->due);
  pl_free(h->seq);
  memset(h, 0, sizeof *h);
}

static bool before(const struct sim_heap *h, int32_t a, int32_t b) {
  if (h->due[a] != h->due[b])
    return h->due[a] < h->due[b];
  return h->seq[a] < h->seq[b];
}

static void place(struct sim_heap *h, int32_t pos, int32_t item) {
  h->items[pos] = item;
  h->at[item] = pos;
}

static void sift_up(struct sim_heap *h, int32_t pos) {
  int32_t item = h->items[pos];
  while (pos > 0 && before(h, item, h->items[(pos - 1) / 2])) {
    place(h, pos, h->items[(pos - 1) / 2]);
    pos = (pos - 1) / 2;
  }
  place(h, pos, item);
}

static void sift_down(struct sim_heap *h, int32_t pos) {
  int32_t item = h->items[pos];
  for (;;) {
    int32_t l = 2 * pos + 1, r = l + 1, m = pos;
    int32_t best = item;
    if (l < h->n && before(h, h->items[l], best)) {
      m = l;
      best = h->items[l];
    }
    if (r < h->n && before(h, h->items[r], best))
      m = r;
    if (m == pos)
      break;
    place(h, pos, h->items[m]);
    pos = m;
  }
  place(h, pos, item);
}

void sim_heap_set(struct sim_heap *h, int32_t item, double due_s) {
  h->due[item] = due_s;
  h->seq[item] = h->next_seq++;
  int32_t pos = h->at[item];
  if (pos == SIM_NONE) {
    place(h, h->n++, item);
    sift_up(h, h->n - 1);
    return;
  }
  /* a new sequence number only ever moves an item later among equals */
  sift_up(h, pos);
  sift_down(h, h->at[item]);
}

int32_t sim_heap_pop(struct sim_heap *h) {
  if (h->n == 0)
    return SIM_NONE;
  int32_t top = h->items[0];
  h->at[top] = SIM_NONE;
  if (--h->n > 0) {
    place(h, 0, h->items[h->n]);
    sift_down(h, 0);
  }
  return top;
}
