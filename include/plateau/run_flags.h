/* run_flags.h: the framework behaviours, the hardware edits and the layout
 * of a run as `plateau predict` flags, in one table each.
 *
 * The CLI reads a run's flags through these tables (src/cli/run_opts.c), and
 * validate writes a row's run back as the same flags (its `command`, the
 * predict line that reproduces the row: src/validate/command.c), so a
 * behaviour added to the table is both parsed and printed. The CLI's option
 * table (src/cli/run_opts.h RUN_OPTS) holds each flag's help; the CLI refuses
 * to run when a flag named here is missing from it.
 * Ownership: plain values owned by the caller; out buffers are the caller's. */
#ifndef PLATEAU_RUN_FLAGS_H
#define PLATEAU_RUN_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "framework.h"
#include "hw.h"
#include "layout.h"
#include "status.h"

/* The value given for flag `name` (without "--"), or NULL when absent. */
typedef const char *(*pl_flag_get_fn)(void *ctx, const char *name);

/* ----------------------------------------------------------- framework */

/* The i-th framework flag's name ("kernels", "step-sync-all-reduces"), NULL
 * past the end. "framework" (the preset, read first) is the 0th. */
const char *pl_framework_flag_name(size_t i);

/* Read every framework flag from get onto *fw: --framework loads the preset
 * (replacing *fw), then each behaviour flag given overrides it. On a bad
 * value: PL_ERR_PARSE / PL_ERR_RANGE with diag "--flag: why" (one line). */
enum pl_status pl_framework_flags_read(struct pl_framework *fw, pl_flag_get_fn get, void *ctx,
                                       struct pl_diag *diag);

/* Write a resolved framework (pl_framework_resolved: every behaviour set) as
 * flags, " --framework NAME --attention A --kernels fused ...", into out (n
 * bytes, always terminated when n > 0). Numbers are written so that reading
 * them back gives the same double. Returns the length the whole text needs
 * (as snprintf). */
size_t pl_framework_flags_format(const struct pl_framework *fw, char *out, size_t n);

/* ------------------------------------------------------------ hardware */

/* The i-th hardware flag's name ("power-cap", "hbm", "gpus-per-node"), NULL
 * past the end. */
const char *pl_cluster_flag_name(size_t i);

/* Apply the hardware flags given onto a loaded cluster (its GPU already the
 * run's): board power cap, HBM size and bandwidth, NIC bandwidth, IB SHARP,
 * GPUs per node (the NVLink domain; NICs per GPU kept), NCCL release. Errors
 * as pl_framework_flags_read. */
enum pl_status pl_cluster_flags_read(struct pl_cluster *c, pl_flag_get_fn get, void *ctx,
                                     struct pl_diag *diag);

/* Write as flags what c changes against base (the same cluster and GPU as
 * loaded from their presets), " --power-cap '450 W' --hbm '...'", into out;
 * returns the length needed (as snprintf). */
size_t pl_cluster_flags_format(const struct pl_cluster *c, const struct pl_cluster *base,
                               char *out, size_t n);

/* -------------------------------------------------------------- layout */

/* The i-th layout flag's name ("tp", "pipeline-layout", "recompute-modules"),
 * NULL past the end: predict's parallel degrees, batch, pipeline split,
 * recomputation, offload, CUDA-graph scope, dtype and MoE options. */
const char *pl_layout_flag_name(size_t i);

/* Read every layout flag given onto *l (each overrides only what it names;
 * the layout stays unresolved: pl_predict resolves it). --recompute-modules
 * without --recompute makes recompute selective. Errors as
 * pl_framework_flags_read ("--tp: ...", "give --gpus or --nodes, not both"). */
enum pl_status pl_layout_flags_read(struct pl_layout *l, pl_flag_get_fn get, void *ctx,
                                    struct pl_diag *diag);

/* Write a resolved layout (as pl_predict resolved it) as flags, " --gpus 64
 * --tp 8 ... --dtype bf16 --schedule 1f1b --recompute selective ...", the
 * degrees, batch, shard, dtype, schedule and recompute always, the others
 * when set; the MoE flags when moe (the model has experts). Into out as
 * pl_framework_flags_format; returns the length needed (as snprintf). */
size_t pl_layout_flags_format(const struct pl_layout *l, bool moe, char *out, size_t n);

#endif
