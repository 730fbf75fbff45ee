/* data.c: look-up of presets embedded from data/ (see cmake/embed.cmake). */
#include <plateau/data.h>

#include <string.h>

struct pl_embedded {
  const char *kind, *name, *text;
  size_t len;
};
extern const struct pl_embedded pl_embedded_data[];

const char *pl_data_find(const char *kind, const char *name, size_t *len) {
  for (const struct pl_embedded *e = pl_embedded_data; e->kind != NULL; e++) {
    if (strcmp(e->kind, kind) == 0 && strcmp(e->name, name) == 0) {
      if (len != NULL)
        *len = e->len;
      return e->text;
    }
  }
  return NULL;
}

/* The table is written in sorted path order, so names of a kind come sorted. */
const char *pl_data_name(const char *kind, size_t i) {
  for (const struct pl_embedded *e = pl_embedded_data; e->kind != NULL; e++) {
    if (strcmp(e->kind, kind) != 0)
      continue;
    if (i == 0)
      return e->name;
    i--;
  }
  return NULL;
}
