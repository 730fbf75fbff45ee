/* fuzz_words.c: the one-word and list values of the command line and of the
 * validation CSVs' cells, each read by its library parser: --shard,
 * --recompute, --schedule, --dtype, --moe-dispatch, --recompute-modules,
 * --offload-modules, --cuda-graph-scope, --attention, on|off settings, --task,
 * --lora-targets, --bf16-modules,
 * --op/--algo, --nccl, --cudnn, search --fix and --strategies, validate
 * --quantity and --by.
 *
 * The whole input goes to every parser (first byte 0..31: only the parser of
 * that number, so the fuzzer can aim). Every error is one line with a
 * message. Whatever parses is written back by its name or format function
 * and that text parses to the same value (a name that reads back as another
 * value, or not at all, would print a --flag line that does not reproduce
 * the run). Search constraints that parse are within the limits
 * (src/search/space.c). A violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#define MAX_WORD 512

static void error_ok(const struct pl_diag *d) {
  if (d->msg[0] == '\0' || strchr(d->msg, '\n') != NULL)
    abort(); /* every error is one line that says why */
}

/* An enum parser with its name function: parse, name, parse again. */
#define ENUM_ROUND_TRIP(type, parse, name, s)                                                     \
  do {                                                                                            \
    type v1, v2;                                                                                  \
    struct pl_diag d;                                                                             \
    pl_diag_clear(&d);                                                                            \
    if (parse(s, &v1, &d) != PL_OK) {                                                             \
      error_ok(&d);                                                                               \
      break;                                                                                      \
    }                                                                                             \
    const char *n = name(v1);                                                                     \
    if (n == NULL || parse(n, &v2, NULL) != PL_OK || v2 != v1) {                                  \
      fprintf(stderr, "%s: '%s' reads, its name '%s' does not read back\n", #parse, s,            \
              n ? n : "(null)");                                                                  \
      abort();                                                                                    \
    }                                                                                             \
  } while (0)

/* A bit-list parser with its format function. */
static void mask_round_trip(enum pl_status (*parse)(const char *, uint32_t *, struct pl_diag *),
                            void (*format)(uint32_t, char *, size_t), const char *s,
                            const char *what) {
  uint32_t m1 = 0, m2 = 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (parse(s, &m1, &d) != PL_OK) {
    error_ok(&d);
    return;
  }
  char buf[MAX_WORD];
  format(m1, buf, sizeof buf);
  if (m1 == 0 && buf[0] == '\0')
    return; /* an empty mask writes nothing where the list has no "none" */
  if (parse(buf, &m2, NULL) != PL_OK || m2 != m1) {
    fprintf(stderr, "%s: '%s' reads as %#x, its text '%s' does not read back\n", what, s,
            (unsigned)m1, buf);
    abort();
  }
}

static void version_round_trip(enum pl_status (*parse)(const char *, int64_t *, struct pl_diag *),
                               void (*str)(int64_t, char *, size_t), const char *s,
                               const char *what) {
  int64_t c1 = 0, c2 = 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (parse(s, &c1, &d) != PL_OK) {
    error_ok(&d);
    return;
  }
  char buf[64];
  str(c1, buf, sizeof buf);
  if (parse(buf, &c2, NULL) != PL_OK || c2 != c1) {
    fprintf(stderr, "%s: '%s' reads as %lld, written '%s' does not read back\n", what, s,
            (long long)c1, buf);
    abort();
  }
}

static void layout_dtype(const char *s) {
  struct pl_layout l1, l2;
  memset(&l1, 0, sizeof l1);
  memset(&l2, 0, sizeof l2);
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_layout_dtype_parse(s, &l1, &d) != PL_OK) {
    error_ok(&d);
    return;
  }
  const char *n = pl_layout_dtype_name(&l1);
  if (pl_layout_dtype_parse(n, &l2, NULL) != PL_OK || l2.dtype != l1.dtype ||
      l2.fp8_recipe != l1.fp8_recipe)
    abort();
}

