/* band.h: how far off a prediction may be. Every predicted step time,
 * throughput and MFU carries the error band of its class of run, learned from
 * `plateau validate`'s residuals on the published runs of that class
 * (docs/accuracy.md, "Error band").
 *
 * The band is data, not code: data/accuracy/error-bands.json, written by
 * scripts/gen-error-bands.py from `plateau validate --format json` over every
 * CSV of data/validation/, and embedded into the library. For each class it holds the
 * ratio r = measured / predicted step time of the class's published runs,
 * trimmed: the lowest and highest trim_pct % of the ratios are dropped and the
 * band spans the rest, so at least 100 - 2 trim_pct % of the class's runs
 * (90 % with trim_pct 5) lie inside it when it is generated;
 * tests/unit/test_band.c checks that at least 80 % still do with the current
 * model, class by class.
 *
 * Classes, finest first (pl_band_keys); a run takes the first one the file
 * holds (the file holds only classes with at least min_rows runs):
 *   "GPU FRAMEWORK SCALE"  e.g. "h100 nemo multi-node"
 *   "GPU SCALE"            e.g. "h100 multi-node"
 *   "GPU"                  e.g. "h100"
 *   "all"
 * GPU is the GPU preset's name, FRAMEWORK the framework preset's (validate:
 * the framework each source's runs used), SCALE "single-node" when the run's
 * GPUs fit in one node, else "multi-node". A run with no framework named skips
 * the first level. Ownership: plain values. */
#ifndef PLATEAU_BAND_H
#define PLATEAU_BAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "predict.h"
#include "status.h"

#define PL_BAND_LEVELS 4
#define PL_BAND_KEY_LEN 112
#define PL_BAND_MAX_CLASSES 128

struct pl_band {
  bool known;                      /* a class was found (false: no band; outputs print null) */
  char class_name[PL_BAND_KEY_LEN];
  int64_t rows;                    /* published runs behind it */
  double ratio_lo;                 /* measured / predicted step time: lower end */
  double ratio_hi;                 /* upper end */
  double central_pct;              /* 100 - 2 trim_pct: the share of the runs it was cut to hold */
};

struct pl_band_table {
  double trim_pct;                 /* ratios dropped at each end, percent */
  int64_t min_rows;                /* classes with fewer runs are not in the file */
  struct pl_band classes[PL_BAND_MAX_CLASSES];
  size_t n;
};

/* The class keys of a run, finest first; returns how many (3 or 4: no
 * framework-level key when framework is NULL or ""). */
int pl_band_keys(const char *gpu, const char *framework, int64_t nodes,
                 char keys[PL_BAND_LEVELS][PL_BAND_KEY_LEN]);

/* Parse a band file (the layout scripts/gen-error-bands.py writes). */
enum pl_status pl_band_table_parse(const char *text, size_t len, const char *origin,
                                   struct pl_band_table *out, struct pl_diag *diag);
/* The embedded data/accuracy/error-bands.json. */
enum pl_status pl_band_table_builtin(struct pl_band_table *out, struct pl_diag *diag);

/* The band of a run (first class of pl_band_keys the table holds); NULL when none. */
const struct pl_band *pl_band_table_find(const struct pl_band_table *t, const char *gpu,
                                         const char *framework, int64_t nodes);

/* The band of a prediction, from the embedded table: out->known false when the
 * prediction has no simulated step or no class applies. */
void pl_band_of(const struct pl_prediction *p, struct pl_band *out);

/* The band applied to a simulated step: step time scales with the ratio,
 * throughput and MFU with its inverse. No end goes past HFU 100 %: the step
 * time's lower end is at least step * hfu (every hardware FLOP, recompute
 * included, at the GPU's peak), and throughput and MFU are capped there. */
struct pl_band_ranges {
  double step_time_s[2];
  double tokens_per_s[2];
  double mfu[2];
};
void pl_band_ranges(const struct pl_band *b, const struct pl_step *s, struct pl_band_ranges *out);

#endif
