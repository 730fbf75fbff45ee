/* fuzz_units.c: quantities with units and sizes as users and data files write them. */
#include <stdint.h>
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
  for (int k = PL_UNIT_BYTES; k <= PL_UNIT_NONE; k++)
    (void)pl_unit_parse(text, (enum pl_unit_kind)k, &v, NULL);
  (void)pl_size_parse(text, &v, NULL);
  (void)pl_int_parse(text, &i, NULL);
  (void)pl_double_parse(text, &v, NULL);
  return 0;
}
