/* alloc.h: every allocation in libplateau goes through one hook, as Lua's goes
 * through lua_Alloc, so tests can make the Nth allocation fail.
 *
 * Ownership: memory from pl_malloc/pl_calloc/pl_realloc is released with pl_free. */
#ifndef PLATEAU_ALLOC_H
#define PLATEAU_ALLOC_H

#include <stddef.h>

/* The hook: like realloc(ptr, size); size 0 frees and returns NULL. */
typedef void *(*pl_alloc_fn)(void *ud, void *ptr, size_t size);

/* Install a hook (NULL restores the default, which wraps realloc/free).
 * Not thread-safe: set it before any other libplateau call. */
void pl_alloc_set(pl_alloc_fn fn, void *ud);

void *pl_malloc(size_t size);
void *pl_calloc(size_t count, size_t size); /* overflow-checked, zeroed */
void *pl_realloc(void *ptr, size_t size);
/* realloc to count*size bytes, NULL on overflow or failure (ptr kept). */
void *pl_reallocarray(void *ptr, size_t count, size_t size);
char *pl_strdup(const char *s);
void pl_free(void *ptr);

#endif
