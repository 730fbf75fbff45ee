/* mamba.c: hybrid Mamba-2 stacks (Nemotron-H, Nemotron 3): which block is
 * which, the Mamba-2 mixer's parameters, its per-GPU ops and the checks.
 *
 * A hybrid model (model.hybrid_pattern) is a stack of single-mixer blocks,
 * each a pre-norm, one mixer and a residual add (Megatron-Core
 * megatron/core/ssm/mamba_block.py MambaStack and mamba_layer.py MambaLayer,
 * NVIDIA/Megatron-LM d98e8a6; HF NemotronHBlock): 'M' Mamba-2, '*' attention,
 * '-' MLP, 'E' MoE. The Mamba-2 mixer (megatron/core/ssm/mamba_mixer.py
 * MambaMixer, d98e8a6) with d_inner = H P (mamba_num_heads x mamba_head_dim):
 *   in_proj   h -> 2 d_inner + 2 G N + H   (z, x, B, C, dt), no bias
 *   conv1d    depthwise causal, width d_conv, over x B C (d_inner + 2 G N
 *             channels), with bias
 *   dt_bias, A_log, D   one per head (D_has_hdim false)
 *   norm      gated RMSNorm over d_inner (ExtendedRMSNorm, RMSNormGated)
 *   out_proj  d_inner -> h, no bias
 * Tensor parallelism (MambaMixer.__init__): in_proj column-parallel, split
 * by heads and groups (nheads_local_tp = H / tp, ngroups_local_tp = G / tp,
 * both asserted divisible), conv1d and the per-head parameters split the
 * same way, the norm per group on each rank, out_proj row-parallel: every
 * width below divides by tp and one tp reduction follows out_proj.
 *
 * Training runs mamba_ssm's memory-efficient path (MambaMixer._ssm_training
 * calls mamba_split_conv1d_scan_combined; state-spaces/mamba e9594ce
 * mamba_ssm/ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn):
 * forward the causal_conv1d CUDA kernel (with SiLU), then the SSD chunked
 * scan of Dao & Gu 2024 (arXiv 2405.21060, Sec. 6) as five Triton kernels
 * (_mamba_chunk_scan_combined_fwd): _chunk_cumsum_fwd, _chunk_state_fwd
 * (per chunk and head B^T (decay x): N x Q by Q x P), _state_passing_fwd
 * (sequential over chunks, fp32 states), _bmm_chunk_fwd (per chunk and
 * group C B^T: Q x N by N x Q) and _chunk_scan_fwd (per chunk and head
 * (L o CB) x: Q x Q by Q x P, and C h: Q x N by N x P; D skip and the z
 * gate fused). It saves zxbcdt and the scan output only; backward re-runs
 * the conv1d forward and, in _mamba_chunk_scan_combined_bwd, the cumsum,
 * CB, chunk states and state passing before the gradient kernels. The
 * scan's ops are timed at the GPU file's measured rates of these kernels
 * (efficiency.mamba_ssm, sim/compute.c ssd_s; data/ground-truth/h200/
 * ssd_kernels.csv: the whole backward is 3.6x the forward, where the GEMM
 * tile model gave 2.2x), else with the GEMM model at 16-bit
 * (op.high_precision: the Triton kernels run bf16/fp32 whatever the
 * recipe). */
#include <plateau/flops.h>
#include <plateau/model.h>

#include <string.h>

#include "model/constants.h"
#include "model/model_int.h"

bool pl_model_is_hybrid(const struct pl_model *m) { return m->hybrid_pattern[0] != '\0'; }

int64_t pl_model_kind_below(const struct pl_model *m, char kind, int64_t x) {
  int64_t n = 0;
  for (int64_t i = 0; i < x && i < PL_MODEL_MAX_PATTERN && m->hybrid_pattern[i] != '\0'; i++)
    n += m->hybrid_pattern[i] == kind;
  return n;
}

int64_t pl_model_kind_layers(const struct pl_model *m, char kind) {
  return pl_model_kind_below(m, kind, m->layers);
}

int64_t pl_model_attention_layers(const struct pl_model *m) {
  return pl_model_is_hybrid(m) ? pl_model_kind_layers(m, '*') : m->layers;
}

