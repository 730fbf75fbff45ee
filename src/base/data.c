/* data.c: look-up of presets embedded from data/ (see cmake/embed.cmake). */
#include <plateau/data.h>

#include <ctype.h>
#include <stdio.h>
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

/* Levenshtein distance, case-insensitive, of two short names (capped at 63 chars). */
size_t pl_data_edit_distance(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na > 63)
    na = 63;
  if (nb > 63)
    nb = 63;
  size_t row[64];
  for (size_t j = 0; j <= nb; j++)
    row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j];
      size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
      size_t best = diag + cost;
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

static void add_name(char *buf, size_t n, const char *name, int k, int total) {
  size_t used = strlen(buf);
  snprintf(buf + used, n - used, "%s'%s'", k == 0 ? "" : k == total - 1 ? " or " : ", ", name);
}

/* a begins with the first len characters of b, ignoring case */
static bool starts_with(const char *a, const char *b, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (a[i] == '\0' || tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
      return false;
  return true;
}

bool pl_data_hint(const char *kind, const char *name, char *buf, size_t n) {
  if (n == 0)
    return false;
  buf[0] = '\0';
  if (name == NULL || name[0] == '\0')
    return false;
  size_t len = strlen(name), limit = len / 3 > 2 ? len / 3 : 2;
  const char *pick[3], *e;
  int n_pick = 0;
  /* presets the name begins ("a100" -> "a100-40g", "a100-80g") are what was meant */
  for (size_t i = 0; (e = pl_data_name(kind, i)) != NULL && n_pick < 3; i++)
    if (strlen(e) > len && starts_with(e, name, len))
      pick[n_pick++] = e;
  /* else the nearest by edit distance, ties together */
  size_t best_d = limit + 1;
  for (size_t i = 0; n_pick == 0 && (e = pl_data_name(kind, i)) != NULL; i++) {
    size_t d = pl_data_edit_distance(name, e);
    if (d < best_d)
      best_d = d;
  }
  for (size_t i = 0; best_d <= limit && n_pick < 3 && (e = pl_data_name(kind, i)) != NULL; i++)
    if (pl_data_edit_distance(name, e) == best_d)
      pick[n_pick++] = e;
  if (n_pick == 0)
    return false;
  snprintf(buf, n, "did you mean ");
  for (int k = 0; k < n_pick; k++)
    add_name(buf, n, pick[k], k, n_pick);
  size_t used = strlen(buf);
  snprintf(buf + used, n - used, "?");
  return true;
}
