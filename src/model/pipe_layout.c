/* pipe_layout.c: Megatron-Core pipeline layout strings
 * (--pipeline-model-parallel-layout; layout.pipeline_layout) and the
 * multi-token-prediction modules they place (layout.mtp_layers).
 *
 * Source: Megatron-LM megatron/core/transformer/pipeline_parallel_layer_layout.py
 * (HEAD d98e8a6, 2026-08-22), PipelineParallelLayerLayout:
 *   parse_str_to_list: commas are cosmetic and removed; every "(X)*n" is
 *     unrolled (regex \(([^)]+)\)*(\d+), one left-to-right pass, no nesting),
 *     then every "c*n" (regex (.)\*(\d+)); the result is split at '|' into
 *     virtual stages whose characters are E (embedding), L (loss, with the
 *     output layer), t (a transformer block) and m (an MTP module).
 *   __init__: the number of virtual stages must be divisible by pp; vp is
 *     their quotient; stage i of the string is chunk i / pp of pipeline rank
 *     i % pp (plateau's virtual-stage order v = chunk * pp + stage).
 *   validate_layer_layout: the first layer is E and the last L, each exactly
 *     once; the t count equals num_layers, the m count mtp_num_layers; no t
 *     after the first m; MTP only in a rank's last virtual stage, all of it in
 *     one stage, never on the first rank.
 * megatron/core/transformer/transformer_config.py __post_init__: a layout
 * cannot be combined with num_layers_in_first/last_pipeline_stage or
 * account_for_embedding/loss_in_pipeline_split; a given vp must equal the
 * layout's. */
#include <plateau/layout.h>

#include <stdlib.h>
#include <string.h>

/* What one expansion may grow to: a 61-block model over 16 virtual stages is
 * under 100 characters; 2^16 leaves room for any layout while keeping a
 * mistyped count ("t*99999999") from allocating gigabytes. */
#define EXPANDED_MAX (1 << 16)

struct buf {
  char *s;
  size_t n;
};

static bool put(struct buf *b, const char *s, size_t len, long long times) {
  if (times > 0 && len > 0 && (size_t)times > (EXPANDED_MAX - b->n) / len)
    return false;
  for (long long k = 0; k < times; k++) {
    memcpy(b->s + b->n, s, len);
    b->n += len;
  }
  b->s[b->n] = '\0';
  return true;
}

/* Digits at s (at least one): their value (capped above EXPANDED_MAX) and length. */
static size_t digits(const char *s, long long *value) {
  size_t i = 0;
  long long v = 0;
  while (s[i] >= '0' && s[i] <= '9') {
    v = v > EXPANDED_MAX ? v : v * 10 + (s[i] - '0');
    i++;
  }
  *value = v;
  return i;
}

/* One re.sub pass; parens: \(([^)]+)\)\*(\d+), else (.)\*(\d+). */
static bool unroll(const char *in, struct buf *out, bool parens) {
  out->n = 0;
  out->s[0] = '\0';
  size_t i = 0, len = strlen(in);
  while (i < len) {
    long long n = 0;
    if (parens && in[i] == '(') {
      const char *close = strchr(in + i + 1, ')');
      size_t body = close ? (size_t)(close - (in + i + 1)) : 0;
      if (close != NULL && body > 0 && close[1] == '*') {
        size_t nd = digits(close + 2, &n);
        if (nd > 0) {
          if (!put(out, in + i + 1, body, n))
            return false;
          i = (size_t)(close + 2 + nd - in);
          continue;
        }
      }
    } else if (!parens && in[i] != '\n' && in[i + 1] == '*') {
      size_t nd = digits(in + i + 2, &n);
      if (nd > 0) {
        if (!put(out, in + i, 1, n))
          return false;
        i += 2 + nd;
        continue;
      }
    }
    if (!put(out, in + i, 1, 1))
      return false;
    i++;
  }
  return true;
}

enum pl_status pl_pipeline_layout_parse(const char *s, struct pl_pipe_chunk *out, int64_t max,
                                        int64_t *n_out, struct pl_diag *diag) {
  size_t len = strlen(s);
  char *a = malloc(EXPANDED_MAX + 1), *b = malloc(EXPANDED_MAX + 1);
  enum pl_status st = PL_OK;
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    return pl_diag_set(diag, PL_ERR_NOMEM, "pipeline layout: out of memory");
  }
  if (len > EXPANDED_MAX) {
    st = pl_diag_set(diag, PL_ERR_LAYOUT, "pipeline layout: longer than %d characters",
                     EXPANDED_MAX);
    goto done;
  }
  size_t k = 0;
  for (size_t i = 0; i < len; i++) /* commas are cosmetic */
    if (s[i] != ',')
      a[k++] = s[i];
  a[k] = '\0';
  struct buf first = {b, 0}, second = {a, 0};
  /* a -> b (parentheses), then b -> a (single characters) */
  if (!unroll(a, &first, true) || !unroll(b, &second, false)) {
    st = pl_diag_set(diag, PL_ERR_LAYOUT,
                     "pipeline layout '%s': expands past %d layers (check the counts)", s,
                     EXPANDED_MAX);
    goto done;
  }
  int64_t n = 0;
  struct pl_pipe_chunk cur = {0, 0, false, false};
  for (size_t i = 0;; i++) {
    char c = second.s[i];
    if (c == '|' || c == '\0') {
      if (n == max) {
        st = pl_diag_set(diag, PL_ERR_LAYOUT,
                         "pipeline layout '%s': more than %lld virtual stages", s, (long long)max);
        goto done;
      }
      out[n++] = cur;
      cur = (struct pl_pipe_chunk){0, 0, false, false};
      if (c == '\0')
        break;
      continue;
    }
    if (c == 'E' && !cur.embed && !cur.loss && cur.decoders == 0 && cur.mtp == 0) {
      cur.embed = true;
    } else if (c == 'L' && !cur.loss) {
      cur.loss = true;
    } else if ((c == 't' || c == 'm') && !cur.loss && !(c == 't' && cur.mtp > 0)) {
      *(c == 't' ? &cur.decoders : &cur.mtp) += 1;
    } else if (c == 'E' || c == 'L' || c == 't' || c == 'm') {
      st = pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': '%c' out of place (the embedding E comes first "
                       "and the loss L last, once each)",
                       s, c);
      goto done;
    } else {
      st = pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': invalid layer character '%c' (known: E, L, t, m, "
                       "'|', '(..)*n', 'x*n')",
                       s, c);
      goto done;
    }
  }
  *n_out = n;