static int64_t d_inner(const struct pl_model *m) { return m->mamba_heads * m->mamba_head_dim; }

/* in_proj's output width: z, x (d_inner each), B, C (G N each), dt (H). */
static int64_t in_proj_width(const struct pl_model *m) {
  return 2 * d_inner(m) + 2 * m->mamba_groups * m->mamba_state + m->mamba_heads;
}

int64_t pl_model_mamba_params(const struct pl_model *m) {
  if (!pl_model_is_hybrid(m) || m->mamba_heads <= 0)
    return 0;
  int64_t h = m->hidden, di = d_inner(m);
  int64_t conv_ch = di + 2 * m->mamba_groups * m->mamba_state;
  int64_t norm = m->norm == PL_NORM_RMS ? h : 2 * h;
  return norm + h * in_proj_width(m) + conv_ch * (m->mamba_conv + 1) + 3 * m->mamba_heads + di +
         di * h;
}

/* Forward FLOPs of one Mamba-2 mixer for one token, unsharded: the two
 * projections and the SSD's matmuls as the chunked algorithm runs them
 * (per token: CB 2 Q N G, chunk states 2 N P H, the diagonal block 2 Q P H,
 * the state output 2 N P H). Megatron-LM counts the scan differently
 * (training.py mamba_layer_flops: 7 d_in N with d_in = 2 h); docs/model.md. */
double model_mamba_token_flops(const struct pl_model *m) {
  double h = (double)m->hidden, di = (double)d_inner(m), q = (double)m->mamba_chunk;
  double n = (double)m->mamba_state, p = (double)m->mamba_head_dim;
  double heads = (double)m->mamba_heads, g = (double)m->mamba_groups;
  double proj = 2.0 * h * (double)in_proj_width(m) + 2.0 * di * h;
  return proj + 2.0 * q * n * g + 2.0 * heads * p * (2.0 * n + q);
}

/* Bytes one token keeps for the backward of one Mamba-2 mixer on one tp
 * rank: zxbcdt and the scan output (2 B each, ctx.save_for_backward of
 * MambaSplitConv1dScanCombinedFn), the gated norm's input (2 B, its
 * backward needs it) and out_proj's input (e B: TE keeps its quantized
 * copy under FP8, model_mem_layer_act in memory_act.c), plus the fp32 rstd per group. */
double model_mamba_act_bytes_per_token(const struct pl_model *m, double tp, double e) {
  double di = (double)d_inner(m);
  return (2.0 * (double)in_proj_width(m) + 2.0 * di + 2.0 * di + e * di +
          4.0 * (double)m->mamba_groups) /
         tp;
}

/* Per element of its input: the conv1d reads and writes x B C (2 + 2 B) and
 * runs d_conv multiply-adds and the SiLU; backward (causal_conv1d_bwd)
 * reads x and the gradient and writes dx (6 B) after the re-run forward
 * (4 B, MambaSplitConv1dScanCombinedFn.backward). */
#define CONV_FWD_BYTES (2.0 * BF16_BYTES)
#define CONV_BWD_BYTES (5.0 * BF16_BYTES)
/* The mixer's group RMSNorm: Megatron-Core calls the combined Fn without
 * rmsnorm_weight (megatron/core/ssm/mamba_mixer.py MambaMixer._ssm_training,
 * core_v0.14.0 .. d98e8a6), so the Fn passes z to _chunk_scan_fwd, which
 * applies the gate y silu(z) (ssd_chunk_scan.py HAS_Z), and self.norm
 * (ExtendedRMSNorm, mamba_ssm layernorm_gated.py RMSNorm) runs after it with
 * z None (norm_before_gate False: RMSNorm(y silu(z))): _layer_norm_fwd reads
 * y and writes the output; _layer_norm_bwd reads y and the gradient and
 * writes dy (its partial weight gradients summed by a second kernel). */
