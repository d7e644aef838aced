/**
 * Paired comparisons of arms on the study's line set (analysis/study/alignment.ts): ΔCER with its block-bootstrap
 * interval, standard error and minimum detectable effect, the block-permutation p of that same ΔCER (primary),
 * and Wilcoxon / sign tests on per-line CER differences (secondary, labelled), per scope: each dataset, the
 * pooled lines (clusters resampled within their dataset) and the macro average over datasets.
 */
import { pairedBlockDelta, type BlockDelta, type BlockDesign } from '../stats/block-stats';
import { seedFor } from '../stats/bootstrap';
import { clusterIds, type ClusterSpec } from '../stats/clusters';
import { ratio, round } from '../format';
import { holm, lineDifferences, signTest, wilcoxonSignedRank } from '../stats/paired';

/** A set of lines a figure is computed on: one dataset, or all of them (then with the macro average). */
export interface Scope {
  /** Dataset key, or POOLED. */
  key: string;
  from: number;
  to: number;
  design: BlockDesign;
  macro: boolean;
}

export const POOLED = '*pooled*';

export interface ResampleSettings {
  iterations: number;
  permutations: number;
  seed: number;
  /** Fewest clusters for an interval, p and detectable effect (`analysis.min_clusters`; analysis/stats/min-clusters.ts). */
  minClusters?: number;
}

/** One arm vs a reference on the same lines. */
export interface PairedComparison {
  n_paired: number;
  /** CER(arm) − CER(reference); negative = the arm is better. */
  delta_cer: number | null;
  /** Block-bootstrap 95 % interval of delta_cer. */
  ci: [number, number] | null;
  /** Block-bootstrap standard error of delta_cer. */
  se: number | null;
  /** Smallest |ΔCER| this comparison detects with 80 % power at two-sided α = 0.05 (≈ 2.80 · se). */
  mde: number | null;
  /** Block-permutation p of delta_cer (primary), two-sided. */
  p: number | null;
  /** Secondary, per line: Wilcoxon signed-rank on per-line CER differences. */
  p_wilcoxon: number | null;
  /** Secondary, per line: exact sign test. */
  p_sign: number | null;
  better: number;
  same: number;
  worse: number;
  /** Why ci / se / mde / p are null (too few clusters), or why mde is (the arms agree on every line); else null. */
  reason: string | null;
}

/** The pooled comparison's macro average over datasets (mean of the datasets' ΔCER). */
export interface MacroComparison {
  delta_cer: number | null;
  ci: [number, number] | null;
  se: number | null;
  mde: number | null;
  p: number | null;
  /** As PairedComparison.reason. */
  reason: string | null;
}

/** Scopes of the study: each dataset (its clusters, one stratum), then the pooled lines (strata = datasets). */
export function studyScopes(
  datasets: string[],
  ranges: Map<string, [number, number]>,
  sampleIds: string[],
  spec: ClusterSpec,
): { scopes: Scope[]; clusterNote: Record<string, number> } {
  const n = sampleIds.length;
  const block = new Int32Array(n);
  const strata: number[] = [];
  const scopes: Scope[] = [];
  const clusterNote: Record<string, number> = {};
  datasets.forEach((ds, s) => {
    const [from, to] = ranges.get(ds)!;
    const { ids, count } = clusterIds(sampleIds.slice(from, to), spec, ds);
    const offset = strata.length;
    for (let i = 0; i < ids.length; i++) block[from + i] = offset + ids[i];
    for (let c = 0; c < count; c++) strata.push(s);
    clusterNote[ds] = count;
    scopes.push({ key: ds, from, to, design: { block: ids, stratumOfBlock: new Int32Array(count) }, macro: false });
  });
  scopes.push({ key: POOLED, from: 0, to: n, design: { block, stratumOfBlock: Int32Array.from(strata) }, macro: datasets.length > 1 });
  return { scopes, clusterNote };
}

/**
 * The lines `idx` of a scope (a score band, a provenance split) as a scope of their own: each line keeps its
 * cluster, so the interval resamples the clusters the lines fall in, within their strata.
 */
