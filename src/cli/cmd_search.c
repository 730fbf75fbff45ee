/* cmd_search.c: `plateau search`: every layout of a model on a cluster at a
 * fixed world size and global batch, the ones that cannot run rejected with
 * their reason, the rest ranked by the step model (docs/search.md). */
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "search_cli.h"
#include "run_opts.h"

static const struct cli_opt opts[] = {
    RUN_OPTS,
    {"objective", "O", "throughput|tokens-per-joule|cost (default throughput)"},
    {"top", "K", "show the K best layouts (default 10)"},
    {"fix", "LIST", "constrain the space: key=value,... with keys tp pp cp dp vp mbs shard "
                    "shard_group recompute schedule; '|' lists alternatives (shard=zero2|zero3)"},
    TRAIN_OPTS,
    {"exhaustive", NULL, "simulate every layout that fits, without pruning (slow; for checking)"},
    PAR_OPTS,
    {"format", "F", "text|json|csv (default text)"},
};

static const struct cli_cmd cmd = {
    "search", "plateau search [options]",
    "Search the parallel layouts of one model on one cluster at a fixed world size and global\n"
    "batch: tp, pp, cp, dp, shard mode and group, micro-batch, recompute, schedule and vp.\n"
    "Layouts that cannot run or do not fit are counted by reason; the rest are ranked by the\n"
    "step model. Layout options (--tp, --shard, ...) fix that part of the layout, as --fix does.\n"
    "Results are identical for any --threads and any number of MPI ranks (mpirun -np R).\n"
    "Each result carries predict's error band (*_range in JSON, *_lo/*_hi in CSV; plateau\n"
    "help predict).",
    opts, sizeof opts / sizeof opts[0], false,
};

struct search_cli {
  struct pl_run run;
  struct pl_search_opts so;
  enum cli_format format;
  bool has_price;
  const char *fix; /* --fix as given, or NULL */
};

static double cost_per_mtok(const struct pl_prediction *p, double usd) {
  return pl_search_objective(p, PL_OBJECTIVE_COST, usd);
}

/* ---- text ---- */

static void text_header(const struct search_cli *sc, const struct pl_search_result *r) {
  const struct pl_run *run = &sc->run;
  printf("plateau search: %s on %s (%s), objective %s\n", run->model.name, run->cluster.gpu.name,
         run->cluster.name, cli_objective_name(sc->so.objective));
  printf("layouts: %lld considered, %lld rejected, %lld pruned by the bound, %lld simulated\n",
         (long long)r->considered, (long long)r->rejected_total, (long long)r->pruned,
         (long long)r->evaluated);
  if (r->rejected_total > 0) {
    printf("rejected:");
    const char *sep = " ";
    for (int i = 0; i < PL_REJECT_N; i++) {
      if (r->rejected[i] == 0)
        continue;
      printf("%s%s %lld", sep, pl_reject_name((enum pl_reject)i), (long long)r->rejected[i]);
      sep = ", ";
    }
    printf("\n");
  }
}

static void text_row(const struct search_cli *sc, int64_t rank, const struct pl_search_hit *h) {
  const struct pl_layout *l = &h->pred.run.layout;
  const struct pl_step *s = &h->pred.step;
  char step[32], mem[32];
  pl_fmt_seconds(step, sizeof step, s->step_time_s);
  pl_fmt_bytes(mem, sizeof mem, h->pred.memory.total_bytes);
  printf("%4lld %5lld %3lld %3lld %3lld %3lld %-5s %5lld %4lld %-9s %-11s %10s %11.0f %8.1f %5.1f%% "
         "%6.1f%% %8.2f %10s",
         (long long)rank, (long long)l->dp, (long long)l->tp, (long long)l->pp, (long long)l->cp,
         (long long)l->vp, pl_shard_name(l->shard), (long long)l->shard_group, (long long)l->mbs,
         pl_recompute_name(l->recompute), pl_schedule_name(l->schedule), step, s->tokens_per_s,
         s->tokens_per_s_per_gpu, 100 * s->mfu,
         s->step_time_s > 0 ? 100 * s->exposed_comm_s / s->step_time_s : 0.0, s->tokens_per_j, mem);
  if (sc->has_price) { /* "%9.4f" of 1e304 (a GPU file's 1e-288 B/s) is 300 digits */
    double usd = cost_per_mtok(&h->pred, sc->so.gpu_hour_usd);
    printf(usd < 1e9 ? " %9.4f" : " %9.3g", usd);
  }
  if (pl_model_is_moe(&h->pred.run.model))
    printf(" %4lld", (long long)l->ep);
  printf("\n");
}

static void print_text(const struct search_cli *sc, const struct pl_search_result *r) {
  text_header(sc, r);
  if (r->n_hits == 0) {
    printf("\nno layout fits");
    if (r->has_closest)
      printf(": the closest %s", r->closest.memory.why);
    printf("\n");
    return;
  }
  printf("\n%4s %5s %3s %3s %3s %3s %-5s %5s %4s %-9s %-11s %10s %11s %8s %6s %7s %8s %10s%s%s\n",
         "rank", "dp", "tp", "pp", "cp", "vp", "shard", "group", "mbs", "recompute", "schedule",
         "step", "tokens/s", "/GPU", "MFU", "exposed", "tokens/J", "memory",
         sc->has_price ? " USD/Mtok" : "", pl_model_is_moe(&r->hits[0].pred.run.model) ? "   ep" : "");
  for (int64_t i = 0; i < r->n_hits; i++)
    text_row(sc, i + 1, &r->hits[i]);
  /* every row runs the same GPUs, framework and world size: one class (band.h) */
  struct pl_band b;
  pl_band_of(&r->hits[0].pred, &b);
  if (b.known)
    printf("\nerror band of every row: step time %+.1f%%/%+.1f%%, throughput and MFU %+.1f%%/%+.1f%% "
           "(%s: the middle %.0f%% of %lld published runs; plateau help predict)\n",
           100 * (b.ratio_lo - 1), 100 * (b.ratio_hi - 1), 100 * (1 / b.ratio_hi - 1),
           100 * (1 / b.ratio_lo - 1), b.class_name, b.central_pct, (long long)b.rows);
}