#define GROUP_NORM_FWD_BYTES (2.0 * BF16_BYTES)
#define GROUP_NORM_BWD_BYTES (3.0 * BF16_BYTES)
/* MambaMixer._ssm_training's layout changes (core_v0.14.0 .. d98e8a6):
 * rearrange(zxBCdt, "l b d -> b l d").contiguous() before the Fn and
 * rearrange(y, "b l d -> l b d").contiguous() after it copy each tensor (a
 * read and a write) unless mbs is 1, where the permuted tensor is already
 * contiguous (PyTorch ignores the stride of a size-1 dimension). Backward:
 * the gradient of a .contiguous() is passed through, so the Fn receives a
 * permuted view of dy (its kernels take strides; _mamba_chunk_scan_combined_bwd
 * copies dout only when stride(-1) != 1) and returns dzxBCdt in (b, l, d),
 * whose permuted view Transformer Engine's in_proj backward copies
 * (transformer_engine/pytorch/module/base.py grad_output_preprocess:
 * grad_output.reshape(-1, d) of a non-contiguous view, then .contiguous()). */
#define LAYOUT_COPY_BYTES (2.0 * BF16_BYTES)

/* The SSD's states, per fp32 state element (one N x P state per chunk and
 * head): _state_passing_fwd reads the chunk states _chunk_state_fwd wrote
 * (fp32, states_in_fp32) and writes the passed ones in 16-bit (out_dtype
 * C.dtype, state_dtype unset); the backward re-runs it writing fp32 (no
 * out_dtype), then _state_passing_bwd reads those and the fp32 dstates of
 * _chunk_scan_bwd_dstates and writes dstates and the converted states in
 * 16-bit (ssd_combined.py _mamba_chunk_scan_combined_fwd / _bwd,
 * ssd_state_passing.py). The chunk states' own write and the scan's read are
 * the matmul kernels' traffic (ssd_chunk_state, ssd_chunk_scan). The cumsum
 * reads dt and writes dA_cumsum and dt (fp32, per token and head), its
 * backward the same again. */
#define STATE_FWD_BYTES (FP32_BYTES + BF16_BYTES)
#define STATE_BWD_BYTES (2.0 * FP32_BYTES + 2.0 * FP32_BYTES + 2.0 * BF16_BYTES)
/* The gate y silu(z) that Megatron-Core's call puts in the scan (z passed,
 * see the RMSNorm above): _chunk_scan_fwd with HAS_Z also reads z and writes
 * out_x beside out (2 + 2 B per element of y); the backward's
 * _chunk_scan_bwd_dz reads dout, out, z and x and writes dz and dout_x
 * (6 x 2 B) in a kernel of its own (ssd_chunk_scan.py, e9594ce); measured
 * in data/ground-truth/h200/ssd_scan_z_kernels.csv (efficiency.mamba_ssm
 * ssd_gate). */
#define GATE_FWD_BYTES (2.0 * BF16_BYTES)
#define GATE_BWD_BYTES (6.0 * BF16_BYTES)

