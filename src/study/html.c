/* html.c: index.html, the study report a person opens. Self-contained:
 * every figure is embedded as an SVG data URI (base64), the style sheet is
 * inline, nothing is fetched from a network. A small inline script counts the
 * figures that decoded into #figstatus (the rendering test reads it). */
#include "study_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/version.h>

static void esc(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
  }
}

static void base64(FILE *f, const unsigned char *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16;
    if (i + 1 < n)
      v |= (unsigned)p[i + 1] << 8;
    if (i + 2 < n)
      v |= p[i + 2];
    fputc(tab[(v >> 18) & 63], f);
    fputc(tab[(v >> 12) & 63], f);
    fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', f);
    fputc(i + 2 < n ? tab[v & 63] : '=', f);
  }
}

static const char *const style =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:1320px;margin:0 auto;"
    "padding:1em 2em;color:#222;background:#fff;line-height:1.45}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;"
    "border-bottom:1px solid #ddd;padding-bottom:.2em}"
    ".meta{color:#555;font-size:.92em}.finding{background:#f3f7fb;border-left:4px solid #1f77b4;"
    "padding:.5em .8em;margin:.6em 0}.caption{color:#444;font-size:.92em}"
    ".files{color:#777;font-size:.85em;font-family:monospace}"
    "img.fig{max-width:100%;height:auto;border:1px solid #eee;display:block}"
    ".note{background:#fff6e5;border-left:4px solid #ff7f0e;padding:.5em .8em}"
    "table{border-collapse:collapse;font-size:.92em}td,th{border:1px solid #ddd;padding:.25em .6em;"
    "text-align:left;vertical-align:top}";

static const char *const script =
    "<script>window.addEventListener('load',function(){"
    "var im=document.querySelectorAll('img.fig'),ok=0;"
    "for(var i=0;i<im.length;i++)if(im[i].complete&&im[i].naturalWidth>0)ok++;"
    "var s=document.getElementById('figstatus');"
    "s.textContent='figures loaded: '+ok+' of '+im.length;"
    "s.setAttribute('data-loaded',ok);s.setAttribute('data-total',im.length);});</script>\n";

static void head(FILE *f, const struct pl_study *st, const struct study_html_info *hi) {
  int64_t n[3] = {0, 0, 0};
  for (int64_t i = 0; i < st->n_points; i++)
    n[st->points[i].status]++;
  fprintf(f,
          "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>plateau study</title>\n<style>%s</style></head>\n<body>\n",
          style);
  fputs("<h1>Scaling study: throughput, utilization and power as GPUs are added</h1>\n", f);
  fprintf(f,
          "<p class=\"meta\">%lld grid points: %lld simulated, %lld do not fit in memory, "
          "%lld cannot be laid out. Predicted by plateau %s",
          (long long)st->n_points, (long long)n[0], (long long)n[1], (long long)n[2], PL_VERSION);
  if (hi->elapsed_s > 0)
    fprintf(f, " in %.1f s on %d thread%s", hi->elapsed_s, hi->threads,
            hi->threads == 1 ? "" : "s");
  fputs(
      ". After Fernandez et al., <i>Hardware Scaling Trends and Diminishing Returns in Large-Scale "
      "Distributed Training</i> (arXiv 2411.13055). Data: <a href=\"results.csv\">results.csv</a>, "
      "<a href=\"results.json\">results.json</a>, spec: <a href=\"spec.json\">spec.json</a>.</p>\n",
      f);
  if (!hi->drawn && hi->note != NULL && hi->note[0] != '\0') {
    fputs("<p class=\"note\">", f);
    esc(f, hi->note);
    fputs("</p>\n", f);
  }
}

static void findings_list(FILE *f, const struct study_fig *figs, int n) {
  fputs("<h2>Findings</h2>\n<ul>\n", f);
  for (int i = 0; i < n; i++) {
    if (figs[i].skip[0] != '\0' || figs[i].findings[0] == '\0')
      continue;
    fprintf(f, "<li><a href=\"#%s\">", figs[i].id);
    esc(f, figs[i].title);
    fputs("</a>: ", f);
    esc(f, figs[i].findings);
    fputs("</li>\n", f);
  }
  fputs("</ul>\n", f);
}

static enum pl_status embed_svg(FILE *f, const struct study_fig *fig, const char *dir,
                                struct pl_diag *diag) {
  char name[64], path[1024];
  study_setf(name, sizeof name, "figures/%s.svg", fig->id);
  if (!study_path(path, sizeof path, dir, name))
    return pl_diag_set(diag, PL_ERR_LIMIT, "'%s': path too long", dir);
  char *svg = NULL;
  size_t len = 0;
  enum pl_status rc = study_read_all(path, &svg, &len, diag);
  if (rc != PL_OK)
    return rc;
  fputs("<img class=\"fig\" alt=\"", f);
  esc(f, fig->title);
  fputs("\" src=\"data:image/svg+xml;base64,", f);
  base64(f, (const unsigned char *)svg, len);
  fputs("\">\n", f);
  pl_free(svg);
  return PL_OK;
}

