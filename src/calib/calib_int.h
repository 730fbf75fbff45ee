/* calib_int.h (internal to src/calib): the line-level pieces of the
 * nccl-tests parser, shared by nccl_log.c and nccl_row.c. */
#ifndef PL_CALIB_INT_H
#define PL_CALIB_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <plateau/calib.h>

/* Longest line we look at; nccl-tests lines are < 200 characters. */
#define CALIB_MAX_LINE 4096
#define CALIB_MAX_TOKENS 24

/* Split s (modified in place) on blanks; returns the token count (capped). */
int calib_tokens(char *s, char **tok, int max);

/* A result row parsed from tokens. Returns false, with the reason in why,
 * when the tokens look like a row but are not a usable one. */
bool calib_parse_row(char **tok, int n, struct pl_nccl_row *row, char *redop, size_t redop_len,
                     char *why, size_t why_len);

/* Record a warning for line (0 = none) in the log. */
void calib_warn(struct pl_nccl_log *log, int64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