int model_mamba_ops(const struct pl_model *m, int64_t tp, int64_t mbs, int64_t seq, int64_t tokens,
                    struct pl_op *ops, int n) {
  int64_t h = m->hidden, di = d_inner(m) / tp, heads = m->mamba_heads / tp;
  int64_t groups = m->mamba_groups / tp, st = m->mamba_state, p = m->mamba_head_dim;
  int64_t q = m->mamba_chunk;
  int64_t chunks = mbs * ((seq + q - 1) / q);
  double t = (double)tokens, conv_ch = (double)(di + 2 * groups * st);
  model_op_gemm(&ops[n++], "in_proj", tokens, in_proj_width(m) / tp, h, 1);
  model_op_memory(&ops[n], "conv1d", t * conv_ch, 2.0 * (double)m->mamba_conv + 4.0,
                  4.0 * (double)m->mamba_conv + 8.0, CONV_FWD_BYTES, CONV_BWD_BYTES);
  ops[n++].bwd_kernels = 2; /* the re-run forward and causal_conv1d_bwd */
  double states = (double)chunks * (double)heads * (double)(st * p);
  double cumsum = t * (double)heads * 3.0 * FP32_BYTES;
  model_op_memory(&ops[n], "ssd_states", 1.0, 0.0, 0.0, states * STATE_FWD_BYTES + cumsum,
                  states * STATE_BWD_BYTES + 2.0 * cumsum);
  ops[n].fwd_kernels = 2; /* _chunk_cumsum_fwd, _state_passing_fwd */
  /* re-run cumsum and passing, _state_passing_bwd, _chunk_cumsum_bwd and the
   * backward's 22 ATen launches (sums of the split partials, flips, the
   * reverse cumsum, fills, adds, a copy), counted in the measured trace
   * (data/ground-truth/h200/ssd_kernels.csv: 36 backward kernels) */
  ops[n++].bwd_kernels = 26;
  model_op_memory(&ops[n], "ssd_gate", t * (double)di, 0.0, 0.0, GATE_FWD_BYTES, GATE_BWD_BYTES);
  ops[n++].fwd_kernels = -1; /* inside _chunk_scan_fwd: no launch of its own */
  /* The chunk matmuls, one product per (chunk, head) or (chunk, group)
   * pair, all pairs in one Triton launch (op.batched: one kernel, not one
   * cuBLAS call per pair; their backward products are per pair too). The
   * state output C h is fused into _chunk_scan_fwd beside the diagonal
   * block: one product with k = Q + N. */
  model_op_gemm(&ops[n++], "ssd_chunk_state", st, p, q, chunks * heads);
  model_op_gemm(&ops[n++], "ssd_bmm_cb", q, q, st, chunks * groups);
  model_op_gemm(&ops[n++], "ssd_chunk_scan", q, p, q + st, chunks * heads);
  /* backward launches (_mamba_chunk_scan_combined_bwd): chunk states its
   * re-run and _chunk_state_bwd_db; CB its re-run, _chunk_scan_bwd_dcb and two
   * _bmm_chunk_bwd; the scan _chunk_scan_bwd_dstates,
   * _chunk_scan_chunk_state_bwd_dx, _chunk_scan_bwd_dc and
   * _chunk_scan_bwd_ddAcs_stable */
  static const int bwd_kernels[3] = {2, 4, 4};
  for (int i = n - 3; i < n; i++) {
    ops[i].high_precision = true;
    ops[i].batched = true;
    ops[i].fwd_kernels = 1;
    ops[i].bwd_kernels = bwd_kernels[i - (n - 3)];
    /* chunk states and CB are re-run before their backward */
    if (strcmp(ops[i].name, "ssd_chunk_scan") != 0)
      ops[i].bwd_flops = 3.0 * ops[i].fwd_flops;
  }
  /* CB's backward also runs _chunk_scan_bwd_dcb, dout x^T per chunk and head
   * (Q x P by P x Q, summed into the group's dCB; ssd_chunk_scan.py) */
  ops[n - 2].bwd_flops += 2.0 * (double)(q * q * p) * (double)(chunks * heads);
  model_op_memory(&ops[n], "ssm_norm", t * (double)di, 4.0, 8.0, GROUP_NORM_FWD_BYTES,
                  GROUP_NORM_BWD_BYTES);
  ops[n++].bwd_kernels = 3; /* _layer_norm_bwd, the weight-gradient sum and its cast */
  if (mbs > 1) {
    double in_w = (double)(in_proj_width(m) / tp);
    model_op_memory(&ops[n], "ssm_layout", t, 0.0, 0.0, LAYOUT_COPY_BYTES * (in_w + (double)di),
                    LAYOUT_COPY_BYTES * in_w);
    /* every one of these copies reads a permuted view: copy_ ->
     * direct_copy_kernel_cuda -> gpu_kernel on a non-contiguous iterator
     * (aten/src/ATen/native/cuda/Copy.cu, CUDALoops.cuh), PyTorch's
     * non-vectorized path (pl_op strided_elems, docs/step-model.md 2.3h) */
    ops[n].fwd_strided_elems = t * (in_w + (double)di);
    ops[n].bwd_strided_elems = t * in_w;
    ops[n].fwd_strided_bytes = ops[n].fwd_bytes;
    ops[n].bwd_strided_bytes = ops[n].bwd_bytes;
    ops[n++].fwd_kernels = 2; /* zxBCdt and y */
  }
  model_op_gemm(&ops[n++], "out_proj", tokens, h, di, 1);
  return n;
}