static enum pl_status figure(FILE *f, const struct study_fig *fig, const char *dir,
                             const struct study_html_info *hi, struct pl_diag *diag) {
  fprintf(f, "<section id=\"%s\"><h2>", fig->id);
  esc(f, fig->title);
  fputs("</h2>\n", f);
  enum pl_status rc = PL_OK;
  if (hi->drawn)
    rc = embed_svg(f, fig, dir, diag);
  else
    fputs("<p class=\"note\">Figure not drawn (see the note at the top).</p>\n", f);
  if (fig->findings[0] != '\0') {
    fputs("<p class=\"finding\">", f);
    esc(f, fig->findings);
    fputs("</p>\n", f);
  }
  fputs("<p class=\"caption\">", f);
  esc(f, fig->caption);
  fprintf(f,
          "</p>\n<p class=\"files\">figures/%s.svg, %s.png; to restyle: %s.gp, %s.dat</p>"
          "</section>\n",
          fig->id, fig->id, fig->id, fig->id);
  return rc;
}

static void grid_table(FILE *f, const struct pl_study *st) {
  const struct pl_study_spec *s = &st->spec;
  fputs("<h2>Grid</h2>\n<table>\n<tr><th>models</th><td>", f);
  for (int i = 0; i < s->n_models; i++) {
    fputs(i ? ", " : "", f);
    esc(f, st->models[i].name);
  }
  fputs("</td></tr>\n<tr><th>clusters</th><td>", f);
  for (int i = 0; i < s->n_clusters; i++) {
    fputs(i ? "; " : "", f);
    esc(f, st->clusters[i].name);
    fputs(" (", f);
    esc(f, st->clusters[i].description);
    fputs(")", f);
  }
  fputs("</td></tr>\n<tr><th>nodes</th><td>", f);
  for (int i = 0; i < s->n_nodes; i++)
    fprintf(f, "%s%lld", i ? ", " : "", (long long)s->nodes[i]);
  fputs("</td></tr>\n<tr><th>strategies</th><td>", f);
  for (int i = 0; i < s->n_strategies; i++) {
    fputs(i ? ", " : "", f);
    esc(f, s->strategies[i]);
  }
  fprintf(f, " (named strategies: %s, recompute %s, micro-batch ", pl_shard_name(s->shard),
          pl_recompute_name(s->recompute));
  if (s->mbs > 0)
    fprintf(f, "%lld)", (long long)s->mbs);
  else
    fputs("auto)", f);
  fputs("</td></tr>\n<tr><th>batches</th><td>", f);
  for (int i = 0; i < s->n_batches; i++) {
    char b[64];
    study_batch_name(&s->batches[i], b, sizeof b);
    fprintf(f, "%s%s", i ? ", " : "", b);
  }
  fprintf(f, "; sequences of %lld tokens, %s</td></tr>\n</table>\n", (long long)s->seq,
          pl_dtype_name(s->dtype));
}

static void skipped(FILE *f, const struct study_fig *figs, int n) {
  int any = 0;
  for (int i = 0; i < n; i++) {
    if (figs[i].skip[0] == '\0')
      continue;
    if (any++ == 0)
      fputs("<h2>Figures without data</h2>\n<ul>\n", f);
    fputs("<li>", f);
    esc(f, figs[i].title);
    fputs(": ", f);
    esc(f, figs[i].skip);
    fputs("</li>\n", f);
  }
  if (any)
    fputs("</ul>\n", f);
}

enum pl_status study_write_html(const struct pl_study *st, const struct study_fig *figs, int n_figs,
                                const char *dir, const struct study_html_info *hi,
                                struct pl_diag *diag) {
  char path[1024];
  if (!study_path(path, sizeof path, dir, "index.html"))
    return pl_diag_set(diag, PL_ERR_LIMIT, "'%s': path too long", dir);
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  head(f, st, hi);
  findings_list(f, figs, n_figs);
  enum pl_status rc = PL_OK;
  for (int i = 0; rc == PL_OK && i < n_figs; i++)
    if (figs[i].skip[0] == '\0')
      rc = figure(f, &figs[i], dir, hi, diag);
  skipped(f, figs, n_figs);
  grid_table(f, st);
  fputs("<p id=\"figstatus\" class=\"meta\">figures not counted (scripts off)</p>\n", f);
  fputs(script, f);
  fputs("</body></html>\n", f);
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad)
    return rc != PL_OK
               ? rc
               : pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return rc;
}
