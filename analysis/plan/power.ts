/**
 * Power before the run (docs/plan.md#power): the smallest |ΔCER| each planned contrast detects with 80 % power
 * at the planned line count, from the analysis's own paired block bootstrap (./block-stats.ts) on measured
 * lines, and the lines needed for a target effect.
 *
 * What is measured: a pilot's corrections of the contrast's two arms when both exist, else the OCR baseline —
 * the paired difference between the OCR and its full correction, whose SE is the block-bootstrap SE of the OCR
 * CER (a correction as variable as the errors it corrects: an upper bound for corrections that only remove
 * errors). Each dataset is one stratum: its SE is measured on its lines and scaled to the planned lines by
 * √(measured / planned); the pooled SE is √Σ wₖ² SEₖ², wₖ the dataset's share of the planned gold characters
 * (the pooled ΔCER is that weighted mean of the datasets' ΔCER).
 *
 * Holm over a family of m tests rejects the smallest p first at α/m, so a finding that must survive the
 * family needs MDE = (z₁₋α/(2m) + z₀.₈₀) · SE; with m = 1 that is the analysis's 2.80 · SE (MDE_FACTOR).
 */
import { pairedBlockDelta } from '../stats/block-stats';
import { clusterIds, type ClusterSpec } from '../stats/clusters';
import { normalCdf } from '../stats/paired';

const Z_POWER = 0.8416212335729143;

/** Per-line edits of one dataset's measured lines: gold characters, edits of `vs` and of `arm`. */
export interface MeasuredLines {
  sampleIds: string[];
  ref: Float64Array;
  vs: Float64Array;
  arm: Float64Array;
}

export interface PowerInput {
  /** Per dataset: the measured lines and the planned line count. */
  datasets: Record<string, { measured: MeasuredLines; plannedLines: number }>;
  clusters: ClusterSpec;
  iterations: number;
  seed: number;
}

export interface PlannedPower {
  /** Pooled SE of ΔCER at the planned lines. */
  se: number | null;
  /** Per dataset: SE at the planned lines. */
  datasets: Record<string, number | null>;
}

/** z with Φ(z) = p, by bisection on the analysis's normal CDF (p in (0, 1)). */
export function normalQuantile(p: number): number {
  let lo = -40,
    hi = 40;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** (z₁₋α/(2m) + z₀.₈₀): the MDE in SEs for two-sided α with a Holm family of `m` tests (m ≥ 1). */
export function mdeFactor(alpha: number, m: number): number {
  return normalQuantile(1 - alpha / (2 * Math.max(1, m))) + Z_POWER;
}

/** SE of the pooled ΔCER at the planned lines, from the block bootstrap of each dataset's measured lines. */
export function plannedPower(input: PowerInput): PlannedPower {
  const perDataset: Record<string, number | null> = {};
  const parts: { se: number; weight: number }[] = [];
  let ok = true;
  for (const [dataset, { measured: m, plannedLines }] of Object.entries(input.datasets)) {
    const n = m.sampleIds.length;
    if (n === 0 || plannedLines === 0) {
      perDataset[dataset] = null;
      if (plannedLines > 0) ok = false;
      continue;
    }
    const { ids, count } = clusterIds(m.sampleIds, input.clusters, dataset);
    const design = { block: ids, stratumOfBlock: new Int32Array(count) };
    const r = pairedBlockDelta(m.ref, m.vs, m.arm, design, { iterations: input.iterations, permutations: 0, seed: input.seed });
    const se = r.pooled.se === null ? null : r.pooled.se * Math.sqrt(n / plannedLines);
    perDataset[dataset] = se;
    if (se === null) ok = false;
    else parts.push({ se, weight: (m.ref.reduce((x, y) => x + y, 0) / n) * plannedLines });
  }
  const total = parts.reduce((x, p) => x + p.weight, 0);
  const se = ok && total > 0 ? Math.sqrt(parts.reduce((x, p) => x + (p.weight / total) ** 2 * p.se ** 2, 0)) : null;
  return { se, datasets: perDataset };
}

/** Lines per dataset for a target MDE: the planned lines scaled by (mde / target)², since SE ∝ 1/√lines. */
export function linesNeeded(plannedLines: Record<string, number>, mde: number, target: number): Record<string, number> {
  const f = (mde / target) ** 2;
  return Object.fromEntries(Object.entries(plannedLines).map(([d, n]) => [d, Math.ceil(n * f)]));
}
