/* cmd_list.c: `plateau list models|gpus|clusters|frameworks` prints each built-in
 * preset's name with a one-line description, read from the preset itself. */
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"
#include "opts.h"

static const struct cli_opt list_opts[] = {
    {"format", "F", "text|csv|json (default text)"},
};
static const struct cli_cmd list_cmd = {
    "list", "plateau list models|gpus|clusters|frameworks [--format text|csv|json]",
    "List the built-in presets of one kind, one line each. Any preset name works wherever a "
    "--model, --gpu, --cluster or --framework is expected; so does a path to a file of the same format.",
    list_opts, sizeof list_opts / sizeof list_opts[0], true};

static void describe_model(const char *name, char *buf, size_t n) {
  struct pl_model m;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_model_load(name, &m, &d) != PL_OK) {
    snprintf(buf, n, "(cannot load: %s)", d.msg);
    return;
  }
  char params[32];
  pl_fmt_count(params, sizeof params, (double)pl_model_params(&m));
  int len = snprintf(buf, n,
                     "%s parameters: %lld layers, hidden %lld, %lld heads (%lld kv), seq %lld",
                     params, (long long)m.layers, (long long)m.hidden, (long long)m.heads,
                     (long long)m.kv_heads, (long long)m.seq_len);
  if (pl_model_is_moe(&m) && len > 0 && (size_t)len < n) {
    pl_fmt_count(params, sizeof params, (double)pl_model_active_params(&m));
    snprintf(buf + len, n - (size_t)len, ", %lld experts top-%lld, %s active", (long long)m.experts,
             (long long)m.top_k, params);
  }
}

static void describe_gpu(const char *name, char *buf, size_t n) {
  struct pl_gpu g;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_gpu_load(name, &g, &d) != PL_OK) {
    snprintf(buf, n, "(cannot load: %s)", d.msg);
    return;
  }
  char mem[32];
  pl_fmt_bytes(mem, sizeof mem, g.hbm_bytes);
  snprintf(buf, n, "%s; %.0f TFLOP/s bf16 dense, %s at %.2f TB/s, %.0f W", g.description,
           g.peak_bf16_flops_per_s / 1e12, mem, g.hbm_bytes_per_s / 1e12, g.tdp_w);
}

static void describe_cluster(const char *name, char *buf, size_t n) {
  struct pl_cluster c;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_cluster_load(name, &c, &d) != PL_OK) {
    snprintf(buf, n, "(cannot load: %s)", d.msg);
    return;
  }
  snprintf(buf, n, "%s", c.description);
}

static void describe_framework(const char *name, char *buf, size_t n) {
  struct pl_framework fw;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_preset(name, &fw, &d) != PL_OK) {
    snprintf(buf, n, "(cannot load: %s)", d.msg);
    return;
  }
  snprintf(buf, n, "%s", fw.description);
}

static void emit_row(enum cli_format fmt, struct pl_emit *e, const char *name, const char *desc) {
  if (fmt == CLI_FORMAT_JSON) {
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "name", name);
    pl_emit_str(e, "description", desc);
    pl_emit_obj_end(e);
  } else if (fmt == CLI_FORMAT_CSV) {
    printf("%s,\"", name);
    for (const char *p = desc; *p; p++)
      fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, stdout);
    printf("\"\n");
  } else {
    printf("  %-18s %s\n", name, desc);
  }
}

int cmd_list(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&list_cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  enum cli_format fmt;
  if (cli_get_format(&args, &fmt) != 0)
    return 1;
  if (args.n_pos != 1)
    return cli_usage(&list_cmd, "name one kind: models, gpus, clusters or frameworks");
  const char *kind = args.pos[0];
  void (*describe)(const char *, char *, size_t) =
      strcmp(kind, "models") == 0     ? describe_model
      : strcmp(kind, "gpus") == 0     ? describe_gpu
      : strcmp(kind, "clusters") == 0   ? describe_cluster
      : strcmp(kind, "frameworks") == 0 ? describe_framework
                                        : NULL;
  if (describe == NULL)
    return cli_fail("list: unknown kind '%s' (expected models, gpus, clusters or frameworks)",
                    kind);
  struct pl_emit *e = NULL;
  if (fmt == CLI_FORMAT_JSON) {
    e = cli_emit_open();
    pl_emit_obj_begin(e, NULL);
    pl_emit_arr_begin(e, kind);
  } else if (fmt == CLI_FORMAT_CSV) {
    printf("name,description\n");
  }
  for (size_t i = 0; pl_data_name(kind, i) != NULL; i++) {
    char desc[512];
    describe(pl_data_name(kind, i), desc, sizeof desc);
    emit_row(fmt, e, pl_data_name(kind, i), desc);
  }
  if (e != NULL) {
    pl_emit_arr_end(e);
    pl_emit_obj_end(e);
    struct pl_diag d;
    pl_diag_clear(&d);
    if (pl_emit_close(e, &d) != PL_OK)
      return cli_fail("%s", d.msg);
  }
  return 0;
}
