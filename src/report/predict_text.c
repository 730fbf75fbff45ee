/* predict_text.c: a prediction as a table a person reads in five seconds:
 * what was resolved, then time, throughput, breakdown, collectives, memory
 * and power, each with its unit. */
#include <plateau/band.h>
#include <plateau/coll.h>
#include <plateau/flops.h>
#include <plateau/report.h>
#include <plateau/units.h>

#include <string.h>

static void row(FILE *out, const char *label, const char *value) {
  fprintf(out, "  %-24s %s\n", label, value);
}

static void describe(FILE *out, const struct pl_prediction *p) {
  const struct pl_layout *l = &p->run.layout;
  char buf[160], n[32];
  pl_fmt_count(n, sizeof n, (double)p->params);
  fprintf(out, "plateau predict: %s on %lld x %s (%s)\n", p->run.model.name, (long long)l->gpus,
          p->run.cluster.gpu.name, p->run.cluster.name);
  snprintf(buf, sizeof buf, "%s (%lld parameters)", n, (long long)p->params);
  row(out, "parameters", buf);
  if (pl_model_is_moe(&p->run.model)) {
    const struct pl_model *m = &p->run.model;
    pl_fmt_count(n, sizeof n, (double)p->active_params);
    snprintf(buf, sizeof buf, "%s per token: %lld of %lld experts in %lld of %lld blocks", n,
             (long long)m->top_k, (long long)m->experts, (long long)pl_model_moe_layers(m),
             (long long)m->layers);
    row(out, "active parameters", buf);
    double applied = pl_moe_imbalance(&p->run.model, l);
    /* under forced balance the random logits' spread (model/moe_balance.c) */
    snprintf(buf, sizeof buf, "ep=%lld etp=%lld edp=%lld  dispatch=%s  imbalance=%.2f%s",
             (long long)l->ep, (long long)l->etp, (long long)l->edp,
             pl_moe_dispatch_name(l->dispatch), l->moe_imbalance,
             applied > l->moe_imbalance ? " (random router: busiest rank x" : "");
    if (applied > l->moe_imbalance) {
      size_t used = strlen(buf);
      snprintf(buf + used, sizeof buf - used, "%.4f)", applied);
    }
    row(out, "experts", buf);
  }
  bool fsdp = l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
  snprintf(buf, sizeof buf, "dp=%lld tp=%lld pp=%lld cp=%lld vp=%lld  shard=%s group=%lld  sp=%s%s",
           (long long)l->dp, (long long)l->tp, (long long)l->pp, (long long)l->cp, (long long)l->vp,
           pl_shard_name(l->shard), (long long)l->shard_group, l->sp ? "on" : "off",
           fsdp && l->gather_no_prefetch ? "  prefetch=off" : "");
  row(out, "layout", buf);
  if (l->cp > 1 && l->cp_comm != PL_CP_P2P) { /* layout.cp_comm: p2p, the default, unsaid */
    snprintf(buf, sizeof buf, "cp exchange=%s", pl_cp_comm_name(l->cp_comm));
    if (l->cp_comm == PL_CP_A2A_P2P) {
      size_t used = strlen(buf);
      snprintf(buf + used, sizeof buf - used, " (a2a over %lld, ring over %lld)",
               (long long)l->cp_a2a, (long long)(l->cp / l->cp_a2a));
    }
    row(out, "", buf);
  }
  snprintf(buf, sizeof buf, "gbs=%lld sequences  mbs=%lld  micro-batches=%lld  seq=%lld tokens",
           (long long)l->gbs, (long long)l->mbs, (long long)l->micro_batches, (long long)l->seq);
  row(out, "batch", buf);
  if (p->run.model.max_context > 0 && l->seq == p->run.model.seq_len) {
    snprintf(buf, sizeof buf, "(the config's context is %lld tokens; its training length is not "
             "stated: --seq sets it)", (long long)p->run.model.max_context);
    row(out, "", buf);
  }
  snprintf(buf, sizeof buf, "recompute=%s schedule=%s dtype=%s nodes=%lld",
           pl_recompute_name(l->recompute), pl_schedule_name(l->schedule), pl_layout_dtype_name(l),
           (long long)l->nodes);
  row(out, "", buf);
  char mf[32], hf[32];
  pl_fmt_count(mf, sizeof mf, p->flops.model_per_step);
  pl_fmt_count(hf, sizeof hf, p->flops.hardware_per_step);
  snprintf(buf, sizeof buf, "%sFLOP model, %sFLOP hardware", mf, hf);
  row(out, "FLOPs per step", buf);
}