/* ---- JSON and CSV ---- */

static int print_json(const struct search_cli *sc, const struct pl_search_result *r) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_fail("out of memory");
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "objective", cli_objective_name(sc->so.objective));
  pl_emit_str(e, "fix", sc->fix); /* null when not given */
  pl_emit_int(e, "considered", r->considered);
  pl_emit_obj_begin(e, "rejected");
  for (int i = 0; i < PL_REJECT_N; i++)
    pl_emit_int(e, pl_reject_name((enum pl_reject)i), r->rejected[i]);
  pl_emit_obj_end(e);
  pl_emit_int(e, "rejected_total", r->rejected_total);
  pl_emit_int(e, "pruned", r->pruned);
  pl_emit_int(e, "evaluated", r->evaluated);
  pl_emit_arr_begin(e, "results");
  for (int64_t i = 0; i < r->n_hits; i++) {
    pl_emit_obj_begin(e, NULL);
    pl_report_predict_members(e, &r->hits[i].pred);
    pl_emit_int(e, "rank", i + 1);
    pl_emit_num(e, "objective", r->hits[i].objective);
    if (sc->has_price)
      pl_emit_num(e, "cost_usd_per_mtok", cost_per_mtok(&r->hits[i].pred, sc->so.gpu_hour_usd));
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  if (r->has_closest)
    pl_report_predict_json(e, "closest", &r->closest);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

static int print_csv(const struct search_cli *sc, const struct pl_search_result *r) {
  if (cli_csv_predict_header(stdout) != 0)
    return 1;
  /* "objective" is the value of --objective's objective (issue 20: its meaning moves with the
   * flag), so the name and each objective's own value follow it in columns of their own; the
   * cost one is empty without --gpu-hour-price */
  printf(",rank,objective%s,objective_name,objective_throughput,objective_tokens_per_joule,"
         "objective_cost\n",
         sc->has_price ? ",cost_usd_per_mtok" : "");
  for (int64_t i = 0; i < r->n_hits; i++) {
    const struct pl_prediction *p = &r->hits[i].pred;
    if (cli_csv_predict_row(stdout, p) != 0)
      return 1;
    printf(",%lld", (long long)(i + 1));
    cli_csv_num(stdout, r->hits[i].objective, true);
    if (sc->has_price)
      cli_csv_num(stdout, cost_per_mtok(p, sc->so.gpu_hour_usd), true);
    printf(",%s", cli_objective_name(sc->so.objective));
    cli_csv_num(stdout, pl_search_objective(p, PL_OBJECTIVE_THROUGHPUT, 0), true);
    cli_csv_num(stdout, pl_search_objective(p, PL_OBJECTIVE_TOKENS_PER_J, 0), true);
    cli_csv_num(stdout, sc->has_price ? cost_per_mtok(p, sc->so.gpu_hour_usd) : 0, sc->has_price);
    printf("\n");
  }
  return 0;
}

static int run_search(struct search_cli *sc, struct cli_par *cp) {
  struct pl_search_result res;
  struct pl_diag d;
  pl_diag_clear(&d);
  sc->so.par = cp->par;
  sc->so.progress = cli_progress;
  sc->so.progress_ud = cp;
  if (pl_search_run(&sc->run, &sc->so, &res, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  cli_progress_clear(cp);
  /* Every layout refused by pl_layout_resolve and none reaching the memory
   * check: a flag no layout can take (a LoRA rank above the model width, a
   * packed sample above seq, LoRA on an MoE model), not "no layout fits".
   * The base layout (the degrees predict defaults to) names the reason. */
  if (res.n_hits == 0 && !res.has_closest && res.rejected[PL_REJECT_LAYOUT] > 0 &&
      res.rejected_total == res.considered) {
    struct pl_layout l = sc->run.layout;
    if (pl_layout_resolve(&l, &sc->run.model, &sc->run.cluster, &d) != PL_OK) {
      pl_search_result_free(&res);
      return cli_fail("search: every layout is refused: %s", d.msg);
    }
  }
  int rc = 0;
  if (sc->format == CLI_FORMAT_JSON)
    rc = print_json(sc, &res);
  else if (sc->format == CLI_FORMAT_CSV)
    rc = print_csv(sc, &res);
  else
    print_text(sc, &res);
  pl_search_result_free(&res);
  return rc;
}

int cmd_search(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  static struct search_cli sc; /* large: keep off the stack */
  memset(&sc, 0, sizeof sc);
  if (cli_get_format(&args, &sc.format) != 0 ||
      cli_search_setup(&args, &sc.run, &sc.so, &sc.has_price) != 0)
    return 1;
  sc.fix = cli_get(&args, "fix");
  struct cli_par cp;
  if (cli_par_begin(&args, "search", &cp) != 0)
    return 1;
  rc = run_search(&sc, &cp);
  cli_par_end(&cp);
  return rc;
}
