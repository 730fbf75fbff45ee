/* layout_int.h (internal to src/model): what layout.c calls in the files of
 * the layout's parts (layout_stages.c). */
#ifndef PL_LAYOUT_INT_H
#define PL_LAYOUT_INT_H

#include <plateau/layout.h>

/* --first-stage-layers / --last-stage-layers checked against the model and
 * pp/vp (layout_stages.c). */
enum pl_status model_layout_resolve_uneven(struct pl_layout *l, const struct pl_model *m,
                                           struct pl_diag *diag);

#endif
