/* test_study.c: the study's spec, grid, findings and atomic report writing
 * (src/study/). Grids are tiny (a few points of Llama-2 7B) so the
 * test stays fast under sanitizers; gnuplot is never run here (the binary is
 * overridden with a path that does not exist, which is itself under test). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"
#include "study/study_int.h"

static int parse(const char *json, struct pl_study_spec *s, struct pl_diag *d) {
  pl_diag_clear(d);
  return (int)pl_study_spec_parse(json, strlen(json), "spec 't.json'", s, d);
}

static void test_default(void) {
  struct pl_study_spec s;
  pl_study_spec_default(&s);
  CHECK_EQ_INT(s.n_models, 3);
  CHECK_STR(s.models[2], "llama2-70b");
  CHECK_EQ_INT(s.n_clusters, 3);
  CHECK_STR(s.clusters[0], "dgx-v100");
  CHECK_EQ_INT(s.n_nodes, 9);
  CHECK_EQ_INT(s.nodes[0], 1);
  CHECK_EQ_INT(s.nodes[8], 256); /* 2^8 nodes = 2,048 GPUs */
  CHECK_EQ_INT(s.n_strategies, 10);
  CHECK_EQ_INT(pl_study_spec_strategy(&s, "fsdp"), 0);
  CHECK_EQ_INT(pl_study_spec_strategy(&s, "best"), 9);
  CHECK_EQ_INT(s.n_batches, 4);
  CHECK(s.batches[3].kind == PL_STUDY_FIXED);
  CHECK_EQ_INT(s.batches[3].n, 1024);
  CHECK_EQ_INT(s.seq, 4096);
  CHECK(s.shard == PL_SHARD_ZERO2);
  CHECK_NEAR_REL(s.coll_bytes, 1073741824.0, 0); /* 1 GiB = 2^30 B */
  CHECK_STR(s.focus_model, "llama2-7b");
  CHECK_STR(s.focus_cluster, "dgx-h100");
  /* the paper's own stack (Appendix C), loaded from the embedded preset */
  CHECK_STR(s.framework_ref, "fsdp2-study-2024");
  CHECK_STR(s.framework.name, "fsdp2-study-2024");
  CHECK(s.framework.fused_kernels == PL_SETTING_OFF);
  CHECK(s.framework.fsdp2_predivide == PL_SETTING_ON);
  CHECK(s.framework.fsdp2_rs_copy_in == PL_SETTING_ON);
}

