/* strategy.c: constraints on the layout space, from "--fix key=value,..." and
 * from named strategies ("fsdp", "tp2", "pp4", "tp2pp2", "best"), defined in
 * docs/search.md ("Strategies"). A strategy fixes the model-parallel degrees
 * (1 unless named) and the kind of sharding; everything else (micro-batch,
 * recompute, schedule, vp) is left to the search, so each strategy is shown
 * at its best. */
#include <plateau/search.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <plateau/units.h>

#define FSDP_MASK ((1u << PL_SHARD_ZERO1) | (1u << PL_SHARD_ZERO2) | (1u << PL_SHARD_ZERO3))

/* value may list alternatives: "zero2|zero3". */
static enum pl_status parse_mask(const char *key, const char *value, unsigned *mask,
                                 struct pl_diag *diag) {
  unsigned m = 0;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", value);
  for (char *s = buf; s != NULL && *s != '\0';) {
    char *bar = strchr(s, '|');
    if (bar != NULL)
      *bar = '\0';
    int v = 0;
    enum pl_status st = PL_OK;
    if (strcmp(key, "shard") == 0) {
      enum pl_shard x;
      st = pl_shard_parse(s, &x, diag);
      v = (int)x;
    } else if (strcmp(key, "recompute") == 0) {
      enum pl_recompute x;
      st = pl_recompute_parse(s, &x, diag);
      v = (int)x;
    } else {
      enum pl_schedule x;
      st = pl_schedule_parse(s, &x, diag);
      v = (int)x;
    }
    if (st != PL_OK)
      return st;
    m |= 1u << v;
    s = bar ? bar + 1 : NULL;
  }
  if (m == 0)
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s': empty value", key);
  *mask = m;
  return PL_OK;
}

static int64_t *int_field(struct pl_search_space *s, const char *key) {
  if (strcmp(key, "tp") == 0)
    return &s->tp;
  if (strcmp(key, "pp") == 0)
    return &s->pp;
  if (strcmp(key, "cp") == 0)
    return &s->cp;
  if (strcmp(key, "dp") == 0)
    return &s->dp;
  if (strcmp(key, "vp") == 0)
    return &s->vp;
  if (strcmp(key, "mbs") == 0)
    return &s->mbs;
  return NULL;
}

/* A degree or batch within the layout's limits (docs/limits.md), so a
 * constraint of 8888888888888888888 is refused here, not carried along
 * (fuzz_words). */
static enum pl_status bounded_int(const char *value, int64_t max, int64_t *out,
                                  struct pl_diag *diag) {
  int64_t v = 0;
  enum pl_status st = pl_int_parse(value, &v, diag);
  if (st != PL_OK)
    return st;
  if (v > max)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%lld is more than the limit %lld", (long long)v,
                       (long long)max);
  *out = v;
  return PL_OK;
}

static enum pl_status parse_pair(const char *key, const char *value, struct pl_search_space *s,
                                 struct pl_diag *diag) {
  int64_t *f = int_field(s, key);
  if (f != NULL)
    return bounded_int(value, f == &s->mbs ? PL_LAYOUT_MAX_BATCH : PL_LAYOUT_MAX_GPUS, f, diag);
  if (strcmp(key, "shard_group") == 0 || strcmp(key, "shard-group") == 0) {
    if (strcmp(value, "dp") == 0) {
      s->shard_group = -1;
      return PL_OK;
    }
    return bounded_int(value, PL_LAYOUT_MAX_GPUS, &s->shard_group, diag);
  }
  if (strcmp(key, "shard") == 0)
    return parse_mask(key, value, &s->shard_mask, diag);
  if (strcmp(key, "recompute") == 0)
    return parse_mask(key, value, &s->recompute_mask, diag);
  if (strcmp(key, "schedule") == 0)
    return parse_mask(key, value, &s->schedule_mask, diag);
  return pl_diag_set(diag, PL_ERR_UNKNOWN,
                     "unknown key '%s' (expected tp|pp|cp|dp|vp|mbs|shard|shard_group|recompute|schedule)",
                     key);
}

