/* timeline.c: the predicted step as a Chrome/Perfetto trace (chrome://tracing,
 * ui.perfetto.dev) shaped like a PyTorch profiler (Kineto) trace, so the
 * same tools read a prediction and a measurement (docs/step-model.md
 * section 8):
 *   - one process per pipeline stage (the simulated rank), one thread per
 *     stream ("stream 7 compute", ...), a CPU thread with ProfilerStep#1;
 *   - compute tasks expanded into one kernel per operation (a GEMM's backward
 *     into its dgrad and wgrad kernels), laid end to end over the task's span
 *     in proportion to each kernel's time alone; kernel names follow cuBLAS,
 *     FlashAttention and PyTorch kernels of the GPU's architecture;
 *   - collectives as NCCL kernels (ncclDevKernel_AllGather_RING_LL, ...), one
 *     per call, with Kineto's args "Collective name", "In msg nelems",
 *     "Out msg nelems", "Group size", "dtype", "Process Group Name".
 * Times are microseconds with nanosecond decimals, from 0 at step start.
 * Above TL_MAX_KERNELS kernels, compute tasks are written whole (one event
 * per task) to keep the file usable. The file is written to a temporary name
 * and renamed (pl_outfile), so a reader never sees half a trace. */
#include <plateau/flops.h>
#include <plateau/outfile.h>
#include <plateau/report.h>
#include <plateau/sim.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A trace with more kernels than this would be gigabytes and unopenable in
 * a browser; beyond it compute tasks are not expanded. */
#define TL_MAX_KERNELS 2000000
#define TL_TID_BASE 7 /* Kineto numbers CUDA streams from 7 */
#define TL_CPU_TID 1

struct writer {
  FILE *f;
  const struct pl_timeline *tl;
  const struct pl_run *run;
  struct pl_op ops[3][PL_MAX_LAYER_OPS]; /* embed, layer, head */
  int n_ops[3];
  bool expand;
  long long corr;
};

static void put_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fputc('\\', f);
    if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void meta(struct writer *w, int64_t pid, int64_t tid, const char *what, const char *name) {
  fprintf(w->f,
          "{\"name\": \"%s\", \"ph\": \"M\", \"ts\": 0, \"pid\": %lld, \"tid\": %lld, "
          "\"args\": {\"name\": ",
          what, (long long)pid, (long long)tid);
  put_str(w->f, name);
  fputs("}},\n", w->f);
}

static void header(struct writer *w) {
  const struct pl_layout *l = &w->run->layout;
  fprintf(w->f,
          "{\"schemaVersion\": 1, \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": 0,\n"
          "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": %lld},\n"
          "\"deviceProperties\": [{\"id\": 0, \"name\": ",
          (long long)l->gpus);
  put_str(w->f, w->run->cluster.gpu.description[0] ? w->run->cluster.gpu.description
                                                   : w->run->cluster.gpu.name);
  fprintf(w->f, ", \"numSms\": %lld}],\n\"plateau\": {\"model\": ",
          (long long)w->run->cluster.gpu.sm_count);
  put_str(w->f, w->run->model.name);
  fprintf(w->f, ", \"cluster\": ");
  put_str(w->f, w->run->cluster.name);
  fprintf(w->f,
          ", \"predicted\": true, \"step_time_s\": %.9g, \"tp\": %lld, \"pp\": %lld, "
          "\"dp\": %lld, \"cp\": %lld},\n\"traceEvents\": [\n",
          pl_timeline_step_s(w->tl), (long long)l->tp, (long long)l->pp, (long long)l->dp,
          (long long)l->cp);
}

static void names(struct writer *w) {
  char buf[96];
  for (int64_t s = 0; s < pl_timeline_stages(w->tl); s++) {
    snprintf(buf, sizeof buf, "stage %lld (predicted rank)", (long long)s);
    meta(w, s, 0, "process_name", buf);
    snprintf(buf, sizeof buf, "GPU %lld", (long long)s);
    meta(w, s, 0, "process_labels", buf);
    meta(w, s, TL_CPU_TID, "thread_name", "thread 1 (python)");
    for (int k = 0; k < PL_STREAM_N; k++) {
      snprintf(buf, sizeof buf, "stream %d %s", TL_TID_BASE + k, pl_stream_name((enum pl_stream)k));
      meta(w, s, TL_TID_BASE + k, "thread_name", buf);
    }
    fprintf(w->f,
            "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", "
            "\"pid\": %lld, \"tid\": %d, \"ts\": 0.000, \"dur\": %.3f, "
            "\"args\": {\"External id\": 1}},\n",
            (long long)s, TL_CPU_TID, pl_timeline_step_s(w->tl) * 1e6);
  }
}

