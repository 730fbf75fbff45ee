/* validate_int.h (internal to src/validate): the CSV reader and the
 * per-source rules behind `plateau validate`.
 *
 * csv.c            RFC 4180 reader -> header + records of strings
 * sources.c        one table entry per published source: architecture family,
 *                  software facts (attention kernel, sequence parallelism),
 *                  defaults for unstated fields, and the conversion of its
 *                  metric to a step time; the older sources' rules by family
 *                  in sources_megatron.c, sources_deepspeed.c,
 *                  sources_llmfoundry.c, sources_nemo.c (sources_int.h)
 * source_generic.c a record of no built-in source: the rules for a user's own
 *                  runs (data/validation/README.md "Your own runs")
 * row.c            one record -> struct pl_run (model, hardware, layout)
 * validate.c       files, prediction, summaries
 * baseline.c       the regression-guard baseline file
 * Ownership: a struct validate_csv owns its buffers; validate_csv_free. */
#ifndef PL_VALIDATE_INT_H
#define PL_VALIDATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <plateau/predict.h>
#include <plateau/validate.h>

/* Caps: the published CSVs are below 1 MiB and 40 columns; the caps keep a
 * hostile file from exhausting memory (curl's "toobig" habit). */
#define VALIDATE_MAX_FILE_BYTES (64u << 20)
#define VALIDATE_MAX_COLUMNS 512
#define VALIDATE_MAX_RECORDS 100000

struct validate_csv {
  char *text;     /* unescaped fields, NUL-terminated, back to back */
  char **cells;   /* n_records * n_cols pointers into text (row-major);
                     record 0 is the header */
  int64_t *lines; /* file line where each record starts */
  size_t n_cols;
  size_t n_records; /* including the header */
};

/* Parse RFC 4180 text: comma separators, CRLF or LF record ends, fields in
 * double quotes may hold commas, quotes ("" = ") and newlines. A UTF-8 BOM
 * is skipped; blank lines are ignored. Every record must have the header's
 * number of fields. origin names the input in messages. */
enum pl_status validate_csv_parse(const char *text, size_t len, const char *origin,
                                  struct validate_csv *out, struct pl_diag *diag);
void validate_csv_free(struct validate_csv *c);
/* Column index by exact header name, or -1. */
int validate_csv_col(const struct validate_csv *c, const char *name);
/* Cell of data record rec (1-based; 0 is the header) in column name, or ""
 * when the column does not exist. */
const char *validate_csv_cell(const struct validate_csv *c, size_t rec, const char *name);

/* One record being turned into a run: the parsed values and what the row's
 * text said, so each source rule can fill in what is missing. */
struct validate_in {
  const struct validate_csv *csv;
  size_t rec;
  enum pl_status *fatal; /* set to PL_ERR_NOMEM when the row ran out of memory:
                            an error for the whole file, not a skipped row */
  const struct pl_framework *framework; /* replaces every row's own (validate --framework);
                            NULL = none */
  enum pl_vquantity quantity; /* what is compared (validate --quantity) */
  const struct pl_vhardware *hardware; /* validate's hardware what-if (--cluster, --gpu,
                            hardware flags); NULL = none */
};

/* The text of column col in the row being read ("" when the column is absent
 * or empty), and whether it states anything: every loader reads its row
 * through these. */
/* The index of s among names[0..n), or -1: the parse of validate's small
 * enums (--by, --quantity). */
static inline int name_index(const char *const *names, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0)
      return (int)i;
  return -1;
}

static inline const char *cell(const struct validate_in *in, const char *col) {
  return validate_csv_cell(in->csv, in->rec, col);
}

static inline bool stated(const struct validate_in *in, const char *col) {
  return cell(in, col)[0] != '\0';
}

