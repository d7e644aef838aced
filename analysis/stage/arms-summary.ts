import path from 'node:path';
import type { ArmsAnalysis } from '../study/arms';
import type { ArmsSummary } from './result';

/** The arms at a glance, from the arms analysis (pooled over datasets). */
export function armsSummary(resultsDir: string, a: ArmsAnalysis): ArmsSummary {
  return {
    file: path.join(resultsDir, 'study', 'arms.json'),
    baseline: a.baseline,
    skipped: a.skipped.length,
    arms: a.arms.map((r) => ({
      name: r.name,
      upper_bound: r.upper_bound,
      lines: r.lines,
      cer: r.cer,
      cer_ci: r.cer_ci,
      raw_cer: r.raw_cer,
      delta_cer: r.vs_baseline?.delta_cer ?? null,
      ci: r.vs_baseline?.ci ?? null,
      p_holm: r.vs_baseline?.p_holm ?? null,
      guard_fell_back: r.guard?.fell_back ?? null,
      replicates: r.replicates?.n ?? 1,
      cer_sd: r.replicates?.cer_sd ?? null,
      usage: {
        records: r.usage.records,
        prompt_tokens: r.usage.prompt_tokens,
        completion_tokens: r.usage.completion_tokens,
        latency_ms: r.usage.latency_ms,
        cost: r.usage.cost,
      },
    })),
  };
}
