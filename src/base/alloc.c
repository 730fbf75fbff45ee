/* alloc.c: the single allocation hook (see alloc.h). The default wraps the C
 * library; tests install a hook that fails the Nth call. */
#include <plateau/alloc.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ud, void *ptr, size_t size) {
  (void)ud;
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, size);
}

static pl_alloc_fn hook = default_alloc;
static void *hook_ud;

void pl_alloc_set(pl_alloc_fn fn, void *ud) {
  hook = fn ? fn : default_alloc;
  hook_ud = fn ? ud : NULL;
}

void *pl_malloc(size_t size) { return hook(hook_ud, NULL, size ? size : 1); }

void *pl_realloc(void *ptr, size_t size) { return hook(hook_ud, ptr, size ? size : 1); }

void *pl_calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size)
    return NULL;
  size_t bytes = count * size;
  if (bytes == 0)
    bytes = 1;
  void *p = pl_malloc(bytes);
  if (p != NULL)
    memset(p, 0, bytes);
  return p;
}

void *pl_reallocarray(void *ptr, size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size)
    return NULL;
  return pl_realloc(ptr, count * size);
}

char *pl_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = pl_malloc(n);
  if (p != NULL)
    memcpy(p, s, n);
  return p;
}

void pl_free(void *ptr) {
  if (ptr != NULL)
    hook(hook_ud, ptr, 0);
}