static void search_space(const char *s, bool strategy) {
  struct pl_search_space sp;
  memset(&sp, 0, sizeof sp);
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = strategy ? pl_strategy_parse(s, &sp, &d) : pl_search_space_parse(s, &sp, &d);
  if (st != PL_OK) {
    error_ok(&d);
    return;
  }
  const int64_t deg[] = {sp.tp, sp.pp, sp.cp, sp.dp, sp.vp};
  for (size_t i = 0; i < sizeof deg / sizeof deg[0]; i++)
    if (deg[i] < 0 || deg[i] > PL_LAYOUT_MAX_GPUS)
      abort();
  if (sp.mbs < 0 || sp.mbs > PL_LAYOUT_MAX_BATCH)
    abort();
  if (sp.shard_group < -1 || sp.shard_group > PL_LAYOUT_MAX_GPUS)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int only = -1;
  if (size > 0 && data[0] < 32) {
    only = data[0];
    data++;
    size--;
  }
  if (size >= MAX_WORD || memchr(data, '\0', size) != NULL)
    return 0;
  char s[MAX_WORD];
  memcpy(s, data, size);
  s[size] = '\0';
  for (int k = 0; k < 22; k++) {
    if (only >= 0 && k != only % 22)
      continue;
    switch (k) {
    case 0: ENUM_ROUND_TRIP(enum pl_shard, pl_shard_parse, pl_shard_name, s); break;
    case 1: ENUM_ROUND_TRIP(enum pl_recompute, pl_recompute_parse, pl_recompute_name, s); break;
    case 2: ENUM_ROUND_TRIP(enum pl_schedule, pl_schedule_parse, pl_schedule_name, s); break;
    case 3: ENUM_ROUND_TRIP(enum pl_dtype, pl_dtype_parse, pl_dtype_name, s); break;
    case 4:
      ENUM_ROUND_TRIP(enum pl_moe_dispatch, pl_moe_dispatch_parse, pl_moe_dispatch_name, s);
      break;
    case 5: ENUM_ROUND_TRIP(enum pl_setting, pl_setting_parse, pl_setting_name, s); break;
    case 6: ENUM_ROUND_TRIP(enum pl_attention, pl_attention_parse, pl_attention_name, s); break;
    case 7: ENUM_ROUND_TRIP(enum pl_coll_op, pl_coll_op_parse, pl_coll_op_name, s); break;
    case 8: ENUM_ROUND_TRIP(enum pl_coll_algo, pl_coll_algo_parse, pl_coll_algo_name, s); break;
    case 9:
      ENUM_ROUND_TRIP(enum pl_vquantity, pl_vquantity_parse, pl_vquantity_name, s);
      break;
    case 10: ENUM_ROUND_TRIP(enum pl_vgroup, pl_vgroup_parse, pl_vgroup_name, s); break;
    case 11:
      mask_round_trip(pl_recompute_modules_parse, pl_recompute_modules_format, s,
                      "recompute modules");
      break;
    case 12:
      mask_round_trip(pl_offload_modules_parse, pl_offload_modules_format, s, "offload modules");
      break;
    case 13:
      mask_round_trip(pl_cuda_graph_scopes_parse, pl_cuda_graph_scopes_format, s,
                      "cuda graph scopes");
      break;
    case 14: version_round_trip(pl_nccl_version_parse, pl_nccl_version_str, s, "nccl"); break;
    case 15: version_round_trip(pl_cudnn_version_parse, pl_cudnn_version_str, s, "cudnn"); break;
    case 16: layout_dtype(s); break;
    case 17: search_space(s, false); break;
    case 18: search_space(s, true); break;
    case 19: ENUM_ROUND_TRIP(enum pl_run_task, pl_run_task_parse, pl_run_task_name, s); break;
    case 20: mask_round_trip(pl_lora_targets_parse, pl_lora_targets_format, s, "lora targets"); break;
    case 21:
      mask_round_trip(pl_bf16_modules_parse, pl_bf16_modules_format, s, "16-bit modules");
      break;
    default: break;
    }
  }
  return 0;
}
