/* nccl_log.c: read nccl-tests output into series of result rows (see
 * calib.h). The parser is line based and forgiving about everything around
 * the table (shell prompts, mpirun lines, markdown, NCCL_DEBUG output, srun
 * "0: " prefixes) and strict about the rows themselves (nccl_row.c).
 *
 * Header lines set up the next series: "# Collective test starting: X_perf"
 * names the op; "#  Rank  r Group g Pid p on HOST device d [bus] NAME" lines
 * give ranks and, through distinct hosts, nodes. A new series starts at the
 * first row after a header block, and when sizes start again from a smaller
 * value (a second test without its header: its op is then left to the
 * busbw/algbw ratio, see nccl_resolve.c). */
#include "calib/calib_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#include "base/json.h"

#define HOST_LEN 64

/* Header facts waiting for the next series. */
struct pending {
  bool op_known, unsupported;
  enum pl_coll_op op;
  char test[48];
  int64_t ranks;
  int64_t max_rank;           /* largest rank number seen, -1 = none */
  size_t n_hosts;
  char (*hosts)[HOST_LEN];
  char device[64];
  char algo[16];
};

struct parser {
  struct pl_nccl_log *log;
  struct pl_nccl_series *cur; /* series receiving rows, NULL after a header */
  struct pending p;
  int64_t line;
  bool full_warned;
};

static void pending_reset(struct pending *p) {
  p->op_known = p->unsupported = false;
  p->test[0] = p->device[0] = '\0';
  p->ranks = 0;
  p->max_rank = -1;
  p->n_hosts = 0;
}

/* "all_reduce_perf" -> all_reduce; tests plateau does not model are marked. */
static void test_starting(struct parser *ps, const char *name) {
  pending_reset(&ps->p);
  ps->cur = NULL;
  snprintf(ps->p.test, sizeof ps->p.test, "%s", name);
  char op[48];
  snprintf(op, sizeof op, "%s", name);
  char *suffix = strstr(op, "_perf");
  if (suffix != NULL)
    *suffix = '\0';
  if (pl_coll_op_parse(op, &ps->p.op, NULL) == PL_OK)
    ps->p.op_known = true;
  else
    ps->p.unsupported = true;
}

static enum pl_status add_host(struct pending *p, const char *host, struct pl_diag *diag) {
  for (size_t i = 0; i < p->n_hosts; i++)
    if (strncmp(p->hosts[i], host, HOST_LEN - 1) == 0)
      return PL_OK;
  if (p->n_hosts == PL_NCCL_MAX_HOSTS)
    return PL_OK; /* counted as one of the known ones; the limit is documented */
  if ((p->n_hosts & (p->n_hosts - 1)) == 0) {
    size_t cap = p->n_hosts ? 2 * p->n_hosts : 8;
    void *h = pl_reallocarray(p->hosts, cap, HOST_LEN);
    if (h == NULL)
      return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading host names");
    p->hosts = h;
  }
  snprintf(p->hosts[p->n_hosts++], HOST_LEN, "%s", host);
  return PL_OK;
}

static int64_t fmax_i64(int64_t a, int64_t b) { return a > b ? a : b; }

/* "#  Rank  0 Group  0 Pid 584419 on  dkh device  0 [0000:14:00] NVIDIA A100-SXM4-80GB" */
static enum pl_status rank_line(struct parser *ps, char *rest, struct pl_diag *diag) {
  if (ps->cur != NULL && ps->cur->n_rows > 0) { /* rank lines of a test with no start line */
    ps->cur = NULL;
    pending_reset(&ps->p);
  }
  char *tok[CALIB_MAX_TOKENS];
  int n = calib_tokens(rest, tok, CALIB_MAX_TOKENS);
  for (int i = 0; i + 1 < n; i++) {
    if (strcmp(tok[i], "on") != 0)
      continue;
    ps->p.ranks++;
    if (n > 1 && isdigit((unsigned char)tok[1][0]))
      ps->p.max_rank = fmax_i64(ps->p.max_rank, strtoll(tok[1], NULL, 10));
    enum pl_status st = add_host(&ps->p, tok[i + 1], diag);
    if (st != PL_OK)
      return st;
    for (int j = i + 2; j < n && ps->p.device[0] == '\0'; j++)
      if (tok[j][0] == '[' && j + 1 < n) {
        size_t used = 0;
        for (int k = j + 1; k < n && used + 1 < sizeof ps->p.device; k++)
          used += (size_t)snprintf(ps->p.device + used, sizeof ps->p.device - used, "%s%s",
                                   k > j + 1 ? " " : "", tok[k]);
      }
    break;
  }
  return PL_OK;
}

