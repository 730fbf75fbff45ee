/* vec.c: the growable flat arrays the reader fills (one per event kind).
 * Growth doubles, so a trace with n GPU events costs O(log n) reallocations,
 * never one allocation per event. */
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

/* Room for one more element of size elem; NULL when out of memory. */
void *trace_vec_push(struct trace_vec *v, size_t elem) {
  if (v->len == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 256;
    void *p = pl_reallocarray(v->data, cap, elem);
    if (p == NULL)
      return NULL;
    v->data = p;
    v->cap = cap;
  }
  void *slot = (char *)v->data + v->len * elem;
  v->len++;
  memset(slot, 0, elem);
  return slot;
}

void trace_vec_free(struct trace_vec *v) {
  pl_free(v->data);
  v->data = NULL;
  v->len = v->cap = 0;
}
