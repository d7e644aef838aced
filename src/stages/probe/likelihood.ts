/**
 * Min-K% Prob (Shi et al., arXiv 2310.16789) and Min-K%++ (Zhang et al., arXiv 2404.02936) of one text from its
 * tokens' log-probabilities. Both average the lowest k % of per-token scores; a text the model has seen has
 * few surprising tokens, so a higher score (closer to 0 for Min-K%) points to memorisation.
 *   Min-K%:   score_t = log p(x_t | x_<t)
 *   Min-K%++: score_t = (log p(x_t | x_<t) − μ_t) / σ_t, with μ_t and σ_t the mean and standard deviation of
 *             log p(z | x_<t) for z drawn from the model's next-token distribution p(· | x_<t).
 * `distribution` is the whole vocabulary's log-probabilities (exact) or the server's top-n (then renormalised
 * over those n: an approximation, recorded as `exact: false`).
 */
import type { LikelihoodScore } from './types';

export interface TokenLogprob {
  /** log p(x_t | x_<t) of the text's own token. */
  logprob: number;
  /** log-probabilities of the candidates at this position (whole vocabulary or top-n); empty: Min-K%++ leaves it out. */
  distribution: ArrayLike<number>;
}

/** μ and σ of log p(z) under p itself (renormalised over the given candidates). */
export function logprobMoments(distribution: ArrayLike<number>): { mu: number; sigma: number } | null {
  let max = -Infinity;
  for (let i = 0; i < distribution.length; i++) max = Math.max(max, distribution[i]);
  if (!Number.isFinite(max)) return null;
  let z = 0;
  for (let i = 0; i < distribution.length; i++) z += Math.exp(distribution[i] - max);
  const logZ = max + Math.log(z);
  let mu = 0,
    m2 = 0;
  for (let i = 0; i < distribution.length; i++) {
    const lp = distribution[i] - logZ;
    const p = Math.exp(lp);
    mu += p * lp;
    m2 += p * lp * lp;
  }
  return { mu, sigma: Math.sqrt(Math.max(0, m2 - mu * mu)) };
}

/** The mean of the lowest ⌈k·n⌉ values (at least one); null for no values. */
export function meanOfLowest(values: readonly number[], k: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const n = Math.max(1, Math.ceil(k * sorted.length));
  return sorted.slice(0, n).reduce((s, v) => s + v, 0) / n;
}

/** Both scores of one text; null when it has no scored token. A position whose distribution has σ = 0 adds to Min-K% only. */
export function likelihoodScore(tokens: readonly TokenLogprob[], k: number, exact: boolean): LikelihoodScore | null {
  const minK = meanOfLowest(
    tokens.map((t) => t.logprob),
    k,
  );
  if (minK === null) return null;
  const zs: number[] = [];
  for (const t of tokens) {
    const m = logprobMoments(t.distribution);
    if (m && m.sigma > 1e-9) zs.push((t.logprob - m.mu) / m.sigma);
  }
  return { min_k: minK, min_k_pp: meanOfLowest(zs, k) ?? 0, tokens: tokens.length, exact };
}