static enum pl_status header_line(struct parser *ps, char *s, struct pl_diag *diag) {
  const char *start = strstr(s, "Collective test starting:");
  if (start != NULL) {
    char *tok[2];
    char name[64];
    snprintf(name, sizeof name, "%s", start + strlen("Collective test starting:"));
    if (calib_tokens(name, tok, 1) == 1)
      test_starting(ps, tok[0]);
    return PL_OK;
  }
  /* "Rank" then a rank number: provenance headers that describe omitted rank
   * lines ("#  Rank .. Group  0 Pid .. on <host>") are not rank lines */
  char *rank = strstr(s, "Rank ");
  if (rank != NULL && isdigit((unsigned char)rank[4 + strspn(rank + 4, " ")]) &&
      strstr(s, " on ") != NULL && strstr(s, "Pid") != NULL)
    return rank_line(ps, rank, diag);
  return PL_OK;
}

static void debug_line(struct parser *ps, const char *s) {
  const char *k = strstr(s, "NCCL_ALGO set by environment to ");
  if (k == NULL)
    return;
  char buf[64];
  char *tok[1];
  snprintf(buf, sizeof buf, "%s", k + strlen("NCCL_ALGO set by environment to "));
  if (calib_tokens(buf, tok, 1) == 1)
    snprintf(ps->p.algo, sizeof ps->p.algo, "%s", tok[0]);
}

static struct pl_nccl_series *new_series(struct parser *ps, struct pl_diag *diag,
                                         enum pl_status *st) {
  struct pl_nccl_log *log = ps->log;
  *st = PL_OK;
  if (log->n_series == PL_NCCL_MAX_SERIES) {
    if (!ps->full_warned)
      calib_warn(log, ps->line, "more than %d tests in one file; the rest are ignored",
                 PL_NCCL_MAX_SERIES);
    ps->full_warned = true;
    return NULL;
  }
  void *grown = pl_reallocarray(log->series, log->n_series + 1, sizeof *log->series);
  if (grown == NULL) {
    *st = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading '%s'", log->origin);
    return NULL;
  }
  log->series = grown;
  struct pl_nccl_series *s = &log->series[log->n_series++];
  memset(s, 0, sizeof *s);
  s->op = ps->p.op;
  s->op_known = ps->p.op_known;
  /* Rank lines that skip ranks (a README quoting only the last one) say
   * neither the rank count nor the hosts: left to the hints and the ratio. */
  bool complete = ps->p.ranks >= 1 && ps->p.max_rank == ps->p.ranks - 1; /* no +1 on INT64_MAX */
  s->ranks = complete ? ps->p.ranks : 0;
  s->nodes = complete ? (int64_t)ps->p.n_hosts : 0;
  s->first_line = ps->line;
  snprintf(s->device, sizeof s->device, "%s", ps->p.device);
  snprintf(s->algo_hint, sizeof s->algo_hint, "%s", ps->p.algo);
  return s;
}

static enum pl_status append_row(struct parser *ps, struct pl_nccl_series *s,
                                 const struct pl_nccl_row *row, struct pl_diag *diag) {
  if (s->n_rows == PL_NCCL_MAX_ROWS) {
    if (s->n_rows == PL_NCCL_MAX_ROWS && !ps->full_warned)
      calib_warn(ps->log, ps->line, "more than %d rows in one test; the rest are ignored",
                 PL_NCCL_MAX_ROWS);
    ps->full_warned = true;
    return PL_OK;
  }
  if ((s->n_rows & (s->n_rows - 1)) == 0) {
    size_t cap = s->n_rows ? 2 * s->n_rows : 16;
    void *grown = pl_reallocarray(s->rows, cap, sizeof *s->rows);
    if (grown == NULL)
      return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading '%s'", ps->log->origin);
    s->rows = grown;
  }
  s->rows[s->n_rows++] = *row;
  return PL_OK;
}

static enum pl_status data_line(struct parser *ps, char *s, struct pl_diag *diag) {
  char *tok[CALIB_MAX_TOKENS];
  int n = calib_tokens(s, tok, CALIB_MAX_TOKENS);
  struct pl_nccl_row row;
  char redop[16], why[160];
  if (!calib_parse_row(tok, n, &row, redop, sizeof redop, why, sizeof why)) {
    calib_warn(ps->log, ps->line, "%s; row skipped", why);
    return PL_OK;
  }
  row.line = ps->line;
  if (row.bytes <= 0.0 || ps->p.unsupported) {
    if (ps->p.unsupported && ps->p.test[0] != '\0') {
      calib_warn(ps->log, ps->line, "test '%s' is not modelled by plateau; its rows are skipped",
                 ps->p.test);
      ps->p.test[0] = '\0'; /* warn once per test */
    }
    return PL_OK;
  }
  struct pl_nccl_series *cur = ps->cur;
  if (cur != NULL && cur->n_rows > 0 && row.bytes < cur->rows[cur->n_rows - 1].bytes) {
    calib_warn(ps->log, ps->line, "sizes start again without a test header: a new test whose "
                                  "collective is read from its busbw/algbw ratio");
    ps->p.op_known = false;
    cur = NULL;
  }
  enum pl_status st = PL_OK;
  if (cur == NULL && (cur = new_series(ps, diag, &st)) == NULL)
    return st;
  ps->cur = cur;
  if (cur->redop[0] == '\0')
    snprintf(cur->redop, sizeof cur->redop, "%s", redop);
  return append_row(ps, cur, &row, diag);
}

