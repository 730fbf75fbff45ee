/* ub_margin.c: the forward proj and fc2 GEMMs on the SMs that Transformer
 * Engine's userbuffers leave them (docs/step-model.md section 3).
 *
 * Under tp_comm_overlap with sequence parallelism, TE overlaps the
 * reduce_scatter of the forward proj and fc2 outputs with their GEMMs
 * (ub names proj_fprop and fc2_fprop; TE v2.8 pytorch/module/base.py
 * initialize_ub: method "pipeline" by default, or "ring_exchange" where the
 * ub config says so). Each ub config entry carries num_sm and
 * set_sm_margin; with the margin, common/comm_gemm_overlap/
 * comm_gemm_overlap.cpp CommOverlapCore::initialize sets
 *   _math_sms = sm_count - num_comm_sm
 * and split_overlap_rs (pipeline) / CommOverlapP2PBase::split_overlap_rs
 * (ring exchange) pass _math_sms to every GEMM chunk (nvte_cublas_gemm's
 * math_sm_count: cuBLAS runs the GEMM on that many SMs), for the whole GEMM,
 * however long the collective beside it runs. A GEMM that fills the GPU takes
 * sm_count / (sm_count - num_sm) of its whole-GPU time (the SM share of a
 * compute-bound kernel; wave quantisation and the HBM share are not
 * modelled). Values per run: layout.ub_proj_fprop_sms and ub_fc2_fprop_sms
 * (the nemo preset: NeMo-Framework-Launcher's ub configs,
 * data/frameworks/nemo.json). The reduce_scatter kernels beside then run on
 * their own SMs and do not slow compute (lower_unit.c ub_ce). A recomputed
 * forward runs the same TE forward, so it is timed the same way (the caller
 * times it as a forward). */
#include <plateau/flops.h>
#include <plateau/layout.h>

#include "sim/sim_int.h"

double sim_ub_margin_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_op *op,
                       enum pl_pass pass, double t) {
  if (!l->tp_comm_overlap || !l->sp || l->tp <= 1 || pass != PL_PASS_FWD ||
      op->kind != PL_OP_GEMM || op->name == NULL)
    return t;
  int k = pl_op_tp_linear(op);
  int64_t n = k == 2 ? l->ub_proj_fprop_sms : k == 3 ? l->ub_fc2_fprop_sms : 0;
  if (n <= 0 || n >= g->sm_count)
    return t;
  return t * (double)g->sm_count / (double)(g->sm_count - n);
}