/* One kernel event and its CPU launch (cudaLaunchKernel with the same
 * correlation, at the kernel's start: the host is assumed to run ahead, and
 * analyzers attribute kernels to ProfilerStep spans through it); args_extra
 * is inserted into the kernel's "args" (may be ""). */
static void kernel(struct writer *w, const struct pl_timeline_task *t, const char *name,
                   double start_s, double dur_s, const char *args_extra) {
  w->corr++;
  fprintf(w->f,
          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
          "\"pid\": %lld, \"tid\": %d, \"ts\": %.3f, \"dur\": 0.001, \"args\": {"
          "\"correlation\": %lld, \"External id\": %lld}},\n",
          (long long)t->stage, TL_CPU_TID, start_s * 1e6, w->corr, w->corr);
  fprintf(w->f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": ");
  put_str(w->f, name);
  fprintf(w->f,
          ", \"pid\": %lld, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {"
          "\"device\": %lld, \"stream\": %d, \"correlation\": %lld, \"External id\": %lld%s}},\n",
          (long long)t->stage, TL_TID_BASE + (int)t->stream, start_s * 1e6, dur_s * 1e6,
          (long long)t->stage, TL_TID_BASE + (int)t->stream, w->corr, w->corr, args_extra);
}

/* ---- compute kernels ---- */

static const char *gemm_name(const struct pl_gpu *g, int which) {
  static const char *const hopper[3] = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
      "segment_k_off_kernel__5x_cublas"};
  static const char *const ampere[3] = {
      "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn",
      "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_nn",
      "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_nt"};
  static const char *const other[3] = {"gemm_bf16_tn_kernel", "gemm_bf16_nn_kernel",
                                       "gemm_bf16_nt_kernel"};
  if (strcmp(g->arch, "hopper") == 0)
    return hopper[which];
  if (strcmp(g->arch, "ampere") == 0)
    return ampere[which];
  return other[which];
}

static const char *memory_name(const struct pl_op *op) {
  if (strstr(op->name, "norm") != NULL)
    return "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel";
  if (strcmp(op->name, "embed") == 0)
    return "void at::native::(anonymous namespace)::indexSelectLargeIndex";
  if (strcmp(op->name, "loss") == 0)
    return "void at::native::(anonymous namespace)::cunn_SoftMaxForward";
  if (strcmp(op->name, "rope") == 0)
    return "void at::native::elementwise_kernel (rotary embedding)";
  return "void at::native::vectorized_elementwise_kernel";
}

/* The kernels of one op in one pass: names and times alone. Returns count. */
static int op_kernels(const struct writer *w, const struct pl_op *op, enum pl_pass pass,
                      const char *names_out[3], double times[3]) {
  const struct pl_gpu *g = &w->run->cluster.gpu;
  double t = pl_op_run_time_s(g, &w->run->layout, &w->run->model, op, pass);
  if (op->kind == PL_OP_GEMM && pass == PL_PASS_BWD) {
    names_out[0] = gemm_name(g, 1);
    names_out[1] = gemm_name(g, 2);
    times[0] = times[1] = t / 2;
    return 2;
  }
  if (op->kind == PL_OP_GEMM)
    names_out[0] = gemm_name(g, 0);
  else if (op->kind == PL_OP_ATTENTION && w->run->layout.eager_attention)
    names_out[0] = pass == PL_PASS_FWD
                       ? "scaled_masked_softmax_warp_forward (QK^T, softmax, dropout, PV)"
                       : "scaled_masked_softmax_warp_backward (attention backward)";
  else if (op->kind == PL_OP_ATTENTION)
    names_out[0] =
        pass == PL_PASS_FWD
            ? "void flash_fwd_kernel<Flash_fwd_kernel_traits>"
            : "void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits>";
  else
    names_out[0] = memory_name(op);
  times[0] = t;
  return t > 0 ? 1 : 0;
}

static bool wanted(const struct pl_op *op, enum pl_task_part part) {
  if (part == PL_PART_ALL)
    return true;
  if (part == PL_PART_TE_COLUMN || part == PL_PART_TE_REST)
    return (pl_op_te_column(op) >= 0) == (part == PL_PART_TE_COLUMN);
  if (part == PL_PART_COMBINE)
    return pl_op_moe_combine_node(op);
  if (part == PL_PART_EXPERTS)
    return pl_op_moe_mlp_node(op);
  if (part == PL_PART_NON_EXPERTS) /* the windows run the combine node's ops apart */
    return !pl_op_moe_mlp_node(op) && !pl_op_moe_combine_node(op);
  return (op->kind == PL_OP_ATTENTION) == (part == PL_PART_ATTN);
}