static void part(FILE *out, const char *label, double bytes, double total) {
  char b[32], line[64];
  pl_fmt_bytes(b, sizeof b, bytes);
  snprintf(line, sizeof line, "%10s  %5.1f%%", b, total > 0 ? 100.0 * bytes / total : 0.0);
  row(out, label, line);
}

static void memory(FILE *out, const struct pl_memory *m) {
  char t[32], c[32], buf[400];
  fprintf(out, "\nmemory per GPU (busiest pipeline stage: %lld)\n", (long long)m->stage);
  part(out, "parameters", m->params_bytes, m->total_bytes);
  part(out, "gradients", m->grads_bytes, m->total_bytes);
  part(out, "optimizer states", m->optimizer_bytes, m->total_bytes);
  part(out, "activations", m->activations_bytes, m->total_bytes);
  part(out, "other", m->other_bytes, m->total_bytes);
  pl_fmt_bytes(t, sizeof t, m->total_bytes);
  pl_fmt_bytes(c, sizeof c, m->capacity_bytes);
  if (m->fits)
    snprintf(buf, sizeof buf, "%s of %s: fits", t, c);
  else
    snprintf(buf, sizeof buf, "%s of %s: does not fit: %s", t, c, m->why);
  row(out, "total", buf);
}

static void share(FILE *out, const char *label, double s, double step) {
  char t[32], line[64];
  pl_fmt_seconds(t, sizeof t, s);
  snprintf(line, sizeof line, "%12s  %5.1f%%", t, step > 0 ? 100.0 * s / step : 0.0);
  row(out, label, line);
}

/* "  (-1.4%/+22.6%)": the band of a quantity as signed percentages of it. */
static void band_pct(char *buf, size_t n, double lo_ratio, double hi_ratio) {
  snprintf(buf, n, "  (%+.1f%%/%+.1f%%)", 100 * (lo_ratio - 1), 100 * (hi_ratio - 1));
}

static void step(FILE *out, const struct pl_prediction *p) {
  const struct pl_step *s = &p->step;
  int64_t gpus = p->run.layout.gpus;
  char buf[240], t[32], bs[3][48] = {"", "", ""};
  struct pl_band b;
  pl_band_of(p, &b);
  if (b.known) {
    struct pl_band_ranges r;
    pl_band_ranges(&b, s, &r);
    band_pct(bs[0], sizeof bs[0], r.step_time_s[0] / s->step_time_s, r.step_time_s[1] / s->step_time_s);
    band_pct(bs[1], sizeof bs[1], r.tokens_per_s[0] / s->tokens_per_s,
             r.tokens_per_s[1] / s->tokens_per_s);
    snprintf(bs[2], sizeof bs[2], " (%.1f-%.1f%%)", 100 * r.mfu[0], 100 * r.mfu[1]);
  }
  pl_fmt_seconds(t, sizeof t, s->step_time_s);
  fprintf(out, "\nstep\n");
  snprintf(buf, sizeof buf, "%s%s", t, bs[0]);
  row(out, "step time", buf);
  snprintf(buf, sizeof buf, "%.0f tokens/s (%.1f per GPU)%s", s->tokens_per_s, s->tokens_per_s_per_gpu,
           bs[1]);
  row(out, "throughput", buf);
  snprintf(buf, sizeof buf, "MFU %.1f%%%s  HFU %.1f%%  %.1f TFLOP/s per GPU", 100 * s->mfu, bs[2],
           100 * s->hfu, s->tflops_per_gpu);
  row(out, "utilization", buf);
  if (b.known) {
    snprintf(buf, sizeof buf, "%s: the middle %.0f%% of %lld published runs (docs/accuracy.md)",
             b.class_name, b.central_pct, (long long)b.rows);
    row(out, "error band", buf);
  }
  fprintf(out, "\nwhere the step goes\n");
  share(out, "compute", s->compute_s, s->step_time_s);
  share(out, "exposed communication", s->exposed_comm_s, s->step_time_s);
  share(out, "pipeline bubble", s->bubble_s, s->step_time_s);
  share(out, "optimizer", s->optimizer_s, s->step_time_s);
  share(out, "other", s->other_s, s->step_time_s);
  share(out, "(overlapped comm)", s->overlapped_comm_s, s->step_time_s);
  if (s->n_collectives > 0) {
    fprintf(out, "\ncollectives per step (one rank)\n  %-16s %-6s %7s %12s %12s %12s\n", "op", "group",
            "calls", "size", "time", "exposed");
    for (int i = 0; i < s->n_collectives; i++) {
      const struct pl_coll_summary *c = &s->collectives[i];
      char sz[32], tm[32], ex[32];
      pl_fmt_bytes(sz, sizeof sz, c->bytes);
      pl_fmt_seconds(tm, sizeof tm, c->time_s);
      pl_fmt_seconds(ex, sizeof ex, c->exposed_s);
      fprintf(out, "  %-16s %-6s %7lld %12s %12s %12s\n", c->op, c->group, (long long)c->count, sz, tm,
              ex);
    }
  }
  fprintf(out, "\npower\n");
  snprintf(buf, sizeof buf, "%.0f W per GPU, %.1f kW for %lld GPUs with their nodes", s->gpu_w,
           s->cluster_w / 1e3, (long long)gpus);
  row(out, "draw", buf);
  snprintf(buf, sizeof buf, "%.3g J per step, %.2f tokens/J", s->energy_per_step_j, s->tokens_per_j);
  row(out, "energy", buf);
}

