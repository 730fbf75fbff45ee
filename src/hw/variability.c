/* variability.c: GPUs of one SKU that do not run at one clock, and a
 * synchronous step that waits for the slowest of them (opt-in what-if,
 * --gpu-variability; docs/hardware.md "GPU variability").
 *
 * Why: every rank of a data-parallel step meets the others at the gradient
 * collectives (and tensor/pipeline ranks at theirs), so the step ends when
 * the slowest rank's compute ends. Same-SKU GPUs differ in the sustained
 * clock their power management holds (manufacturing variation under the
 * power limit; Sinha et al., "Not All GPUs Are Created Equal", SC22,
 * arXiv 2208.11035: V100 / RTX 5000 / MI60 clusters, SGEMM, ResNet, BERT).
 * A persistent per-chip difference slows the whole compute of the slowest
 * chip, so it is applied where the power cap is, to the clock
 * (pl_gpu_clock_fraction: tensor-core math; HBM-bound work kept).
 *
 * Model: per-GPU sustained clock ~ Normal(mean, (cv x mean)^2), independent;
 * the run's GPUs are n draws and the expected slowest is
 *   mean x (1 - cv x E[max of n standard normals]).
 * The distribution's shape (normal) is the model's; cv is the user's
 * (--gpu-variability) or the GPU file's measured efficiency.clock_spread
 * (b200: the slowest of 8 B200 under full-node load against the median GPU,
 * stas00/ml-engineering mamf-finder-all-gpus.py, session 22; gb200 the same
 * die). Files without a measurement carry none and stay off (session 17,
 * helper var17, found no fleet distribution for A100/H100).
 *
 * E[max of n] = integral x n phi(x) Phi(x)^(n-1) dx (the density of the
 * largest of n draws; David & Nagaraja, Order Statistics, 3rd ed., Sec. 2.1),
 * by the trapezoid rule on [-10, 10], h = 1e-3: phi and the integrand are
 * below 1e-20 past |x| = 10 for n up to 1e6, and the rule is exact to ~1e-9
 * on these smooth integrands (n = 2: 1/sqrt(pi), n = 3: 3/(2 sqrt(pi))). */
#include <plateau/hw.h>

#include <math.h>

/* The integral below costs 20,001 erfc/exp/log evaluations and is a pure
 * function of n; every MoE prediction asks for it (moe_balance.c, n = ep), 29 %
 * of the instructions of `plateau search --model deepseek-v3 --gpus 256 --gpu
 * h100 --threads 1` (callgrind, session 29). Its answers are kept per thread for
 * the few n a run uses (as compute.c keeps the attention makespans): same value. */
#define EXPECTED_MAX_MEMO 16

static double expected_max_integral(int64_t n);

double pl_normal_expected_max(int64_t n) {
  if (n <= 1)
    return 0.0;
  static _Thread_local struct {
    int64_t n;
    double v;
  } memo[EXPECTED_MAX_MEMO];
  static _Thread_local int next;
  for (int i = 0; i < EXPECTED_MAX_MEMO; i++)
    if (memo[i].n == n)
      return memo[i].v;
  double v = expected_max_integral(n);
  memo[next].n = n;
  memo[next].v = v;
  next = (next + 1) % EXPECTED_MAX_MEMO;
  return v;
}

static double expected_max_integral(int64_t n) {
  const double lo = -10.0, hi = 10.0, h = 1e-3;
  const double inv_sqrt_2pi = 0.39894228040143267794;
  double sum = 0.0;
  long steps = (long)((hi - lo) / h + 0.5);
  for (long i = 0; i <= steps; i++) {
    double x = lo + h * (double)i;
    double cdf = 0.5 * erfc(-x / sqrt(2.0));
    if (!(cdf > 0))
      continue;
    double pdf = inv_sqrt_2pi * exp(-0.5 * x * x);
    double f = x * (double)n * pdf * exp((double)(n - 1) * log(cdf));
    sum += (i == 0 || i == steps) ? 0.5 * f : f;
  }
  return sum * h;
}

enum pl_status pl_gpu_set_variability(struct pl_gpu *g, double cv, struct pl_diag *diag) {
  if (!(cv >= 0 && cv <= PL_GPU_CLOCK_CV_MAX))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "clock spread %g for gpu '%s': expected 0 (off) to %g (standard deviation "
                       "over mean of the GPUs' sustained clocks)",
                       cv, g->name, PL_GPU_CLOCK_CV_MAX);
  g->clock_cv = cv;
  g->clock_slowest_fraction = 0;
  return PL_OK;
}

void pl_gpu_variability_resolve(struct pl_gpu *g, int64_t gpus) {
  if (!(g->clock_cv > 0)) {
    g->clock_slowest_fraction = 0;
    return;
  }
  /* positive: cv <= 0.1 and E[max] < 6 for any int64 GPU count */
  g->clock_slowest_fraction = 1.0 - g->clock_cv * pl_normal_expected_max(gpus);
}