done:
  free(a);
  free(b);
  return st;
}

/* The checks of validate_layer_layout and TransformerConfig.__post_init__
 * for a parsed layout of n virtual stages; sets l->vp. */
static enum pl_status check_chunks(struct pl_layout *l, const struct pl_model *m,
                                   const struct pl_pipe_chunk *ch, int64_t n,
                                   struct pl_diag *diag) {
  const char *s = l->pipeline_layout;
  int64_t pp = l->pp > 0 ? l->pp : 1;
  if (n % pp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': its %lld virtual stages are not divisible by pp = "
                       "%lld",
                       s, (long long)n, (long long)pp);
  int64_t vp = n / pp;
  if (l->vp > 0 && l->vp != vp)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': vp = %lld conflicts with its %lld virtual stages "
                       "per rank",
                       s, (long long)l->vp, (long long)vp);
  int64_t embeds = 0, losses = 0, t = 0, mtp = 0, mtp_stages = 0;
  bool seen_mtp = false;
  for (int64_t v = 0; v < n; v++) {
    embeds += ch[v].embed;
    losses += ch[v].loss;
    t += ch[v].decoders;
    mtp += ch[v].mtp;
    if (seen_mtp && ch[v].decoders > 0)
      return pl_diag_set(diag, PL_ERR_LAYOUT,
                         "pipeline layout '%s': transformer blocks (t) after the MTP modules (m)",
                         s);
    if (ch[v].mtp > 0) {
      seen_mtp = true;
      mtp_stages++;
      if (v / pp != vp - 1)
        return pl_diag_set(diag, PL_ERR_LAYOUT,
                           "pipeline layout '%s': MTP (m) must be in the last virtual stage of "
                           "its pipeline rank",
                           s);
    }
  }
  if (embeds != 1 || losses != 1 || !ch[0].embed || !ch[n - 1].loss)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': needs one embedding (E) first and one loss (L) "
                       "last",
                       s);
  if (t != m->layers)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': %lld transformer blocks (t), the model has %lld", s,
                       (long long)t, (long long)m->layers);
  if (mtp != l->mtp_layers)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': %lld MTP modules (m) but --mtp-layers %lld", s,
                       (long long)mtp, (long long)l->mtp_layers);
  if (mtp_stages > 1)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "pipeline layout '%s': all MTP modules (m) must be in one virtual stage", s);
  l->vp = vp;
  return PL_OK;
}

enum pl_status pl_layout_resolve_pipeline(struct pl_layout *l, const struct pl_model *m,
                                          struct pl_diag *diag) {
  if (l->mtp_layers < 0 || l->mtp_layers > PL_LAYOUT_MAX_MTP)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: mtp layers must be from 0 to %d",
                       PL_LAYOUT_MAX_MTP);
  if (l->pipeline_layout[0] == '\0')
    return PL_OK;
  if (l->first_stage_layers > 0 || l->last_stage_layers > 0 || l->account_embed_loss)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: a pipeline layout cannot be combined with first/last stage "
                       "layers or the embedding/loss pipeline accounting");
  struct pl_pipe_chunk *ch = malloc(PL_LAYOUT_MAX_CHUNKS * sizeof *ch);
  if (ch == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "pipeline layout: out of memory");
  int64_t n = 0;
  enum pl_status st =
      pl_pipeline_layout_parse(l->pipeline_layout, ch, PL_LAYOUT_MAX_CHUNKS, &n, diag);
  if (st == PL_OK)
    st = check_chunks(l, m, ch, n, diag);
  free(ch);
  return st;
}

bool pl_layout_chunk_from_string(const struct pl_layout *l, int64_t v, int64_t *blocks,
                                 int64_t *first) {
  if (l->pipeline_layout[0] == '\0')
    return false;
  struct pl_pipe_chunk *ch = malloc(PL_LAYOUT_MAX_CHUNKS * sizeof *ch);
  int64_t n = 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  *blocks = 0;
  if (first != NULL)
    *first = 0;
  if (ch == NULL ||
      pl_pipeline_layout_parse(l->pipeline_layout, ch, PL_LAYOUT_MAX_CHUNKS, &n, &d) != PL_OK) {
    free(ch);
    return true; /* resolved layouts parse; an unresolved one builds nothing */
  }
  int64_t f = 0;
  for (int64_t w = 0; w < v && w < n; w++)
    f += ch[w].decoders + ch[w].mtp;
  if (v < n)
    *blocks = ch[v].decoders + ch[v].mtp;
  if (first != NULL)
    *first = f;
  free(ch);
  return true;
}