static void train(FILE *out, const struct pl_prediction *p) {
  const struct pl_train_opts *o = &p->run.train;
  const struct pl_train *t = &p->train;
  char buf[200], n[32], h[32];
  if (t->has_tokens) {
    pl_fmt_count(n, sizeof n, o->tokens);
    fprintf(out, "\ntraining %s tokens\n", n);
    pl_fmt_count(n, sizeof n, t->steps);
    snprintf(buf, sizeof buf, "%.1f days (%s steps; wall clock, without restarts)", t->days, n);
    row(out, "time to train", buf);
    pl_fmt_count(h, sizeof h, t->gpu_hours);
    row(out, "GPU-hours", h);
    if (t->energy_kwh >= 1000)
      snprintf(buf, sizeof buf, "%.4g MWh (GPUs and their nodes)", t->energy_kwh / 1000);
    else
      snprintf(buf, sizeof buf, "%.4g kWh (GPUs and their nodes)", t->energy_kwh);
    row(out, "energy", buf);
  } else {
    fprintf(out, "\ncost\n");
  }
  if (t->has_gpu_price) {
    pl_fmt_count(n, sizeof n, t->cost_usd);
    if (t->has_tokens)
      snprintf(buf, sizeof buf, "$%s at $%g per GPU-hour ($%.4g per million tokens)", n,
               o->gpu_hour_usd, t->usd_per_mtok);
    else
      snprintf(buf, sizeof buf, "$%.4g per million tokens at $%g per GPU-hour", t->usd_per_mtok,
               o->gpu_hour_usd);
    row(out, "GPU cost", buf);
  }
  if (t->has_energy_price) {
    pl_fmt_count(n, sizeof n, t->energy_cost_usd);
    if (t->has_tokens)
      snprintf(buf, sizeof buf, "$%s at $%g per kWh ($%.4g per million tokens)", n, o->kwh_usd,
               t->energy_usd_per_mtok);
    else
      snprintf(buf, sizeof buf, "$%.4g per million tokens at $%g per kWh",
               t->energy_usd_per_mtok, o->kwh_usd);
    row(out, "energy cost", buf);
  }
}

void pl_report_predict_text(FILE *out, const struct pl_prediction *p) {
  describe(out, p);
  if (p->step.simulated)
    step(out, p);
  if (p->step.simulated && p->train.requested)
    train(out, p);
  memory(out, &p->memory);
}
