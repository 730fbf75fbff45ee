/* test_pipe_layout.c: Megatron-Core pipeline layout strings
 * (src/model/pipe_layout.c) and the multi-token-prediction modules
 * (layout.mtp_layers): parsing as parse_str_to_list does, the checks of
 * validate_layer_layout, the blocks per chunk and stage, and the MTP work in
 * the head ops and the model FLOPs, each against a hand derivation. */
#include <plateau/flops.h>
#include <plateau/layout.h>

#include <string.h>

#include "check.h"

static int64_t parse(const char *s, struct pl_pipe_chunk *ch, enum pl_status want) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  int64_t n = -1;
  CHECK_STATUS(pl_pipeline_layout_parse(s, ch, 64, &n, &d), want, dp);
  if (want != PL_OK)
    CHECK(strchr(d.msg, '\n') == NULL && d.msg[0] != '\0'); /* one line */
  return n;
}

static void test_parse(void) {
  struct pl_pipe_chunk ch[64];
  /* parse_str_to_list's own docstring example: "Ettt|(tt|)*29,m|L" is
   * [["E","t","t","t"]] + [["t","t"]]*29 + [["m"],["L"]]: 1 + 29 + 2 = 32 stages */
  CHECK_EQ_INT(parse("Ettt|(tt|)*29,m|L", ch, PL_OK), 32);
  CHECK(ch[0].embed && !ch[0].loss);
  CHECK_EQ_INT(ch[0].decoders, 3);
  CHECK_EQ_INT(ch[1].decoders, 2);
  CHECK_EQ_INT(ch[29].decoders, 2);
  CHECK_EQ_INT(ch[30].decoders, 0);
  CHECK_EQ_INT(ch[30].mtp, 1);
  CHECK(ch[31].loss && ch[31].decoders == 0 && ch[31].mtp == 0);
  /* Megatron-Bridge's DeepSeek-V3 string for 16 virtual stages: E + 4 blocks,
   * 14 stages of 4, then 1 block + MTP + loss: 4 + 14 x 4 + 1 = 61 blocks */
  CHECK_EQ_INT(parse("Et*4|(t*4|)*14tmL", ch, PL_OK), 16);
  CHECK_EQ_INT(ch[0].decoders, 4);
  CHECK_EQ_INT(ch[14].decoders, 4);
  CHECK_EQ_INT(ch[15].decoders, 1);
  CHECK_EQ_INT(ch[15].mtp, 1);
  CHECK(ch[15].loss);
  /* its H100 string: E + 1, 30 stages of 2, MTP + loss: 1 + 60 = 61 over 32 */
  CHECK_EQ_INT(parse("Et|(tt|)*30mL", ch, PL_OK), 32);
  CHECK_EQ_INT(ch[31].decoders, 0);
  CHECK_EQ_INT(ch[31].mtp, 1);
  /* the regex examples of parse_str_to_list: "(|ab)*2,cd -> |ab|abcd" and
   * "ab,(cd|)*2 -> abcd|cd|" (a trailing '|' leaves an empty last stage) */
  CHECK_EQ_INT(parse("(|tt)*2,t", ch, PL_OK), 3);
  CHECK(ch[0].decoders == 0 && ch[1].decoders == 2 && ch[2].decoders == 3);
  CHECK_EQ_INT(parse("t,(t|)*2", ch, PL_OK), 3);
  CHECK(ch[0].decoders == 2 && ch[1].decoders == 1 && ch[2].decoders == 0);
  CHECK_EQ_INT(parse("Et*0|L", ch, PL_OK), 2); /* x*0 unrolls to nothing */
  CHECK_EQ_INT(ch[0].decoders, 0);
  /* errors, each one line */
  parse("Et*4|X", ch, PL_ERR_LAYOUT);           /* unknown character */
  parse("((t|)*2)*3", ch, PL_ERR_LAYOUT);       /* no nesting: '(' stays */
  parse("Et t|L", ch, PL_ERR_LAYOUT);           /* a space is no layer */
  parse("tE|L", ch, PL_ERR_LAYOUT);             /* E after a block */
  parse("Et|LL", ch, PL_ERR_LAYOUT);            /* two losses */
  parse("Et|mtL", ch, PL_ERR_LAYOUT);           /* a block after an MTP module */
  parse("Et*99999999|L", ch, PL_ERR_LAYOUT);    /* past 65536 layers */
  parse("(Et|)*65|L", ch, PL_ERR_LAYOUT);       /* 66 stages > 64 */
}

