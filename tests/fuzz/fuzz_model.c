/* fuzz_model.c: model files and Hugging Face configs (pl_model_from_json),
 * then the parameter count and layout checks on whatever parses. */
#include <stdint.h>
#include <string.h>

#include <plateau/plateau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = pl_malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  struct pl_model m;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_model_from_json(text, size, "fuzz", &m, &d) == PL_OK && pl_model_check(&m, &d) == PL_OK)
    (void)pl_model_params(&m);
  pl_free(text);
  return 0;
}
