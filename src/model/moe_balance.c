/* moe_balance.c: the load of the busiest expert-parallel rank when the router
 * is forced to balance (the benchmarks' moe_router_force_load_balancing).
 *
 * Why: forced balance is not exact balance. Megatron-Core's TopKRouter
 * replaces the gating logits by apply_random_logits(logits) (core_v0.16.1
 * megatron/core/transformer/moe/router.py, TopKRouter.forward under
 * moe_router_force_load_balancing; moe_utils.py RandomSTE.forward:
 * logits.clone().normal_() under the expert-parallel RNG tracker, a seed per
 * rank), so every token's top_k experts are the top_k of i.i.d. normal draws:
 * a uniformly random k-subset of the E experts, independent across tokens.
 * The tokens a rank's experts receive in one MoE layer are then a sum of
 * independent hypergeometric counts, and every all_to_all of the layer (and
 * the expert GEMMs before the next one) waits for the busiest rank.
 *
 * Model (sampling statistics, no fitted constant):
 *  - one token puts X ~ Hypergeometric(E, L = E / ep, k) copies on a rank:
 *    mean k L / E, variance k (L/E) (1 - L/E) (E - k) / (E - 1)
 *    (the hypergeometric variance; Feller, An Introduction to Probability
 *    Theory, vol. 1, 3rd ed., Sec. IX.6);
 *  - the rank draws from T = ep x etp x tokens_n tokens (the tokens routed in
 *    its expert-parallel group, one micro-batch), mean load mu = T k / ep,
 *    variance T var(X), normal by the central limit theorem (T >= thousands);
 *  - the ep loads sum to T k exactly (each token sends k copies), so they are
 *    exchangeable with correlation -1/(ep - 1): the load minus the group
 *    mean of ep i.i.d. normals of variance sigma^2 ep / (ep - 1), whose
 *    expected largest is sigma sqrt(ep / (ep - 1)) E[max of ep standard
 *    normals] (pl_normal_expected_max, hw/variability.c);
 *  - factor = 1 + that / mu.
 * Qwen3-30B-A3B (E 128, k 8) at ep 16, 4,096 tokens per rank: 1.0095; at
 * ep 8, 32,768 tokens: 1.0027 (docs/model.md "Mixture of experts").
 * Not modelled: group-limited routing (DeepSeek-V3's n_group / topk_group),
 * which concentrates a token's experts in fewer groups and widens the spread
 * (the model files carry no group fields). */
#include <plateau/flops.h>
#include <plateau/hw.h>

#include <math.h>

double pl_moe_random_imbalance(int64_t experts, int64_t top_k, int64_t ep, double tokens) {
  if (ep <= 1 || experts <= 1 || top_k <= 0 || top_k >= experts || !(tokens >= 1.0))
    return 1.0;
  double e = (double)experts, k = (double)top_k, p = 1.0 / (double)ep;
  double var_token = k * p * (1.0 - p) * (e - k) / (e - 1.0);
  double group = (double)ep * tokens, mean = tokens * k;
  double sigma = sqrt(group * var_token);
  double spread = sqrt((double)ep / (double)(ep - 1)) * pl_normal_expected_max(ep);
  return 1.0 + spread * sigma / mean;
}
