/* units.h: SI quantities in and out. Inside plateau every quantity is an SI
 * double named with its unit (_s, _bytes, _flops, _flops_per_s, _w). Units are
 * parsed at the edges (data files, CLI flags) and formatted only for people.
 *
 * Decimal prefixes (k, M, G, T, P) are powers of 10; binary ones (Ki, Mi, Gi,
 * Ti) are powers of 2. "GB/s" is 1e9 B/s as nccl-tests prints it.
 * Ownership: none; all functions are pure. */
#ifndef PLATEAU_UNITS_H
#define PLATEAU_UNITS_H

#include <stdbool.h>
#include "status.h"

enum pl_unit_kind {
  PL_UNIT_BYTES,           /* "80 GiB", "40 GB", "512 B" */
  PL_UNIT_BYTES_PER_S,     /* "900 GB/s", "3.35 TB/s" */
  PL_UNIT_FLOPS_PER_S,     /* "989 TFLOP/s" */
  PL_UNIT_SECONDS,         /* "1.5 us", "2 ms", "0.3 s", "700 ns" */
  PL_UNIT_WATTS,           /* "700 W", "10.2 kW" */
  PL_UNIT_BITS_PER_S,      /* "400 Gb/s" -> stored in bytes per second */
  PL_UNIT_NONE             /* a plain number */
};

/* Parse "<number> <unit>" of the given kind into SI (bits/s becomes bytes/s).
 * A bare number is an error unless kind is PL_UNIT_NONE. */
enum pl_status pl_unit_parse(const char *text, enum pl_unit_kind kind, double *out,
                             struct pl_diag *diag);

/* Parse a size as nccl-tests and users write it: "8", "64K", "1M", "16G",
 * "1MiB", "4 GB" (K/M/G/T here are powers of 2 as in nccl-tests -b/-e). */
enum pl_status pl_size_parse(const char *text, double *bytes, struct pl_diag *diag);

/* Parse a positive integer (no sign, no junk, fits in int64). */
enum pl_status pl_int_parse(const char *text, int64_t *out, struct pl_diag *diag);
/* Parse a positive count as people write token budgets: "15T", "300B", "2.5M",
 * "1e12", "4096". Suffixes are decimal (K/k 1e3, M 1e6, B/G 1e9, T 1e12,
 * P 1e15), as pl_fmt_count prints them; the result is finite and >= 1
 * (decimal only: "0x10" is not a count). */
enum pl_status pl_count_parse(const char *text, double *out, struct pl_diag *diag);
/* Parse a finite double (no junk). */
enum pl_status pl_double_parse(const char *text, double *out, struct pl_diag *diag);

/* Human formats (write at most n bytes, always NUL-terminated). */
void pl_fmt_bytes(char *buf, size_t n, double bytes);   /* "12.6 GiB" */
void pl_fmt_seconds(char *buf, size_t n, double s);     /* "812.3 ms" */
void pl_fmt_count(char *buf, size_t n, double count);   /* "6.74 B", "123.4 T" */

#endif
