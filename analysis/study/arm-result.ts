/** Every figure of one arm per scope (each dataset, pooled, macro): CER/WER with block-bootstrap CIs, paired tests, bands. */
import * as aq from 'arquero';
import type { ArmRow } from '../score/arm-line';
import { baselineKey, comparePaired, POOLED, type PairedComparison, type PairedMemo, type Scope } from './compare';
import type { ArmVerbatim, LoadedArm } from '../inputs/arm-inputs';
import type { Settings } from './settings-type';
import type { ArmMetrics, ArmResult, ReplicateFigures } from './types';
import type { ArmWhen } from './when';
import { replicateSeeds } from './replicates';
import { armUsage, type TokenPrice } from './usage';
import { blockRateInterval } from '../stats/block-stats';
import { replicateRateInterval, replicateSpread } from '../stats/replicate-stats';
import { seedFor } from '../stats/bootstrap';
import { bandCounts, guardRates, totals } from './counts';
import { ratio, round } from '../format';
import { merFigures, type MerFigures } from './mer-figures';

export function armResult(
  arm: LoadedArm,
  rows: ArmRow[],
  baseRows: ArmRow[] | null,
  scopes: Scope[],
  s: Settings,
  when: ArmWhen,
  replicates: ArmRow[][] | undefined,
  price: TokenPrice | null,
  memo: PairedMemo,
): ArmResult {
  const name = arm.info.name;
  const perDataset: Record<string, ArmMetrics> = {};
  let overall: ArmMetrics | null = null;
  let macro: ArmResult['macro'] = null;
  const cols = armColumns(rows, baseRows);
  for (const scope of scopes) {
    const pooled = scope.key === POOLED;
    const key = pooled ? `${name}:*overall*` : `${name}:${scope.key}`;
    const reps = replicates && { rows: replicates, seeds: replicateSeeds(arm) };
    const { metrics, macro: m } = armMetrics(cols, scope, s, { key, baseline: baselineKey(name, scope.key), memo }, reps);
    const verbatim = verbatimRate(arm.verbatim, pooled ? Object.keys(perDataset) : [scope.key], pooled);
    const bounded = merFigures(rows, scope, s, key);
    if (pooled) {
      overall = { ...metrics, verbatim_gold_rate: verbatim, ...bounded };
      macro = m;
    } else perDataset[scope.key] = { ...metrics, verbatim_gold_rate: verbatim, ...bounded };
  }
  return {
    name,
    is_baseline: baseRows === null,
    upper_bound: arm.info.upper_bound,
    prompt: arm.info.prompt,
    retrieval: arm.info.retrieval,
    model: arm.info.model,
    guard_config: arm.info.guard,
    ...overall!,
    datasets: perDataset,
    macro,
    when,
    usage: armUsage(arm, price),
  };
}

/**
 * The verbatim-gold rate over `datasets` from the export's per-dataset counts (so a `--datasets` subset gets
 * its own rate); without them, arm.json's pooled rate for the pooled figures and null per dataset.
 */
function verbatimRate(v: ArmVerbatim, datasets: string[], pooled: boolean): number | null {
  if (!v.byDataset) return pooled ? round(v.rate) : null;
  let lines = 0,
    hits = 0;
  for (const ds of datasets) {
    lines += v.byDataset[ds]?.lines ?? 0;
    hits += v.byDataset[ds]?.hits ?? 0;
  }
  return round(ratio(hits, lines));
}

/** The columns of an arm's scored lines every scope reads (made once per arm; a scope takes subarrays). */
interface ArmColumns {
  numbers: Record<'ref_chars' | 'ref_words' | 'ce' | 'we' | 'raw_ce' | 'ocr_ce' | 'improved' | 'worsened' | 'failed_n', Float64Array>;
  band: string[];
  guard: (string | null)[];
  filled: boolean[];
  /** The baseline's edits per line (null for the baseline itself). */
  baseCe: Float64Array | null;
}

function armColumns(rows: ArmRow[], baseRows: ArmRow[] | null): ArmColumns {
  const of = (f: (r: ArmRow) => number) => Float64Array.from(rows, f);
  return {
    numbers: {
      ref_chars: of((r) => r.ref_chars),
      ref_words: of((r) => r.ref_words),
      ce: of((r) => r.ce),
      we: of((r) => r.we),
      raw_ce: of((r) => r.raw_ce),
      ocr_ce: of((r) => r.ocr_ce),
      improved: of((r) => (r.ce < r.ocr_ce ? 1 : 0)),
      worsened: of((r) => (r.ce > r.ocr_ce ? 1 : 0)),
      failed_n: of((r) => (r.failed ? 1 : 0)),
    },
    band: rows.map((r) => r.band),
    guard: rows.map((r) => r.guard),
    filled: rows.map((r) => r.filled),
    baseCe: baseRows && Float64Array.from(baseRows, (r) => r.ce),
  };
}

