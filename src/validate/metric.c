/* metric.c: a source's published number read from its column, for the
 * per-source rules (sources_*.c): one home for all of them, so that
 * the source files do not call each other (scripts/check-calls.sh). */
#include <stdio.h>

#include "validate/validate_int.h"

bool validate_metric(const struct validate_in *in, const char *col, struct pl_vrow *row) {
  const char *c = validate_csv_cell(in->csv, in->rec, col);
  bool present = false;
  double v = 0;
  if (validate_num(c, &v, &present) != PL_OK || (present && !(v > 0)))
    return validate_skip(row, "column '%s': '%s' is not a positive number", col, c);
  if (!present)
    return validate_skip(row, "column '%s' is empty: nothing to compare", col);
  row->published = v;
  return true;
}

bool validate_measure_time(const struct validate_in *in, const char *col, double scale,
                           struct pl_vrow *row) {
  if (!validate_metric(in, col, row))
    return false;
  row->measured = row->published * scale;
  snprintf(row->metric, sizeof row->metric, "%s (printed)", col);
  return true;
}