static enum pl_status resolve(struct pl_layout *l, int64_t layers, struct pl_diag *d) {
  struct pl_model m;
  memset(&m, 0, sizeof m);
  m.layers = layers;
  return pl_layout_resolve_pipeline(l, &m, d);
}

static struct pl_layout with(const char *s, int64_t pp, int64_t mtp) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  snprintf(l.pipeline_layout, sizeof l.pipeline_layout, "%s", s);
  l.pp = pp;
  l.mtp_layers = mtp;
  return l;
}

static void test_resolve(void) {
  struct pl_diag d, *dp = &d;
  /* DeepSeek-V3's string on pp 2: vp = 16 / 2 = 8; rank 0 holds stages 0, 2,
   * .., 14 (E + 4, then 7 x 4 = 32 blocks), rank 1 stages 1, 3, .., 15
   * (7 x 4 + 1 block + 1 MTP block = 30); 32 + 30 = 62 = 61 + 1 */
  struct pl_layout l = with("Et*4|(t*4|)*14tmL", 2, 1);
  CHECK_STATUS(resolve(&l, 61, &d), PL_OK, dp);
  CHECK_EQ_INT(l.vp, 8);
  int64_t first = -1;
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, 61, 15, &first), 2);
  CHECK_EQ_INT(first, 60); /* 4 + 14 x 4 blocks before it */
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, 61, 3, &first), 4);
  CHECK_EQ_INT(first, 12);
  CHECK_EQ_INT(pl_layout_stage_layers(&l, 61, 0), 32);
  CHECK_EQ_INT(pl_layout_stage_layers(&l, 61, 1), 30);
  /* the same string on 16 ranks: vp 1 */
  l = with("Et*4|(t*4|)*14tmL", 16, 1);
  CHECK_STATUS(resolve(&l, 61, &d), PL_OK, dp);
  CHECK_EQ_INT(l.vp, 1);
  /* checks of validate_layer_layout / TransformerConfig, each one line */
  l = with("Et*4|(t*4|)*14tmL", 3, 1); /* 16 stages over 3 ranks */
  CHECK_STATUS(resolve(&l, 61, &d), PL_ERR_LAYOUT, dp);
  CHECK_CONTAINS(d.msg, "not divisible by pp = 3");
  l = with("Et*4|(t*4|)*14tmL", 16, 1);
  CHECK_STATUS(resolve(&l, 60, &d), PL_ERR_LAYOUT, dp);
  CHECK_CONTAINS(d.msg, "61 transformer blocks (t), the model has 60");
  l = with("Et*4|(t*4|)*14tmL", 16, 0);
  CHECK_STATUS(resolve(&l, 61, &d), PL_ERR_LAYOUT, dp);
  CHECK_CONTAINS(d.msg, "1 MTP modules (m) but --mtp-layers 0");
  l = with("Et*4|(t*4|)*14tmL", 8, 1);
  l.vp = 4; /* the string says 2 per rank */
  CHECK_STATUS(resolve(&l, 61, &d), PL_ERR_LAYOUT, dp);
  CHECK_CONTAINS(d.msg, "vp = 4 conflicts");
  l = with("Ett|tmL", 1, 1);
  l.account_embed_loss = true;
  CHECK_STATUS(resolve(&l, 3, &d), PL_ERR_LAYOUT, dp);
  l = with("tt|EtL", 2, 0); /* E must open the first stage */
  CHECK_STATUS(resolve(&l, 3, &d), PL_ERR_LAYOUT, dp);
  /* pp 2, vp 2: "Et|tm|t|L" puts m in stage 1 = rank 1's first chunk, not its last */
  l = with("Et|tm|t|L", 2, 1);
  CHECK_STATUS(resolve(&l, 3, &d), PL_ERR_LAYOUT, dp);
  CHECK_CONTAINS(d.msg, "last virtual stage");
  l = with("Ettt|tmL", 2, 1); /* fine: m on rank 1's only chunk */
  CHECK_STATUS(resolve(&l, 4, &d), PL_OK, dp);
  l = with("", 1, PL_LAYOUT_MAX_MTP + 1);
  CHECK_STATUS(resolve(&l, 4, &d), PL_ERR_LAYOUT, dp);
  /* without a string the MTP module is a block of the last chunk: 32 blocks
   * over pp 4 = 8 each, the last 8 + 1 */
  l = with("", 4, 1);
  l.vp = 1;
  CHECK_STATUS(resolve(&l, 32, &d), PL_OK, dp);
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, 32, 3, NULL), 9);
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, 32, 2, NULL), 8);
  CHECK_EQ_INT(pl_layout_stage_layers(&l, 32, 3), 9);
}

