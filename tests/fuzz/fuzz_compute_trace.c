/* fuzz_compute_trace.c: the compute-calibration trace reader from memory
 * (pl_compute_obs_parse), then the fit on h100 (pl_calib_compute) and each
 * observation's predicted time with the fitted GPU, as `calibrate compute`
 * runs them. Aborts when an observation or a prediction is not finite. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <plateau/plateau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct pl_gpu h100;
  static int loaded = -1;
  if (loaded < 0)
    loaded = pl_gpu_load("h100", &h100, NULL) == PL_OK;
  struct pl_compute_trace *t = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_compute_obs_parse((const char *)data, size, "fuzz", &t, &d) != PL_OK)
    return 0;
  for (size_t i = 0; i < t->n_obs; i++)
    if (!(t->obs[i].time_s > 0) || !isfinite(t->obs[i].time_s) || !isfinite(t->obs[i].flops) ||
        !isfinite(t->obs[i].bytes))
      abort();
  struct pl_gpu fitted;
  struct pl_compute_fit fit;
  if (loaded && pl_calib_compute(&h100, t->obs, t->n_obs, &fitted, &fit, &d) == PL_OK)
    for (size_t i = 0; i < t->n_obs; i++)
      if (!isfinite(pl_compute_obs_time_s(&fitted, &t->obs[i])))
        abort();
  pl_compute_trace_free(t);
  return 0;
}