/* Walk a task's ops in execution order; emit when scale > 0, else just sum. */
static double walk_segment(struct writer *w, const struct pl_timeline_task *t, int seg,
                           int64_t layer, double *at, double scale) {
  const struct pl_op *ops = w->ops[seg];
  int n = w->n_ops[seg];
  bool bwd = t->kind == PL_TASK_BACKWARD;
  double sum = 0;
  char args[160];
  snprintf(args, sizeof args, ", \"layer\": %lld, \"micro_batch\": %lld, \"pass\": \"%s\"",
           (long long)layer, (long long)t->micro_batch, bwd ? "backward" : "forward");
  for (int r = 0; r < (bwd ? 2 : 1); r++) {
    /* a backward first re-runs the forward of recomputed ops */
    enum pl_pass pass = bwd && r == 1 ? PL_PASS_BWD : PL_PASS_FWD;
    for (int i = 0; i < n; i++) {
      const struct pl_op *op = &ops[pass == PL_PASS_BWD ? n - 1 - i : i];
      struct pl_op part; /* the whole op, or under recompute ops a fused GEMM's part */
      if (!wanted(op, t->part))
        continue;
      if (bwd && pass == PL_PASS_FWD) {
        if (!t->recompute || !pl_op_recompute_part(op, &part))
          continue;
        op = &part;
      }
      const char *nm[3];
      double tm[3];
      int k = op_kernels(w, op, pass, nm, tm);
      for (int j = 0; j < k; j++) {
        sum += tm[j];
        if (scale > 0)
          kernel(w, t, nm[j], *at, tm[j] * scale, args);
        *at += tm[j] * scale;
      }
    }
  }
  return sum;
}

static double walk_task(struct writer *w, const struct pl_timeline_task *t, double scale) {
  double at = t->start_s, sum = 0;
  bool bwd = t->kind == PL_TASK_BACKWARD;
  int64_t first = t->layer_first, n = t->layers;
  if (t->embed && !bwd)
    sum += walk_segment(w, t, 0, -1, &at, scale);
  if (t->head && bwd)
    sum += walk_segment(w, t, 2, -1, &at, scale);
  for (int64_t i = 0; i < n; i++)
    sum += walk_segment(w, t, 1, bwd ? first + n - 1 - i : first + i, &at, scale);
  if (t->embed && bwd)
    sum += walk_segment(w, t, 0, -1, &at, scale);
  if (t->head && !bwd)
    sum += walk_segment(w, t, 2, -1, &at, scale);
  return sum;
}

static void compute_task(struct writer *w, const struct pl_timeline_task *t) {
  double dur = t->end_s - t->start_s;
  if (t->kind == PL_TASK_OPTIMIZER) {
    kernel(w, t, "void multi_tensor_apply_kernel<FusedAdamWFunctor>", t->start_s, dur, "");
    return;
  }
  double alone = w->expand ? walk_task(w, t, 0) : 0;
  if (alone > 0 && dur > 0) {
    walk_task(w, t, dur / alone);
    return;
  }
  char args[128];
  snprintf(args, sizeof args, ", \"layers\": %lld, \"micro_batch\": %lld", (long long)t->layers,
           (long long)t->micro_batch);
  kernel(w, t, t->kind == PL_TASK_FORWARD ? "forward (layers)" : "backward (layers)", t->start_s,
         dur, args);
}

/* ---- NCCL kernels ---- */

static bool fp32_grads(const struct pl_timeline_coll *c) {
  bool dp = strcmp(c->group, "dp") == 0 || strcmp(c->group, "dp-replica") == 0;
  return dp && (c->op == PL_COLL_REDUCE_SCATTER || c->op == PL_COLL_ALL_REDUCE);
}

static void nccl_name(const struct pl_timeline_coll *c, char *buf, size_t n) {
  static const char *const kind[PL_COLL_N_OPS] = {"AllReduce", "AllGather", "ReduceScatter",
                                                  "SendRecv",  "Broadcast", "SendRecv"};
  const char *algo = c->algo == PL_ALGO_TREE ? "TREE" : c->algo == PL_ALGO_NVLS ? "NVLS" : "RING";
  const char *proto = c->proto == PL_PROTO_LL      ? "LL"
                      : c->proto == PL_PROTO_LL128 ? "LL128"
                                                   : "SIMPLE";
  const char *sig = "(ncclDevComm*, unsigned long, ncclWork*)";
  if (c->op == PL_COLL_SEND_RECV || c->op == PL_COLL_ALL_TO_ALL)
    snprintf(buf, n, "ncclDevKernel_SendRecv%s", sig);
  else if (c->op == PL_COLL_ALL_GATHER || c->op == PL_COLL_BROADCAST)
    snprintf(buf, n, "ncclDevKernel_%s_%s_%s%s", kind[c->op], algo, proto, sig);
  else
    snprintf(buf, n, "ncclDevKernel_%s_Sum_%s_%s_%s%s", kind[c->op], fp32_grads(c) ? "f32" : "bf16",
             algo, proto, sig);
}