/* "framework": a preset, "none" (plateau's defaults), or an error naming the field. */
static void test_spec_framework(void) {
  struct pl_study_spec s;
  struct pl_diag d;
  CHECK_EQ_INT(parse("{\"framework\": \"none\"}", &s, &d), PL_OK);
  CHECK_STR(s.framework_ref, "none");
  CHECK(s.framework.name[0] == '\0' && s.framework.fused_kernels == PL_SETTING_UNSET);
  CHECK_EQ_INT(parse("{\"framework\": \"torchtitan\"}", &s, &d), PL_OK);
  CHECK_STR(s.framework.name, "torchtitan");
  CHECK_EQ_INT(parse("{\"framework\": \"no-such-framework\"}", &s, &d), PL_ERR_UNKNOWN);
  CHECK(strstr(d.msg, "field 'framework'") != NULL);
  CHECK_EQ_INT(parse("{\"framework\": \"\"}", &s, &d), PL_ERR_RANGE);
  CHECK(strstr(d.msg, "field 'framework'") != NULL);
  CHECK_EQ_INT(parse("{\"framework\": 3}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "'framework'") != NULL);
}

static void test_spec_errors(void) {
  struct pl_study_spec s;
  struct pl_diag d;
  CHECK_EQ_INT(parse("{\"nodes\": [1, 4], \"batch_per_gpu\": [], \"global_batch\": [64]}", &s, &d),
               PL_OK);
  CHECK_EQ_INT(s.n_nodes, 2);
  CHECK_EQ_INT(s.nodes[1], 4);
  CHECK_EQ_INT(s.n_batches, 1); /* weak regimes switched off */
  CHECK(s.batches[0].kind == PL_STUDY_FIXED);
  CHECK_EQ_INT(parse("{\"nodez\": [1]}", &s, &d), PL_ERR_UNKNOWN);
  CHECK(strstr(d.msg, "field 'nodez'") != NULL);
  CHECK_EQ_INT(parse("{\"nodes\": [4, 2]}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "'nodes'") != NULL && strstr(d.msg, "ascending") != NULL);
  CHECK_EQ_INT(parse("{\"nodes\": [0]}", &s, &d), PL_ERR_RANGE);
  CHECK(strstr(d.msg, "'nodes': element 1") != NULL);
  CHECK_EQ_INT(parse("{\"nodes\": 8}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "must be an array") != NULL);
  CHECK_EQ_INT(parse("{\"strategies\": [\"tp2\", \"best\"]}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "must include \"fsdp\"") != NULL);
  CHECK_EQ_INT(parse("{\"strategies\": [\"fsdp\", \"tq2\"]}", &s, &d), PL_ERR_UNKNOWN);
  CHECK(strstr(d.msg, "'strategies'") != NULL && strstr(d.msg, "tq2") != NULL);
  CHECK_EQ_INT(parse("{\"strategies\": [\"fsdp\", \"fsdp\"]}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "listed twice") != NULL);
  CHECK_EQ_INT(parse("{\"shard\": \"zero4\"}", &s, &d), PL_ERR_UNKNOWN);
  CHECK(strstr(d.msg, "field 'shard'") != NULL);
  CHECK_EQ_INT(parse("{\"mbs\": \"big\"}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "'mbs'") != NULL);
  CHECK_EQ_INT(parse("{\"best\": \"tp=2,colour=red\"}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "field 'best'") != NULL);
  CHECK_EQ_INT(parse("{\"collective_bytes\": 1024}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "'collective_bytes'") != NULL);
  CHECK_EQ_INT(
      parse("{\"focus\": {\"model\": \"llama2-70b\"}, \"models\": [\"llama2-7b\"]}", &s, &d),
      PL_ERR_PARSE);
  CHECK(strstr(d.msg, "focus.model") != NULL);
  CHECK_EQ_INT(parse("{\"batch_per_gpu\": [], \"global_batch\": []}", &s, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "no batch regime") != NULL);
  CHECK_EQ_INT(parse("[1]", &s, &d), PL_ERR_PARSE);
  /* A replaced model list moves the focus to its first entry. */
  CHECK_EQ_INT(parse("{\"models\": [\"llama2-13b\"], \"clusters\": [\"dgx-a100\"]}", &s, &d),
               PL_OK);
  CHECK_STR(s.focus_model, "llama2-13b");
  CHECK_STR(s.focus_cluster, "dgx-a100");
}

static void test_fmt(void) {
  char b[64];
  study_fmt_int(b, sizeof b, 2048);
  CHECK_STR(b, "2,048");
  study_fmt_int(b, sizeof b, -1234567);
  CHECK_STR(b, "-1,234,567");
  study_fmt_int(b, sizeof b, 999);
  CHECK_STR(b, "999");
  study_fmt_change(b, sizeof b, 100.0, 70.0); /* (70 - 100) / 100 = -30% */
  CHECK_STR(b, "falls 30%");
  study_fmt_change(b, sizeof b, 200.0, 208.0); /* +8 / 200 = +4% */
  CHECK_STR(b, "rises 4%");
  study_fmt_change(b, sizeof b, 200.0, 200.5); /* +0.25% */
  CHECK_STR(b, "stays within 0.5%");
}

/* The tiny grid: Llama-2 7B on one DGX H100 node and two, FSDP and tp2. */
static const char *const tiny =
    "{\"models\": [\"llama2-7b\"], \"clusters\": [\"dgx-h100\"], \"nodes\": [1, 2],"
    " \"strategies\": [\"fsdp\", \"tp2\"], \"batch_per_gpu\": [1], \"global_batch\": [],"
    " \"mbs\": 1}";

static struct pl_study *run_tiny(const char *json) {
  static struct pl_study_spec s;
  struct pl_diag d;
  if (parse(json, &s, &d) != PL_OK) {
    fprintf(stderr, "spec: %s\n", d.msg);
    return NULL;
  }
  struct pl_study_opts o = {2, NULL, NULL, NULL};
  struct pl_study *st = NULL;
  CHECK_STATUS(pl_study_run(&s, &o, &st, &d), PL_OK, &d);
  return st;
}

static void test_grid(void) {
  struct pl_study *st = run_tiny(tiny);
  if (st == NULL)
    return;
  CHECK_EQ_INT(pl_study_count(st), 4); /* 1 model x 1 cluster x 1 batch x 2 strategies x 2 scales */
  const struct pl_study_point *p = pl_study_at(st, 0, 0, 0, 1, 1);
  CHECK_EQ_INT(p->strategy, 1);
  CHECK_EQ_INT(p->nodes, 2);
  CHECK_EQ_INT(p->gpus, 16); /* 2 nodes x 8 GPUs */
  CHECK(p->status == PL_STUDY_OK);
  CHECK_EQ_INT(p->pred.run.layout.tp, 2);
  CHECK_EQ_INT(p->pred.run.layout.gbs, 16); /* weak scaling: 1 sequence per GPU */
  /* Differential: the FSDP point at 1 node is exactly pl_predict of that run. */
  static struct pl_run run;
  static struct pl_prediction want;
  struct pl_diag d;
  pl_diag_clear(&d);
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load("llama2-7b", &run.model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, &d);
  run.layout.gpus = 8;
  run.layout.gbs = 8;
  run.layout.seq = 4096;
  run.layout.mbs = 1;
  run.layout.shard = PL_SHARD_ZERO2;
  run.layout.shard_set = true;
  /* the spec's framework: the paper's stack by default (spec.c) */
  CHECK_STATUS(pl_framework_load(PL_STUDY_DEFAULT_FRAMEWORK, &run.framework, &d), PL_OK, &d);
  CHECK_STATUS(pl_predict(&run, &want, &d), PL_OK, &d);
  const struct pl_study_point *f = pl_study_at(st, 0, 0, 0, 0, 0);
  CHECK(f->status == PL_STUDY_OK);
  CHECK_NEAR_REL(f->pred.step.step_time_s, want.step.step_time_s, 0);
  CHECK_NEAR_REL(f->pred.step.tokens_per_s, want.step.tokens_per_s, 0);
  /* Collectives: 3 ops x 2 scales on one cluster; a 16-rank group over 2 nodes. */
  CHECK_EQ_INT(pl_study_coll_count(st), 6);
  CHECK_EQ_INT(pl_study_coll_get(st, 1)->ranks, 16);
  CHECK(pl_study_coll_get(st, 1)->ok);
  pl_study_free(st);
}

/* Findings are computed: another cluster and sequence length give other
 * sentences (the cluster changes the speeds and collectives, the sequence
 * length the memory, which is the same on two 80 GB GPUs). */
static void test_findings_follow_inputs(void) {
  struct pl_study *a = run_tiny(tiny);
  struct pl_study *b =
      run_tiny("{\"models\": [\"llama2-7b\"], \"clusters\": [\"dgx-a100\"], \"nodes\": [1, 2],"
               " \"strategies\": [\"fsdp\", \"tp2\"], \"batch_per_gpu\": [1], \"global_batch\": [],"
               " \"mbs\": 1, \"seq\": 2048}");
  if (a == NULL || b == NULL) {
    pl_study_free(a);
    pl_study_free(b);
    return;
  }
  static struct pl_study_finding fa[PL_STUDY_MAX_FINDINGS], fb[PL_STUDY_MAX_FINDINGS];
  int na = pl_study_findings(a, fa, PL_STUDY_MAX_FINDINGS);
  int nb = pl_study_findings(b, fb, PL_STUDY_MAX_FINDINGS);
  CHECK(na >= 4);
  CHECK_EQ_INT(na, nb);
  int differ = 0;
  for (int i = 0; i < na && i < nb; i++) {
    CHECK_STR(fa[i].figure, fb[i].figure);
    differ += strcmp(fa[i].text, fb[i].text) != 0;
  }
  CHECK_EQ_INT(differ, na); /* every sentence names numbers of its own cluster */
  CHECK(strstr(fa[0].text, "dgx-h100") != NULL);
  CHECK(strstr(fb[0].text, "dgx-a100") != NULL);
  pl_study_free(a);
  pl_study_free(b);
}

static bool exists(const char *dir, const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

static void test_write(void) {
  struct pl_study *st = run_tiny(tiny);
  if (st == NULL)
    return;
  char base[] = "/tmp/test_study_XXXXXX";
  if (mkdtemp(base) == NULL)
    return;
  char out[256], junk[256];
  snprintf(out, sizeof out, "%s/report", base);
  struct pl_study_report_opts ro = {"/nonexistent/gnuplot", 0.0, 1, NULL, 1};
  struct pl_study_report_info info;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_study_write(st, out, &ro, &info, &d), PL_OK, &d);
  CHECK(!info.figures_drawn);
  CHECK(strstr(info.note, "gnuplot") != NULL);
  CHECK(info.n_figures >= 5);
  CHECK(exists(out, "results.csv") && exists(out, "results.json") && exists(out, "index.html"));
  CHECK(exists(out, "figures/scaling.gp") && exists(out, "figures/scaling.dat"));
  CHECK(!exists(out, "figures/scaling.svg"));
  /* A second run replaces the report (the marker file says it is one). */
  CHECK_STATUS(pl_study_write(st, out, &ro, &info, &d), PL_OK, &d);
  /* A directory that is not a report is refused and left alone. */
  snprintf(junk, sizeof junk, "%s/mine", base);
  mkdir(junk, 0755);
  char keep[300];
  snprintf(keep, sizeof keep, "%s/keep.txt", junk);
  FILE *f = fopen(keep, "w");
  if (f != NULL)
    fclose(f);
  pl_diag_clear(&d);
  CHECK_EQ_INT(pl_study_write(st, junk, &ro, &info, &d), PL_ERR_IO);
  CHECK(strstr(d.msg, "not a plateau study report") != NULL);
  CHECK(access(keep, F_OK) == 0);
  /* Nothing temporary is left beside the reports. */
  char cmd[400];
  snprintf(cmd, sizeof cmd, "ls -a %s | grep -c tmp- > /dev/null", base);
  CHECK(system(cmd) != 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", base);
  CHECK(system(cmd) == 0);
  pl_study_free(st);
}

int main(void) {
  test_default();
  test_spec_framework();
  test_spec_errors();
  test_fmt();
  test_grid();
  test_findings_follow_inputs();
  test_write();
  return check_finish();
}