export function subScope(scope: Scope, idx: readonly number[], key: string): Scope {
  const used = [...new Set(idx.map((i) => scope.design.block[i]))].sort((a, b) => a - b);
  const remap = new Map(used.map((b, k) => [b, k]));
  return {
    key,
    from: 0,
    to: idx.length,
    macro: false,
    design: {
      block: Int32Array.from(idx, (i) => remap.get(scope.design.block[i])!),
      stratumOfBlock: Int32Array.from(used, (b) => scope.design.stratumOfBlock[b]),
    },
  };
}

const pValue = (p: number | null): number | null => (p === null || !Number.isFinite(p) ? null : Number(p.toPrecision(6)));
const roundPair = (ci: [number, number] | null): [number, number] | null => (ci ? [round(ci[0])!, round(ci[1])!] : null);

function macroOf(m: BlockDelta): MacroComparison {
  return { delta_cer: round(m.delta), ci: roundPair(m.ci95), se: round(m.se), mde: round(m.mde), p: pValue(m.p), reason: m.reason };
}

/** A paired comparison with its macro figure, as comparePaired gives it. */
export type PairedResult = PairedComparison & { macro: MacroComparison | null };

/**
 * The paired comparisons of one analysis by seed key: an arm's `vs_baseline` and the planned contrast of that arm
 * vs the baseline are one comparison, measured once, so arms.json states one interval and one p for it.
 */
export type PairedMemo = Map<string, PairedResult>;

/** The seed key of `arm` vs the baseline on a scope: the one key its `vs_baseline` and its planned contrast share. */
export function baselineKey(arm: string, scopeKey: string): string {
  return `${arm}:${scopeKey === POOLED ? '*overall*' : scopeKey}:vs:baseline`;
}

/**
 * `arm` vs `reference` edits per line on the scope's lines, against the arm's gold lengths `ref`.
 * `key` names the comparison for its seed (so adding an arm or a dataset leaves the others' figures unchanged);
 * with `memo`, a comparison already measured under `key` is returned as it was.
 */
export function comparePaired(
  ref: ArrayLike<number>,
  reference: ArrayLike<number>,
  arm: ArrayLike<number>,
  scope: Scope,
  s: ResampleSettings,
  key: string,
  memo?: PairedMemo,
): PairedResult {
  const known = memo?.get(key);
  if (known) return known;
  const sl = (x: ArrayLike<number>) => Float64Array.from({ length: scope.to - scope.from }, (_, i) => x[scope.from + i]);
  const [g, a, b] = [sl(ref), sl(reference), sl(arm)];
  const r = pairedBlockDelta(g, a, b, scope.design, { ...s, seed: seedFor(s.seed, `arms:${key}`) }, scope.macro);
  let R = 0,
    A = 0,
    B = 0,
    better = 0,
    worse = 0;
  for (let i = 0; i < g.length; i++) {
    R += g[i];
    A += a[i];
    B += b[i];
    if (b[i] < a[i]) better++;
    else if (b[i] > a[i]) worse++;
  }
  const ra = ratio(A, R),
    rb = ratio(B, R);
  const d = lineDifferences(g, a, b);
  const result: PairedResult = {
    n_paired: g.length,
    delta_cer: ra === null || rb === null ? null : round(rb - ra),
    ci: roundPair(r.pooled.ci95),
    se: round(r.pooled.se),
    mde: round(r.pooled.mde),
    p: pValue(r.pooled.p),
    p_wilcoxon: pValue(wilcoxonSignedRank(d).p),
    p_sign: pValue(signTest(d).p),
    better,
    same: g.length - better - worse,
    worse,
    reason: r.pooled.reason,
    macro: r.macro ? macroOf(r.macro) : null,
  };
  memo?.set(key, result);
  return result;
}

/** Something that carries a primary p and gets a Holm-adjusted one. */
export interface HolmMember {
  p: number | null;
  p_holm: number | null;
}

/** Holm over one family (null p-values stay out and get null); writes p_holm in place. */
export function applyHolmFamily(family: HolmMember[]): void {
  const adjusted = holm(family.map((m) => m.p));
  family.forEach((m, i) => (m.p_holm = pValue(adjusted[i])));
}