/* MambaMixer.__init__'s defaults (d_conv=4, chunk_size=128), which the
 * Nemotron-H / Nemotron 3 providers and HF configs keep. */
#define MAMBA_DEFAULT_CONV 4
#define MAMBA_DEFAULT_CHUNK 128
void model_mamba_defaults(struct pl_model *m) {
  if (!pl_model_is_hybrid(m))
    return;
  if (m->mamba_conv == 0)
    m->mamba_conv = MAMBA_DEFAULT_CONV;
  if (m->mamba_chunk == 0)
    m->mamba_chunk = MAMBA_DEFAULT_CHUNK;
}

static enum pl_status hybrid_bad(const struct pl_model *m, const char *what, struct pl_diag *diag) {
  return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': hybrid_pattern: %s", m->name, what);
}

enum pl_status model_hybrid_check(const struct pl_model *m, struct pl_diag *diag) {
  if (!pl_model_is_hybrid(m)) {
    if (m->mamba_heads != 0 || m->mamba_head_dim != 0 || m->mamba_groups != 0 ||
        m->mamba_state != 0)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "model '%s': Mamba dimensions given without a hybrid_pattern", m->name);
    if (m->mtp_pattern[0] != '\0')
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "model '%s': mtp_pattern given without a hybrid_pattern", m->name);
    return PL_OK;
  }
  size_t len = strlen(m->hybrid_pattern);
  if (strspn(m->hybrid_pattern, "M*-E") != len)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': hybrid_pattern '%s' has a letter other than M (Mamba-2), * "
                       "(attention), - (MLP) and E (MoE)",
                       m->name, m->hybrid_pattern);
  if ((int64_t)len != m->layers)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': hybrid_pattern has %lld blocks but layers is %lld", m->name,
                       (long long)len, (long long)m->layers);
  if (pl_model_kind_layers(m, 'E') > 0 && m->experts <= 0)
    return hybrid_bad(m, "'E' blocks need experts, top_k and expert_ffn", diag);
  if (pl_model_kind_layers(m, 'E') == 0 && m->experts > 0)
    return hybrid_bad(m, "experts are given but no block is 'E'", diag);
  if (m->kv_lora_rank > 0 || m->full_attn_layers > 0)
    return hybrid_bad(m, "latent attention and full_attn_layers are not modelled in a hybrid stack",
                      diag);
  /* MTP in a hybrid stack: the module's blocks (mtp_pattern, hybrid_mtp.c) */
  size_t mtp_len = strlen(m->mtp_pattern);
  if (m->mtp_layers > 0 && mtp_len == 0)
    return hybrid_bad(m, "mtp_layers needs mtp_pattern, the kinds of the MTP module's blocks",
                      diag);
  if (strspn(m->mtp_pattern, "M*-E") != mtp_len)
    return hybrid_bad(m, "mtp_pattern has a letter other than M, *, - and E", diag);
  if (pl_model_kind_layers(m, 'M') == 0)
    return PL_OK;
  const struct {
    const char *what;
    int64_t v;
  } f[] = {{"mamba_heads", m->mamba_heads},   {"mamba_head_dim", m->mamba_head_dim},
           {"mamba_groups", m->mamba_groups}, {"mamba_state", m->mamba_state},
           {"mamba_conv", m->mamba_conv},     {"mamba_chunk", m->mamba_chunk}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (f[i].v <= 0 || f[i].v > MODEL_MAX_HIDDEN)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "model '%s': %s must be between 1 and %lld for 'M' blocks, not %lld",
                         m->name, f[i].what, (long long)MODEL_MAX_HIDDEN, (long long)f[i].v);
  if (m->mamba_heads % m->mamba_groups != 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': mamba_groups %lld must divide mamba_heads %lld", m->name,
                       (long long)m->mamba_groups, (long long)m->mamba_heads);
  if (in_proj_width(m) > MODEL_MAX_FFN)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': Mamba in_proj width %lld is above the limit %lld", m->name,
                       (long long)in_proj_width(m), (long long)MODEL_MAX_FFN);
  return PL_OK;
}
