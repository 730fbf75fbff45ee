/* flag_pairs.h: flag texts as the fuzz targets of the run-flag tables
 * (fuzz_run_flags.c, fuzz_layout_flags.c) read and write them: name/value
 * pairs, their lookup for pl_*_flags_read, the written text split back into
 * pairs, and the one-line error rule. Header-only, static inline. */
#ifndef PLATEAU_FUZZ_FLAG_PAIRS_H
#define PLATEAU_FUZZ_FLAG_PAIRS_H

#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

/* above the flags one text writes (the framework table: 79, the layout table: 42 in session 26);
 * split aborts when a text holds more, as 64 silently dropped the framework table's last 11 */
#define MAX_PAIRS 128
#define TEXT 8192

struct pairs {
  char buf[TEXT];
  const char *name[MAX_PAIRS], *value[MAX_PAIRS];
  int n;
};

static inline const char *get(void *ctx, const char *name) {
  const struct pairs *a = ctx;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->name[i], name) == 0)
      return a->value[i];
  return NULL;
}

/* Flags as written (" --name value --name 'a b'") split into pairs. */
static inline void split(const char *text, struct pairs *a) {
  snprintf(a->buf, sizeof a->buf, "%s", text);
  a->n = 0;
  char *p = a->buf;
  while ((p = strstr(p, "--")) != NULL && a->n < MAX_PAIRS) {
    char *name = p + 2, *sp = strchr(name, ' ');
    if (sp == NULL)
      abort(); /* a flag written without its value */
    *sp = '\0';
    char *v = sp + 1, *end;
    if (*v == '\'') {
      v++;
      end = strchr(v, '\'');
      if (end == NULL)
        abort(); /* an unterminated quote */
      *end++ = '\0';
    } else {
      end = strchr(v, ' ');
      if (end != NULL)
        *end++ = '\0';
      else
        end = v + strlen(v);
    }
    a->name[a->n] = name;
    a->value[a->n++] = v;
    p = end;
  }
  if (p != NULL)
    abort(); /* more flags written than MAX_PAIRS holds */
}

static inline void check_error(enum pl_status st, const struct pl_diag *d) {
  if (st != PL_OK && (d->msg[0] == '\0' || strchr(d->msg, '\n') != NULL))
    abort(); /* every error is one line that says why */
}

#endif
