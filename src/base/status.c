/* status.c: names and messages of pl_status codes, and diag filling. */
#include <plateau/status.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {
#define PL_STATUS_NAME(name, msg) #name,
    PL_STATUS_MAP(PL_STATUS_NAME)
#undef PL_STATUS_NAME
};

static const char *const messages[] = {
#define PL_STATUS_MSG(name, msg) msg,
    PL_STATUS_MAP(PL_STATUS_MSG)
#undef PL_STATUS_MSG
};

#define N_STATUS (sizeof names / sizeof names[0])

const char *pl_status_name(enum pl_status s) {
  return (size_t)s < N_STATUS ? names[s] : "ERR_INTERNAL";
}

const char *pl_status_message(enum pl_status s) {
  return (size_t)s < N_STATUS ? messages[s] : "internal error";
}

void pl_diag_clear(struct pl_diag *diag) {
  if (diag == NULL)
    return;
  memset(diag, 0, sizeof *diag);
  diag->offset = -1;
}

enum pl_status pl_diag_set(struct pl_diag *diag, enum pl_status s, const char *fmt, ...) {
  if (diag == NULL)
    return s;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
  va_end(ap);
  /* One line whatever the values quoted in it hold (fuzz_words: a
   * '--recompute' value with a newline made a two-line error). */
  for (char *c = diag->msg; *c != '\0'; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  return s;
}
