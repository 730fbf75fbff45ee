/* layout_stages.c: the blocks each pipeline stage and each virtual chunk
 * holds, evenly or under Megatron-Core's uneven split (--first-stage-layers /
 * --last-stage-layers), and the checks of that split (called by
 * pl_layout_resolve in layout.c). */
#include <plateau/layout.h>

#include "model/layout_int.h"
#include "model/model_int.h"

bool pl_layout_uneven_stages(const struct pl_layout *l) {
  return l->first_stage_layers > 0 || l->last_stage_layers > 0;
}

/* Blocks per stage under Megatron-Core's uneven split: the given first and
 * last stages, and the rest over the other stages (get_num_layers_to_build). */
static int64_t uneven_rank_layers(const struct pl_layout *l, int64_t layers, int64_t s) {
  int64_t pp = l->pp > 0 ? l->pp : 1, left = pp, rest = layers;
  if (l->first_stage_layers > 0) {
    if (s == 0)
      return l->first_stage_layers;
    rest -= l->first_stage_layers;
    left--;
  }
  if (l->last_stage_layers > 0) {
    if (s == pp - 1)
      return l->last_stage_layers;
    rest -= l->last_stage_layers;
    left--;
  }
  return left > 0 ? rest / left : 0;
}

int64_t pl_layout_stage_layers(const struct pl_layout *l, int64_t layers, int64_t s) {
  int64_t pp = l->pp > 0 ? l->pp : 1, vp = l->vp > 0 ? l->vp : 1;
  if (l->pipeline_layout[0] != '\0') {
    int64_t n = 0, k = 0;
    for (int64_t c = 0; c < vp; c++) {
      pl_layout_chunk_from_string(l, c * pp + s, &k, NULL);
      n += k;
    }
    return n;
  }
  /* the MTP modules are blocks of the last stage (Megatron-Core
   * multi_token_prediction.py mtp_on_this_rank without a layout) */
  int64_t mtp = s == pp - 1 ? l->mtp_layers * deg(l->mtp_module_blocks) : 0;
  if (pl_layout_uneven_stages(l))
    return uneven_rank_layers(l, layers, s) + mtp;
  return layers / pp + (s < layers % pp ? 1 : 0) + mtp;
}

static int64_t split_chunk_layers(const struct pl_layout *l, int64_t layers, int64_t v,
                                  int64_t *first) {
  int64_t pp = l->pp > 0 ? l->pp : 1, vp = l->vp > 0 ? l->vp : 1, V = pp * vp;
  if (!pl_layout_uneven_stages(l) && l->account_embed_loss) {
    /* the embedding and the loss count as one block each, taken from the
     * first and the last chunk (transformer_layer.py get_transformer_layer_offset) */
    int64_t total = layers + 2, f = 0, n = 0;
    for (int64_t c = 0; c <= v && c < V; c++) {
      f += n;
      n = total / V + (c < total % V ? 1 : 0) - (c == 0 ? 1 : 0) - (c == V - 1 ? 1 : 0);
      if (n < 0)
        n = 0;
    }
    if (first != NULL)
      *first = f;
    return n;
  }
  if (!pl_layout_uneven_stages(l)) {
    int64_t r = layers % V;
    if (first != NULL)
      *first = v * (layers / V) + (v < r ? v : r);
    return layers / V + (v < r ? 1 : 0);
  }
  int64_t start = 0;
  for (int64_t w = 0; w < v; w++)
    start += uneven_rank_layers(l, layers, w % pp) / vp;
  if (first != NULL)
    *first = start;
  return uneven_rank_layers(l, layers, v % pp) / vp;
}

int64_t pl_layout_chunk_layers(const struct pl_layout *l, int64_t layers, int64_t v,
                               int64_t *first) {
  int64_t pp = l->pp > 0 ? l->pp : 1, vp = l->vp > 0 ? l->vp : 1, n = 0;
  if (pl_layout_chunk_from_string(l, v, &n, first))
    return n;
  /* the MTP modules follow the last chunk's blocks (mtp_on_this_rank) */
  return split_chunk_layers(l, layers, v, first) +
         (v == pp * vp - 1 ? l->mtp_layers * deg(l->mtp_module_blocks) : 0);
}

/* --first-stage-layers / --last-stage-layers: Megatron-Core's checks
 * (transformer_block.py get_num_layers_to_build; arguments.py): the stages
 * left over split the remaining blocks evenly, each stage's blocks divide
 * into its vp chunks, and every stage holds at least one block. */
enum pl_status model_layout_resolve_uneven(struct pl_layout *l, const struct pl_model *m,
                                           struct pl_diag *diag) {
  if (l->first_stage_layers < 0 || l->last_stage_layers < 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: stage layers must be positive");
  if (!pl_layout_uneven_stages(l))
    return PL_OK;
  if (l->account_embed_loss) /* Megatron-Core arguments.py forbids both as well */
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: first/last stage layers and the embedding/loss pipeline "
                       "accounting cannot be combined");
  if (l->pp < 2)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --first-stage-layers/--last-stage-layers need pp >= 2");
  int64_t given = l->first_stage_layers + l->last_stage_layers;
  int64_t left = l->pp - (l->first_stage_layers > 0) - (l->last_stage_layers > 0);
  int64_t rest = m->layers - given;
  if (rest < left || (left == 0 && rest != 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: first/last stage layers (%lld + %lld) leave %lld of %lld blocks "
                       "for the other %lld stages",
                       (long long)l->first_stage_layers, (long long)l->last_stage_layers,
                       (long long)rest, (long long)m->layers, (long long)left);
  if (left > 0 && rest % left != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: the %lld blocks left are not divisible by the other %lld stages",
                       (long long)rest, (long long)left);
  for (int64_t s = 0; s < l->pp; s++) {
    int64_t n = uneven_rank_layers(l, m->layers, s);
    if (n % l->vp != 0)
      return pl_diag_set(diag, PL_ERR_LAYOUT,
                         "layout: stage %lld's %lld blocks are not divisible by vp = %lld",
                         (long long)s, (long long)n, (long long)l->vp);
  }
  return PL_OK;
}