/* Append to a row's "assumed" text ("; " separated). */
void validate_note(struct pl_vrow *row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Mark a row skipped with a reason (printf-style). Returns false, so
 * callers can `return validate_skip(...)`. */
bool validate_skip(struct pl_vrow *row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The row runs on the framework preset `name` (a release's versioned preset,
 * data/frameworks/) instead of its source's: *fw reloaded from it and the
 * row's framework key set; false (skipped, with the reason) when it cannot
 * be loaded. */
bool validate_row_preset(const char *name, struct pl_framework *fw, struct pl_vrow *row);

/* The lowercase letters and digits of s ("FSDP FULL_SHARD" -> "fsdpfullshard"),
 * at most n - 1 of them: how names are compared whatever their spelling. */
void validate_squash(const char *s, char *out, size_t n);
/* The sharding and recompute words of the sources' rows (row.c: "FSDP
 * FULL_SHARD", "ZeRO-1", "distributed optimizer"; "selective", "full ...",
 * "none"), false when not one of them. */
bool validate_parse_shard(const char *text, enum pl_shard *out);
bool validate_parse_recompute(const char *text, enum pl_recompute *out);

/* Numbers as the sources print them: "137", "1.10", "44%", "2560*" (a
 * footnote mark). Empty -> *present false, PL_OK. Junk -> PL_ERR_PARSE. */
enum pl_status validate_num(const char *cell, double *out, bool *present);
enum pl_status validate_int(const char *cell, int64_t *out, bool *present);
/* Smallest divisor >= 2 of n (n itself when prime), 1 when n < 2: the fewest
 * interleaved chunks that split a stage's n layers (sources_megatron.c). */
int64_t validate_smallest_divisor(int64_t n);

/* Megatron-LM's --make-vocab-size-divisible-by default: the vocabulary is padded to a
 * multiple of 128 x tp (megatron/training/arguments.py; _vocab_size_with_padding in
 * megatron/training/tokenizer/tokenizer.py: multiple = divisible_by x
 * tensor_model_parallel_size). */
#define MEGATRON_VOCAB_DIVISOR 128

/* A source: how to read its rows. */
struct validate_source {
  const char *key;         /* short name used in docs: "sc21" */
  const char *match;       /* substring of the `source` column identifying it */
  const char *family;      /* architecture family, said in docs and notes */
  enum pl_pos pos;         /* PL_POS_LEARNED (GPT-2/3) or PL_POS_ALIBI */
  bool linear_bias;        /* every linear layer has a bias */
  bool dropout;            /* training applies dropout */
  bool eager_attention;    /* no FlashAttention in that software stack */
  bool triton_attention;   /* FlashAttention as the Triton kernel (flash_attn_triton.py) */
  bool grad_reduce_after_backward; /* ddp/zero1 gradients reduced after the backward */
  bool unfused_kernels;    /* eager PyTorch element-wise kernels (layout.kernels) */
  bool sequence_parallel;  /* Megatron sequence parallelism available and used
                              unless the row says otherwise */
  bool megatron_vocab_pad; /* vocab padded to a multiple of vocab_divisor x tp (Megatron-LM) */
  int64_t vocab_divisor;   /* Megatron's --make-vocab-size-divisible-by; 0 = its default,
                              MEGATRON_VOCAB_DIVISOR */
  int64_t vocab_default;   /* vocab when the row leaves it empty, 0 = none */
  const char *vocab_why;
  const char *skip_all; /* non-NULL: no row can be expressed, this says why */
  const char *framework; /* the framework the runs used, as `validate --by framework`
                            groups them ("megatron-lm", "nemo", ...); a layout rule
                            may name another for one row (row->framework) */
  bool use_preset;          /* the rows run with the preset named in framework
                              (data/frameworks/), not only the layout rules */
  /* The row's own departures from that preset (a config column that sets a
   * behaviour); NULL = none. False = skipped. */
  bool (*overrides)(const struct validate_in *in, struct pl_framework *fw, struct pl_vrow *row);
  const char *unstated_gpu; /* GPU preset when the GPU string leaves the memory
                            size open (NULL = the generic rule of validate_row.c) */
  const char *gpu_unstated_note; /* said instead of the generic note then */
  const char *cluster; /* cluster preset of the machine the source's runs were measured on,
                          when the source describes its network (NULL = the GPU's DGX-class
                          default); used when its GPU is the row's */
  /* Fill the model of a row whose source names the model but leaves columns
   * empty, and set its architecture family (mlp, pos, norm, tied, biases,
   * dropout) per row; NULL = dimensions from the columns, family from the
   * fields above. False = skipped. */
  bool (*model)(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row);
  /* Fill unstated layout fields (row already holds what the row stated);
   * return false (row skipped) when the record cannot be expressed. */
  bool (*layout)(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
  /* The row's sharding and recompute words, read by the source instead of
   * the generic parser (NULL = generic). False = skipped. */
  bool (*modes)(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
  /* The cluster as the source's runs used it (an NVLink segment of a rack);
   * NULL = the preset unchanged. */
  void (*hardware)(const struct validate_in *in, const struct pl_layout *l, struct pl_cluster *c,
                   struct pl_vrow *row);
  /* Convert the published metric to a measured step time, filling
   * row->metric, row->published, row->measured; false = skipped. */
  bool (*measure)(const struct validate_in *in, const struct pl_run *run, struct pl_vrow *row);
  /* The published peak memory per GPU (validate --quantity memory), filling
   * row->metric (the figure's definition), row->published (as printed) and
   * row->measured (bytes); false = skipped. NULL = the source publishes none. */
  bool (*memory)(const struct validate_in *in, struct pl_vrow *row);
};

/* The source whose `match` occurs in the record's `source` cell, or NULL. */
/* Megatron-LM's model FLOPs of one step (training.py num_floating_point_operations). */
double validate_megatron_flops(const struct pl_model *m, double batch, double seq);
/* A published per-GPU rate tf (TFLOP/s, column col) of Megatron-LM's model
 * FLOPs count as the row's step: validate_megatron_flops / (tf x GPUs). */
bool validate_measure_megatron_rate(const struct pl_run *run, const char *col, double tf,
                                    struct pl_vrow *row);
/* The column 'recompute_modules' (Megatron-Core's list), when stated, as
 * selective recompute of those modules; origin says where the list was set.
 * false (the row skipped) for a list that does not parse. */
bool validate_recompute_modules(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row, const char *origin);

const struct validate_source *validate_source_find(const char *source_cell);

/* A record whose `source` matches no built-in source: the rules for the
 * user's own runs (source_generic.c; data/validation/README.md "Your own
 * runs") as a source of its own, in *out, for this record only (it may point
 * into the record's cells). False = skipped, the reason naming the column to add. */
bool validate_generic_source(const struct validate_in *in, struct validate_source *out,
                             struct pl_vrow *row);

/* Build the run of one record (model, hardware, layout); false = skipped
 * with the reason in row. */
bool validate_row_run(const struct validate_source *src, const struct validate_in *in,
                      struct pl_run *run, struct pl_vrow *row);

/* Source FLOP conventions used by the metric conversions (docs/accuracy.md;
 * sources_megatron.c, sources_nemo.c):
 * Narayanan et al. 2021 eq. 3, full recompute counted:
 *   F = 96 B s l h^2 (1 + s / 6h + V / 16 l h) */
double validate_megatron_eq3_flops(double batch, double seq, double layers, double hidden,
                                   double vocab);
/* NeMo's model FLOPs of one step of a Llama-family model (no recompute; the
 * rate NeMo's performance pages print), docs/accuracy.md "How each source is
 * read": F = B s l h^2 (12 + 12 g/a + 18 f/h + 12 s/h + 6 V/(l h)),
 * g = query groups, a = heads, f = ffn width. */
double validate_nemo_llama_flops(double batch, double seq, double layers, double hidden,
                                 double heads, double kv_heads, double ffn, double vocab);

/* The Megatron-Core sources (source_mcore.c; the Bridge's own rules in
 * source_bridge.c and its parts by job, source_bridge_*.c with their private
 * source_bridge_int.h): the rules of the Megatron-Bridge performance summary's and
 * the Megatron MoE model zoo's table entries in sources.c; validate_mcore_model
 * also reads sources_scale.c's Llama 3 rows. */
bool validate_mcore_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row);
/* The model preset `preset` of data/models/ for a row; a stated dimension
 * column must agree with it. False = skipped. */
bool validate_mcore_preset(const struct validate_in *in, const char *preset, struct pl_model *m,
                           struct pl_vrow *row);
/* The dimension columns a row states (layers, hidden, heads, kv_heads, moe_*) agree with
 * model m (its preset's or file's); else the row is skipped naming the column. */
bool validate_mcore_dims(const struct validate_in *in, const struct pl_model *m,
                         struct pl_vrow *row);
/* source_mcore.c, shared with the source_bridge*.c files: the experts (ep, etp) and the
 * router's balance as a row states them; whether w is one of list's
 * space-separated words; a run with Megatron-Core's
 * overlap_moe_expert_parallel_comm (why: the note's words) unless
 * Megatron-Core refuses it for the layout. */
bool validate_mcore_experts(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
void validate_mcore_balance(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_word_in(const char *list, const char *w);
/* command.c: the predict command line reproducing prediction p on cluster (a preset name
 * or file) with gpu (a GPU file or preset; NULL = the cluster's GPU, else the run's preset).
 * PL_ERR_NOMEM when the presets it compares the cluster with could not be loaded for
 * memory (out then lacks the hardware flags), else PL_OK. */
enum pl_status validate_command(const struct pl_prediction *p, const char *cluster,
                                const char *gpu, char *out, size_t n);
/* whatif.c: validate's hardware what-if flags (struct pl_vhardware) onto a row's cluster;
 * the diag as predict's ("--sharp: on needs an InfiniBand network ..."). */
enum pl_status validate_whatif_flags(const struct pl_vhardware *hw, struct pl_cluster *c,
                                     struct pl_diag *diag);
void validate_mcore_ep_overlap(struct pl_layout *l, struct pl_vrow *row, const char *why);
bool validate_bridge_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row);
bool validate_bridge_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_bridge_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_bridge_overrides(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row);
bool validate_bridge_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row);
void validate_nvl_segment(const struct validate_in *in, const struct pl_layout *l,
                          struct pl_cluster *c, struct pl_vrow *row);
/* Together AI's GB200 NVL72 cluster benchmarks (source_together.c). */
bool validate_together_model(const struct validate_in *in, struct pl_model *m,
                             struct pl_vrow *row);
bool validate_together_layout(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row);
bool validate_together_overrides(const struct validate_in *in, struct pl_framework *fw,
                                 struct pl_vrow *row);
bool validate_together_nemo2_layout(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row);
bool validate_together_b200_model(const struct validate_in *in, struct pl_model *m,
                                  struct pl_vrow *row);
bool validate_together_b200_layout(const struct validate_in *in, struct pl_layout *l,
                                   struct pl_vrow *row);
bool validate_together_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row);

bool validate_zoo_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_zoo_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_zoo_overrides(const struct validate_in *in, struct pl_framework *fw,
                            struct pl_vrow *row);
bool validate_zoo_measure(const struct validate_in *in, const struct pl_run *run,
                          struct pl_vrow *row);

/* The Megatron-LM README's H100 scaling results (source_mlm_h100.c): the
 * rules of its table entry in sources.c. */
bool validate_mlm_h100_model(const struct validate_in *in, struct pl_model *m,
                             struct pl_vrow *row);
bool validate_mlm_h100_layout(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row);
bool validate_mlm_h100_overrides(const struct validate_in *in, struct pl_framework *fw,
                                 struct pl_vrow *row);
bool validate_mlm_h100_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row);

/* pytorch/torchtitan's published runs (source_torchtitan.c): the rules of
 * its table entry in sources.c. */
bool validate_torchtitan_model(const struct validate_in *in, struct pl_model *m,
                               struct pl_vrow *row);
bool validate_torchtitan_modes(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row);
bool validate_torchtitan_layout(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row);
bool validate_torchtitan_overrides(const struct validate_in *in, struct pl_framework *fw,
                                   struct pl_vrow *row);
void validate_torchtitan_hardware(const struct validate_in *in, const struct pl_layout *l,
                                  struct pl_cluster *c, struct pl_vrow *row);
bool validate_torchtitan_measure(const struct validate_in *in, const struct pl_run *run,
                                 struct pl_vrow *row);
bool validate_torchtitan_memory(const struct validate_in *in, struct pl_vrow *row);

/* IBM's foundation-model-stack/fms-fsdp runs (source_fms.c): the rules of its
 * table entry in sources.c (the model family is validate_torchtitan_model's). */
bool validate_fms_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_fms_overrides(const struct validate_in *in, struct pl_framework *fw,
                            struct pl_vrow *row);
void validate_fms_hardware(const struct validate_in *in, const struct pl_layout *l,
                           struct pl_cluster *c, struct pl_vrow *row);
bool validate_fms_measure(const struct validate_in *in, const struct pl_run *run,
                          struct pl_vrow *row);

/* A summary (pl_validation_summarize) of the rows sel keeps (sel NULL: all). */
typedef bool (*validate_sel)(const struct pl_vrow *row, const void *arg);
enum pl_status validate_summarize_sel(const struct pl_vrow *rows, size_t n, validate_sel sel,
                                      const void *arg, const char *name,
                                      struct pl_vsummary *out, struct pl_diag *diag);

/* metric.c, for the per-source files (sources_*.c): a published number
 * in column col (> 0) into row->published, or the row skipped; a printed
 * step time in seconds (scale 1) or milliseconds (scale 1e-3). */
bool validate_metric(const struct validate_in *in, const char *col, struct pl_vrow *row);
bool validate_measure_time(const struct validate_in *in, const char *col, double scale,
                           struct pl_vrow *row);

/* sources_scale.c: MegaScale (NSDI 2024) and Llama 3 (Table 4), the rules of
 * their entries in sources.c. Korthikanti et al. 2022's model FLOPs of one
 * iteration: F = 72 B s l h^2 (1 + s/6h + V/12lh). */
double validate_megatron_model_flops(double batch, double seq, double layers, double hidden,
                                     double vocab);
bool validate_megascale_layout(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row);
bool validate_megascale_overrides(const struct validate_in *in, struct pl_framework *fw,
                                  struct pl_vrow *row);
bool validate_megascale_measure(const struct validate_in *in, const struct pl_run *run,
                                struct pl_vrow *row);
bool validate_llama3_overrides(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row);
bool validate_llama3_modes(const struct validate_in *in, struct pl_layout *l,
                           struct pl_vrow *row);
bool validate_llama3_layout(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row);
bool validate_llama3_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row);

#endif
