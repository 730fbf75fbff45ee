/* status.h: error codes and diagnostics shared by every libplateau call.
 *
 * Ownership: a struct pl_diag belongs to the caller; the library only writes
 * into it. libplateau never prints and never exits: a call that can fail
 * returns enum pl_status (PL_OK = 0) and, when diag is not NULL, fills it with
 * one line that names what failed (after git: lowercase, no final period). */
#ifndef PLATEAU_STATUS_H
#define PLATEAU_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* X(name, message): one table defines each code and its generic message. */
#define PL_STATUS_MAP(X)                                   \
  X(OK, "ok")                                              \
  X(ERR_NOMEM, "out of memory")                            \
  X(ERR_IO, "cannot read or write file")                   \
  X(ERR_PARSE, "malformed input")                          \
  X(ERR_MISSING, "required field missing")                 \
  X(ERR_RANGE, "value out of range")                       \
  X(ERR_UNKNOWN, "unknown name")                           \
  X(ERR_LAYOUT, "impossible parallel layout")              \
  X(ERR_LIMIT, "input exceeds a documented limit")         \
  X(ERR_UNSUPPORTED, "unsupported input")                  \
  X(ERR_INTERNAL, "internal error")                        \
  X(ERR_USAGE, "usage error: unknown option or missing value") \
  X(ERR_INPUT, "bad input or failed run")

enum pl_status {
#define PL_STATUS_ENUM(name, msg) PL_##name,
  PL_STATUS_MAP(PL_STATUS_ENUM)
#undef PL_STATUS_ENUM
};

/* Where and why a call failed. Fields that do not apply are 0 or empty. */
struct pl_diag {
  char msg[512];     /* the whole message, ready to print after "plateau: " */
  char path[256];    /* file the problem is in, if any */
  int64_t line;      /* 1-based, 0 = unknown */
  int64_t column;    /* 1-based, 0 = unknown */
  int64_t offset;    /* byte offset in the file, -1 = unknown */
};

const char *pl_status_name(enum pl_status s);    /* "ERR_PARSE" */
const char *pl_status_message(enum pl_status s); /* "malformed input" */

/* Fill diag (if not NULL) with a printf-style message and return s. */
enum pl_status pl_diag_set(struct pl_diag *diag, enum pl_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clear diag to "no error, nothing known". */
void pl_diag_clear(struct pl_diag *diag);

#endif
