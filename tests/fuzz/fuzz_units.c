/* fuzz_units.c: quantities with units and sizes as users and data files write them;
 * whatever parses must be finite. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256)
    return 0;
  char text[257];
  memcpy(text, data, size);
  text[size] = '\0';
  double v;
  int64_t i;
  /* Whatever parses is a finite number (docs/robustness.md, "Numbers"). */
  for (int k = PL_UNIT_BYTES; k <= PL_UNIT_NONE; k++)
    if (pl_unit_parse(text, (enum pl_unit_kind)k, &v, NULL) == PL_OK && !isfinite(v))
      abort();
  if (pl_size_parse(text, &v, NULL) == PL_OK && !isfinite(v))
    abort();
  (void)pl_int_parse(text, &i, NULL);
  if (pl_double_parse(text, &v, NULL) == PL_OK && !isfinite(v))
    abort();
  return 0;
}