enum pl_status pl_search_space_parse(const char *text, struct pl_search_space *space,
                                     struct pl_diag *diag) {
  char buf[512];
  if (strlen(text) >= sizeof buf)
    return pl_diag_set(diag, PL_ERR_LIMIT, "'%.40s...': longer than %zu characters", text,
                       sizeof buf - 1);
  snprintf(buf, sizeof buf, "%s", text);
  for (char *s = buf; s != NULL;) {
    char *comma = strchr(s, ',');
    if (comma != NULL)
      *comma = '\0';
    char *eq = strchr(s, '=');
    if (eq == NULL || eq == s || eq[1] == '\0')
      return pl_diag_set(diag, PL_ERR_PARSE, "'%s': expected key=value", s);
    *eq = '\0';
    struct pl_diag d;
    pl_diag_clear(&d);
    enum pl_status st = parse_pair(s, eq + 1, space, &d);
    if (st != PL_OK)
      return pl_diag_set(diag, st, "'%s=%s': %s", s, eq + 1, d.msg);
    s = comma ? comma + 1 : NULL;
  }
  return PL_OK;
}

/* One word of a strategy name at *p; advances *p. */
static enum pl_status strategy_word(const char **p, struct pl_search_space *s, struct pl_diag *diag) {
  static const struct {
    const char *word;
    unsigned mask;
    int64_t group;
  } sharding[] = {
      {"fsdp", FSDP_MASK, -1},
      {"hsdp", FSDP_MASK, 0},
      {"ddp", 1u << PL_SHARD_DDP, 0},
      {"zero1", 1u << PL_SHARD_ZERO1, -1},
      {"zero2", 1u << PL_SHARD_ZERO2, -1},
      {"zero3", 1u << PL_SHARD_ZERO3, -1},
  };
  for (size_t i = 0; i < sizeof sharding / sizeof sharding[0]; i++) {
    size_t n = strlen(sharding[i].word);
    if (strncmp(*p, sharding[i].word, n) == 0) {
      s->shard_mask = sharding[i].mask;
      s->shard_group = sharding[i].group;
      *p += n;
      return PL_OK;
    }
  }
  int64_t *f = NULL;
  if (strncmp(*p, "tp", 2) == 0)
    f = &s->tp;
  else if (strncmp(*p, "pp", 2) == 0)
    f = &s->pp;
  else if (strncmp(*p, "cp", 2) == 0)
    f = &s->cp;
  if (f == NULL || !isdigit((unsigned char)(*p)[2]))
    return pl_diag_set(diag, PL_ERR_UNKNOWN, "at '%s'", *p);
  char num[24];
  size_t n = 0;
  for (*p += 2; isdigit((unsigned char)**p) && n + 1 < sizeof num; ++*p)
    num[n++] = **p;
  num[n] = '\0';
  return bounded_int(num, PL_LAYOUT_MAX_GPUS, f, diag);
}

enum pl_status pl_strategy_parse(const char *name, struct pl_search_space *space,
                                 struct pl_diag *diag) {
  memset(space, 0, sizeof *space);
  if (strcmp(name, "best") == 0)
    return PL_OK;
  space->tp = space->pp = space->cp = 1;
  space->shard_mask = FSDP_MASK;
  space->shard_group = -1;
  const char *p = name;
  if (*p == '\0')
    return pl_diag_set(diag, PL_ERR_UNKNOWN, "empty strategy name");
  while (*p != '\0') {
    struct pl_diag d;
    pl_diag_clear(&d);
    if (strategy_word(&p, space, &d) != PL_OK)
      return pl_diag_set(diag, PL_ERR_UNKNOWN,
                         "unknown strategy '%s': %s (expected best, fsdp, hsdp, ddp, zero1..3, "
                         "tpN, ppN, cpN, combined as in tp2pp2)",
                         name, d.msg);
    while (*p == '-' || *p == '+' || *p == '_')
      p++;
  }
  return PL_OK;
}
