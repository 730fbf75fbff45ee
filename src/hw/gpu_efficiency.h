/* gpu_efficiency.h (internal to src/hw): read the "efficiency" object of a
 * GPU file into struct pl_gpu_efficiency (the step model's per-GPU numbers).
 * Ownership: fills caller-owned values; the tree stays the caller's. */
#ifndef PL_HW_GPU_EFFICIENCY_H
#define PL_HW_GPU_EFFICIENCY_H

#include <plateau/hw.h>

#include "base/json.h"

/* root is the GPU document. An absent "efficiency" object leaves
 * out->eff.present false and returns PL_OK (the GPU can still be used for
 * collectives and memory; pl_predict then reports the missing data). */
enum pl_status hw_gpu_efficiency_load(yajl_val root, const char *origin, struct pl_gpu *out,
                                      struct pl_diag *diag);

#endif