/* The MTP module's own ops beside its block, and the model FLOPs. */
static void test_mtp_flops(void) {
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  memset(&m, 0, sizeof m);
  CHECK_STATUS(pl_model_load("llama2-7b", &m, &d), PL_OK, dp);
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.tp = 1;
  l.cp = 1;
  l.mbs = 1;
  l.gbs = 1;
  l.seq = 4096;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n0 = pl_head_ops(&m, &l, ops);
  l.mtp_layers = 1;
  int n1 = pl_head_ops(&m, &l, ops);
  CHECK_EQ_INT(n1, n0 + 6); /* embed, enorm + hnorm, eh_proj, final norm, head, loss */
  /* the MTP attn node's ops (pl_op_mtp_attn_node, run inside the merged layers of the
   * EP overlap): its embedding, its two norms and eh_proj; not the output layer,
   * the loss or either final norm */
  int in_attn = 0;
  for (int i = 0; i < n1; i++)
    if (pl_op_mtp_attn_node(&ops[i]))
      in_attn += 1 + (i >= n0) * 10; /* counts 11 per MTP op, 1 per main-head op */
  CHECK_EQ_INT(in_attn, 33);
  for (int i = 0; i < n1; i++) {
    /* eh_proj: 4096 tokens x (2h = 8192 -> h = 4096): 2 x 4096 x 4096 x 8192 = 2^38 */
    if (strcmp(ops[i].name, "mtp_eh_proj") == 0)
      CHECK_NEAR_REL(ops[i].fwd_flops, 274877906944.0, 1e-12);
    /* the second output-layer pass: 2 x 4096 x 32000 x 4096 = 1,073,741,824,000 */
    if (strcmp(ops[i].name, "mtp_lm_head") == 0)
      CHECK_NEAR_REL(ops[i].fwd_flops, 1073741824000.0, 1e-12);
  }
  /* Model FLOPs (Megatron-LM num_floating_point_operations): one more block,
   * 2 x (3h + 2h^2) per token for the norms and eh_proj, one more logits pass;
   * x3 for forward + backward, gbs 1: the added FLOPs / 3 are the average
   * block (layer_fwd; llama2-7b's blocks are all alike) + head_fwd +
   * 4096 x 2 x (3 x 4096 + 2 x 4096^2) = 274,978,570,240 */
  struct pl_flops f0, f1;
  l.mtp_layers = 0;
  pl_flops_compute(&m, &l, &f0);
  l.mtp_layers = 1;
  pl_flops_compute(&m, &l, &f1);
  CHECK_NEAR_REL((f1.model_per_step - f0.model_per_step) / 3.0,
                 f0.layer_fwd + f0.head_fwd + 274978570240.0, 1e-12);
}

int main(void) {
  test_parse();
  test_resolve();
  test_mtp_flops();
  return check_finish();
}
