/* emit.h: a streaming JSON writer for plateau's machine-readable output.
 * Numbers are written in the shortest form that reads back to the same
 * double; a NaN or infinity is never written (it becomes null and the writer
 * remembers the fault, which pl_emit_close reports).
 * Ownership: pl_emit_open returns a writer released by pl_emit_close; the FILE
 * stays the caller's. */
#ifndef PLATEAU_EMIT_H
#define PLATEAU_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "status.h"

struct pl_emit;

struct pl_emit *pl_emit_open(FILE *out);
/* Write key: value as the first member of the top-level object, whichever
 * code opens it (every plateau JSON document records the version that wrote
 * it this way). The strings must outlive the writer. */
void pl_emit_stamp(struct pl_emit *e, const char *key, const char *value);

/* Finish (a newline after the top value) and free. Returns PL_ERR_INTERNAL when a
 * non-finite number or unbalanced nesting was seen, with the key in diag. */
enum pl_status pl_emit_close(struct pl_emit *e, struct pl_diag *diag);

/* key is the member name inside an object and NULL inside an array or at the top. */
void pl_emit_obj_begin(struct pl_emit *e, const char *key);
void pl_emit_obj_end(struct pl_emit *e);
void pl_emit_arr_begin(struct pl_emit *e, const char *key);
void pl_emit_arr_end(struct pl_emit *e);
void pl_emit_num(struct pl_emit *e, const char *key, double v);
void pl_emit_int(struct pl_emit *e, const char *key, int64_t v);
void pl_emit_str(struct pl_emit *e, const char *key, const char *v); /* NULL -> null */
void pl_emit_bool(struct pl_emit *e, const char *key, bool v);
void pl_emit_null(struct pl_emit *e, const char *key);

/* CSV cells: the shortest text of a finite double with at most 15 (DBL_DIG)
 * significant digits, the precision a computed double has: 0.1 + 0.2 is
 * "0.3", not 0.30000000000000004; "" for NaN or an infinity. */
void pl_fmt_csv(char *buf, size_t n, double v);

/* Shortest round-trip text of a finite double ("0.1", "6738415616", "1e-06");
 * "" for NaN or an infinity (CSV writers then leave the cell empty). */
void pl_fmt_double(char *buf, size_t n, double v);

#endif