/* The calls of one collective of a task, back to back from *at. */
static void coll_calls(struct writer *w, const struct pl_timeline_task *t,
                       const struct pl_timeline_coll *c, double each_s, double *at) {
  static const char *const coll_names[PL_COLL_N_OPS] = {"allreduce",  "allgather", "reduce_scatter",
                                                        "all_to_all", "broadcast", "send"};
  char name[160], args[400];
  nccl_name(c, name, sizeof name);
  double elem = fp32_grads(c) ? 4.0 : 2.0;
  double whole = c->bytes / elem, part = whole / (double)(c->group_ranks > 0 ? c->group_ranks : 1);
  double in = c->op == PL_COLL_ALL_GATHER ? part : whole;
  double out = c->op == PL_COLL_REDUCE_SCATTER ? part : whole;
  snprintf(args, sizeof args,
           ", \"Collective name\": \"%s\", \"In msg nelems\": %.0f, \"Out msg nelems\": %.0f, "
           "\"Group size\": %lld, \"dtype\": \"%s\", \"Process Group Name\": \"%s\", "
           "\"Process Group Description\": \"%s\", \"In split size\": \"[]\", \"Out split size\": "
           "\"[]\"",
           coll_names[c->op], in, out, (long long)c->group_ranks,
           elem == 4.0 ? "Float" : "BFloat16", c->group, c->group);
  for (int64_t i = 0; i < c->calls; i++) {
    kernel(w, t, name, *at, each_s, args);
    *at += each_s;
  }
}

/* A collective task: its calls laid out in proportion to their time alone. */
static void coll_task(struct writer *w, const struct pl_timeline_task *t) {
  double alone = 0;
  for (int k = 0; k < t->n_colls; k++)
    alone += (double)t->colls[k].calls * t->colls[k].call_s;
  double scale = alone > 0 ? (t->end_s - t->start_s) / alone : 0, at = t->start_s;
  for (int k = 0; k < t->n_colls; k++)
    coll_calls(w, t, &t->colls[k], t->colls[k].call_s * scale, &at);
}

/* Kernels a full expansion would write, to decide whether to expand. */
static double kernel_estimate(const struct writer *w) {
  double n = 0;
  struct pl_timeline_task t;
  for (size_t i = 0; i < pl_timeline_count(w->tl); i++) {
    pl_timeline_get(w->tl, i, &t);
    for (int k = 0; k < t.n_colls; k++)
      n += (double)t.colls[k].calls;
    n += t.kind == PL_TASK_COLL ? 0 : 3.0 * (double)(t.layers + 2) * w->n_ops[1];
  }
  return n;
}

static void events(struct writer *w) {
  struct pl_timeline_task t;
  for (size_t i = 0; i < pl_timeline_count(w->tl); i++) {
    pl_timeline_get(w->tl, i, &t);
    if (t.kind == PL_TASK_COLL)
      coll_task(w, &t);
    else
      compute_task(w, &t);
  }
}

enum pl_status pl_timeline_write(const struct pl_timeline *tl, const char *path,
                                 struct pl_diag *diag) {
  struct writer w;
  memset(&w, 0, sizeof w);
  w.tl = tl;
  w.run = pl_timeline_run(tl);
  w.n_ops[0] = pl_embed_ops(&w.run->model, &w.run->layout, w.ops[0]);
  w.n_ops[1] = pl_layer_ops(&w.run->model, &w.run->layout, w.ops[1]);
  w.n_ops[2] = pl_head_ops(&w.run->model, &w.run->layout, w.ops[2]);
  w.expand = kernel_estimate(&w) <= TL_MAX_KERNELS;
  struct pl_outfile out;
  enum pl_status st = pl_outfile_open(&out, path, diag);
  if (st != PL_OK)
    return st;
  w.f = out.f;
  header(&w);
  names(&w);
  events(&w);
  fputs("{\"name\": \"trace_end\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 0, \"args\": "
        "{}}\n]}\n",
        w.f);
  return pl_outfile_commit(&out, PL_OK, diag);
}

enum pl_status pl_predict_timeline(const struct pl_run *run, const char *path,
                                   struct pl_diag *diag) {
  struct pl_timeline *tl = NULL;
  enum pl_status st = pl_timeline_build(run, &tl, NULL, diag);
  if (st == PL_OK)
    st = pl_timeline_write(tl, path, diag);
  pl_timeline_free(tl);
  return st;
}
