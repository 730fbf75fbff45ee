/* reader_shape.c: the size of a collective from PyTorch's ProcessGroup
 * annotation "nccl:<op>" (docs/trace.md 3.4).
 *
 * Traces of PyTorch before the record_param_comms op named its collective
 * ("Collective name", "In msg nelems": PyTorch 2.1+) still carry the size:
 * ProcessGroupNCCL's collectives pass a profiling title ("nccl:all_reduce",
 * "nccl:all_to_all", "nccl:_reduce_scatter_base", ...) and their input
 * tensors to the Work's RecordFunction (USER_SCOPE, so a user_annotation),
 * "Passing input tensor to recordFunction allows for shape information in
 * profiling output" (pytorch torch/csrc/distributed/c10d/ProcessGroup.cpp
 * ProcessGroup::Work::Work, v1.13-v2.0). With record_shapes=True the
 * annotation's "Input Dims" holds the input's shape ([[394241]]) and
 * "Input type" its dtype (["float"]). Only the first input is read: the
 * elements are the product of its dims, the element size its type's.
 *
 * reader.c calls these only inside the args of an event; the arrays are read
 * only for an event already named "nccl:...", two levels deep at most. */
#include <stdint.h>
#include <string.h>

#include "reader_int.h"

bool trace_rd_is_title(const struct event *e) {
  return e->cat == CAT_CPU && e->has_name && e->name_len > 5 && memcmp(e->name, "nccl:", 5) == 0;
}

/* An array value at the args level: read it if it is one of the two. */
void trace_rd_shape_open(struct reader *r) {
  struct event *e = &r->e;
  if ((r->akey != AK_IN_DIMS && r->akey != AK_IN_TYPE) || e->drop || !trace_rd_is_title(e) ||
      r->skip_above != r->ev + 2)
    return;
  e->shape_arr = (uint8_t)r->akey;
  if (r->akey == AK_IN_DIMS && e->dims_state == 0)
    e->dims_state = 1;
  r->skip_above = r->ev + 4; /* the list's items and the first tensor's dims */
}

/* A value inside the array: level 3 is an item of the list, level 4 a dim. */
int trace_rd_shape_value(struct reader *r, enum vtype t, const char *s, size_t n, int level) {
  struct event *e = &r->e;
  if (e->shape_arr == AK_IN_TYPE) {
    if (level == 3 && !e->type_seen) {
      e->type_bytes = t == V_STR ? trace_dtype_bytes(s, n) : 0;
      e->type_seen = true;
    }
    return 1;
  }
  if (level == 3 && e->dims_state == 1) {
    if (t == V_ARR) {
      e->dims_state = 2;
      e->dims_prod = 1;
    } else {
      e->dims_state = 3; /* the first input is no tensor */
      e->dims_prod = -1;
    }
  } else if (level == 4 && e->dims_state == 2 && e->dims_prod >= 0) {
    int64_t v;
    if (t != V_NUM || !trace_text_i64(s, n, &v) || v < 0 || (v > 0 && e->dims_prod > INT64_MAX / v))
      e->dims_prod = -1;
    else
      e->dims_prod *= v;
  }
  return 1;
}

/* A container closed inside the args (r->depth is the depth after it). */
void trace_rd_shape_close(struct reader *r) {
  struct event *e = &r->e;
  if (e->shape_arr == 0)
    return;
  if (r->depth == r->ev + 3 && e->dims_state == 2)
    e->dims_state = 3;
  else if (r->depth == r->ev + 2) {
    e->shape_arr = 0;
    r->skip_above = r->ev + 2;
  }
}
