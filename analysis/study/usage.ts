/**
 * What an arm cost to run (arms.json `usage`, docs/outputs.md#tokens-latency-and-cost): over every record of
 * every replicate, the prompt and completion tokens the server reported, the latency of the answers (mean, median,
 * 95th percentile of `latency_ms`), and — when `infer.price` gives the price per 1M input and output tokens — the
 * cost, (prompt tokens × input + completion tokens × output) / 1,000,000, in the price's currency.
 */
import type { CorrectionRecord } from '../../src/llm/records';
import type { LoadedArm } from '../inputs/arm-inputs';
import { quantileSorted } from '../stats/bootstrap';
import { round } from '../format';

/** `infer.price`: per 1M tokens, one currency for both. */
export interface TokenPrice {
  input: number;
  output: number;
}

export interface ArmUsage {
  /** Records over every replicate (replicates × lines). */
  records: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Records without token counts (the server reported no `usage`): the token sums leave them out. */
  without_tokens: number;
  /** Of the records with a latency (ms). */
  latency_ms: { mean: number | null; median: number | null; p95: number | null };
  price: TokenPrice | null;
  /** In the price's currency; null without a price. */
  cost: number | null;
  /** The share of the arm's prompts a server's prefix cache could reuse (arm.json `prompt_prefix`); null: not measured. */
  prompt_prefix_share: number | null;
}

function* records(arm: LoadedArm): Generator<CorrectionRecord> {
  for (const byDataset of [arm.byDataset, ...arm.replicates.map((r) => r.byDataset)])
    for (const lines of byDataset.values()) for (const l of lines) yield l.record;
}

export function armUsage(arm: LoadedArm, price: TokenPrice | null): ArmUsage {
  let n = 0,
    prompt = 0,
    completion = 0,
    without = 0;
  const latencies: number[] = [];
  for (const r of records(arm)) {
    n++;
    if (r.prompt_tokens == null && r.completion_tokens == null) without++;
    prompt += r.prompt_tokens ?? 0;
    completion += r.completion_tokens ?? 0;
    if (r.latency_ms != null) latencies.push(r.latency_ms);
  }
  const sorted = Float64Array.from(latencies).sort();
  const ms = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  return {
    records: n,
    prompt_tokens: prompt,
    completion_tokens: completion,
    without_tokens: without,
    latency_ms: {
      mean: ms(sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null),
      median: ms(sorted.length ? quantileSorted(sorted, 0.5) : null),
      p95: ms(sorted.length ? quantileSorted(sorted, 0.95) : null),
    },
    price,
    cost: price ? round((prompt * price.input + completion * price.output) / 1e6) : null,
    prompt_prefix_share: arm.info.prompt_prefix_share,
  };
}