/** Every figure of one arm on one scope's lines (a dataset, or all of them: then with the macro average). */
function armMetrics(
  cols: ArmColumns,
  scope: Scope,
  s: Settings,
  { key, baseline, memo }: { key: string; baseline: string; memo: PairedMemo },
  replicates?: Replicates,
): { metrics: Omit<ArmMetrics, 'verbatim_gold_rate' | keyof MerFigures>; macro: ArmResult['macro'] } {
  const sl = (x: Float64Array) => x.subarray(scope.from, scope.to);
  const { numbers: c } = cols;
  const t = aq.table({
    ...Object.fromEntries(Object.entries(c).map(([name, x]) => [name, sl(x)])),
    band: cols.band.slice(scope.from, scope.to),
    guard: cols.guard.slice(scope.from, scope.to),
  });
  const sum = totals(t);
  const perReplicate = (k: 'ce' | 'we') => replicates?.rows.map((rs) => Float64Array.from(rs.slice(scope.from, scope.to), (r) => r[k]));
  const rate = (r: ArrayLike<number>, e: ArrayLike<number>, each: Float64Array[] | undefined, seed: number) =>
    each
      ? replicateRateInterval(r, each, scope.design, s.iterations, seed, s.minClusters)
      : blockRateInterval(r, e, scope.design, s.iterations, seed, s.minClusters);
  const replicateCe = perReplicate('ce');
  const cer = rate(sl(c.ref_chars), sl(c.ce), replicateCe, seedFor(s.seed, `arms:${key}`));
  const wer = rate(sl(c.ref_words), sl(c.we), perReplicate('we'), seedFor(s.seed, `arms:${key}:wer`));
  const { macro: vbMacro, ...vsBaseline } = cols.baseCe
    ? comparePaired(c.ref_chars, cols.baseCe, c.ce, scope, s, baseline, memo)
    : { macro: null };
  const { macro: ocrMacro, ...vsOcr } = comparePaired(c.ref_chars, c.ocr_ce, c.ce, scope, s, `${key}:vs:ocr`);
  const metrics = {
    lines: sum.n,
    cer: round(ratio(sum.ce, sum.ref_chars)),
    cer_ci: roundPair(cer.ci95),
    wer: round(ratio(sum.we, sum.ref_words)),
    wer_ci: roundPair(wer.ci95),
    ci_reason: cer.reason,
    raw_cer: round(ratio(sum.raw_ce, sum.ref_chars)),
    ocr_cer: round(ratio(sum.ocr_ce, sum.ref_chars)),
    failures: sum.failed_n,
    guard: guardRates(t, sum.n),
    filled_lines: cols.filled.slice(scope.from, scope.to).filter(Boolean).length,
    vs_baseline: cols.baseCe ? { ...(vsBaseline as PairedComparison), p_holm: null } : null,
    vs_ocr: vsOcr,
    improved: sum.improved,
    unchanged: sum.n - sum.improved - sum.worsened,
    worsened: sum.worsened,
    by_band: bandCounts(t),
    ...(replicates ? { replicates: replicateFigures(sl(c.ref_chars), replicateCe!, replicates.seeds) } : {}),
  };
  const macro = cer.macro
    ? {
        cer: round(cer.macro.estimate),
        cer_ci: roundPair(cer.macro.ci95),
        ci_reason: cer.reason,
        vs_baseline: vbMacro ? { ...vbMacro, p_holm: null } : null,
        vs_ocr: ocrMacro,
      }
    : null;
  return { metrics, macro };
}

/** The replicates of an arm with replicates: every replicate's lines (replicate 0 first) and seeds. */
interface Replicates {
  rows: ArmRow[][];
  seeds: (number | null)[];
}

/** arms.json's `replicates` of one scope: each replicate's CER and their between-replicate SD. */
function replicateFigures(ref: ArrayLike<number>, ce: Float64Array[], seeds: (number | null)[]): ReplicateFigures {
  const { rates, sd } = replicateSpread(ref, ce);
  return { n: ce.length, seeds, cer: rates.map((x) => round(x)!), cer_sd: round(sd) };
}

function roundPair(ci: [number, number] | null): [number, number] | null {
  return ci ? [round(ci[0])!, round(ci[1])!] : null;
}