/* Strip "\r", and an srun/pdsh "12: " prefix. */
static char *clean(char *s) {
  size_t n = strlen(s);
  if (n > 0 && s[n - 1] == '\r')
    s[n - 1] = '\0';
  char *p = s;
  while (*p == ' ')
    p++;
  char *d = p;
  while (*d >= '0' && *d <= '9')
    d++;
  if (d > p && d[0] == ':' && (d[1] == ' ' || d[1] == '\t'))
    return d + 1;
  return s;
}

static enum pl_status one_line(struct parser *ps, char *s, struct pl_diag *diag) {
  s = clean(s);
  while (*s == ' ' || *s == '\t')
    s++;
  if (strstr(s, "NCCL INFO") != NULL || strstr(s, "NCCL WARN") != NULL) {
    debug_line(ps, s);
    return PL_OK;
  }
  if (s[0] == '#')
    return header_line(ps, s, diag);
  if (s[0] >= '0' && s[0] <= '9')
    return data_line(ps, s, diag);
  return PL_OK; /* prose, prompts, command lines */
}

static enum pl_status parse_lines(struct parser *ps, const char *text, size_t len,
                                  struct pl_diag *diag) {
  char buf[CALIB_MAX_LINE + 1];
  size_t i = 0;
  while (i < len) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
    ps->line++;
    if (n > CALIB_MAX_LINE) {
      calib_warn(ps->log, ps->line, "longer than %d characters; skipped", CALIB_MAX_LINE);
    } else {
      memcpy(buf, text + i, n);
      buf[n] = '\0';
      enum pl_status st = one_line(ps, buf, diag);
      if (st != PL_OK)
        return st;
    }
    i += n + 1;
  }
  return PL_OK;
}

static size_t count_rows(const struct pl_nccl_log *log) {
  size_t rows = 0;
  for (size_t i = 0; i < log->n_series; i++)
    rows += log->series[i].n_rows;
  return rows;
}

/* Only blanks in text[0..len) (text need not be NUL-terminated). */
static bool all_blank(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (strchr(" \t\r\n", text[i]) == NULL || text[i] == '\0')
      return false;
  return true;
}

enum pl_status pl_nccl_log_parse(const char *text, size_t len, const char *origin,
                                 struct pl_nccl_log **out, struct pl_diag *diag) {
  if (len == 0 || all_blank(text, len))
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s': empty file, expected nccl-tests output", origin);
  if (memchr(text, '\0', len) != NULL)
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s': binary data, not an nccl-tests log", origin);
  struct pl_nccl_log *log = pl_calloc(1, sizeof *log);
  if (log == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading '%s'", origin);
  snprintf(log->origin, sizeof log->origin, "%s", origin);
  struct parser ps = {.log = log};
  enum pl_status st = parse_lines(&ps, text, len, diag);
  pl_free(ps.p.hosts);
  if (st == PL_OK && count_rows(log) == 0 && log->n_warnings > 0)
    st = pl_diag_set(diag, PL_ERR_PARSE, "'%s': no usable nccl-tests result rows; first problem: %s",
                     origin, log->warnings[0]);
  else if (st == PL_OK && count_rows(log) == 0)
    st = pl_diag_set(diag, PL_ERR_PARSE,
                     "'%s': no nccl-tests result rows (lines like '1048576 262144 float sum -1 "
                     "40.10 26.15 22.88 0 ...'); is it nccl-tests output?",
                     origin);
  if (st != PL_OK) {
    pl_nccl_log_free(log);
    return st;
  }
  *out = log;
  return PL_OK;
}

enum pl_status pl_nccl_log_load(const char *path, struct pl_nccl_log **out,
                                struct pl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = base_read_file(path, PL_NCCL_MAX_FILE_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  st = pl_nccl_log_parse(text, len, path, out, diag);
  pl_free(text);
  return st;
}

void pl_nccl_log_free(struct pl_nccl_log *log) {
  if (log == NULL)
    return;
  for (size_t i = 0; i < log->n_series; i++)
    pl_free(log->series[i].rows);
  pl_free(log->series);
  pl_free(log);
}
