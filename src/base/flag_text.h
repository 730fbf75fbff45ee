/* flag_text.h: a command line built into a caller's buffer, for the tables
 * that write a run back as predict flags (include/plateau/run_flags.h) and
 * validate's `command` (src/validate/command.c). */
#ifndef PL_BASE_FLAG_TEXT_H
#define PL_BASE_FLAG_TEXT_H

#include <stddef.h>

#include <plateau/units.h>

struct flag_text {
  char *s;     /* the buffer, always terminated when n > 0 */
  size_t n;    /* its size */
  size_t need; /* the length the whole text needs (as snprintf) */
};

/* Append printf-formatted text (cut at the buffer's end; need still grows). */
void flag_text_put(struct flag_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a name as one single-quoted shell word's content: quotes,
 * backslashes and control characters become '_' (they would end the word or
 * escape JSON). */
void flag_text_word(struct flag_text *t, const char *s);

/* Append a quantity in SI units (seconds, bytes, bytes per second, watts;
 * PL_UNIT_BITS_PER_S: bytes per second written in bits) as a single-quoted
 * word in the largest unit it is at least 1 of, with the fewest digits that
 * pl_unit_parse reads back to the same double ('37 us', '80 GiB',
 * '3.35 TB/s', '400 Gb/s'); a value no shorter form gives back is written in
 * the base unit with 17 digits. */
void flag_text_quantity(struct flag_text *t, double v, enum pl_unit_kind kind);

#endif
