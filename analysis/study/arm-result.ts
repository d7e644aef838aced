/** Every figure of one arm per scope (each dataset, pooled, macro): CER/WER with block-bootstrap CIs, paired tests, bands. */
import * as aq from 'arquero';
import type { ArmRow } from '../score/arm-line';
import { baselineKey, comparePaired, POOLED, type PairedComparison, type PairedMemo, type Scope } from './compare';
import type { ArmVerbatim, LoadedArm } from '../inputs/arm-inputs';
import type { Settings } from './settings';
import type { ArmMetrics, ArmResult, ReplicateFigures } from './types';
import type { ArmWhen } from './when';
import { replicateSeeds } from './replicates';
import { armUsage, type TokenPrice } from './usage';
import { blockRateInterval } from '../stats/block-stats';
import { replicateRateInterval, replicateSpread } from '../stats/replicate-stats';
import { seedFor } from '../stats/bootstrap';
import { bandCounts, guardRates, totals } from './counts';
import { ratio, round } from '../format';

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
  for (const scope of scopes) {
    const pooled = scope.key === POOLED;
    const key = pooled ? `${name}:*overall*` : `${name}:${scope.key}`;
    const reps = replicates && { rows: replicates, seeds: replicateSeeds(arm) };
    const { metrics, macro: m } = armMetrics(rows, baseRows, scope, s, { key, baseline: baselineKey(name, scope.key), memo }, reps);
    const verbatim = verbatimRate(arm.verbatim, pooled ? Object.keys(perDataset) : [scope.key], pooled);
    if (pooled) {
      overall = { ...metrics, verbatim_gold_rate: verbatim };
      macro = m;
    } else perDataset[scope.key] = { ...metrics, verbatim_gold_rate: verbatim };
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

/** Every figure of one arm on one scope's lines (a dataset, or all of them: then with the macro average). */
function armMetrics(
  all: ArmRow[],
  allBase: ArmRow[] | null,
  scope: Scope,
  s: Settings,
  { key, baseline, memo }: { key: string; baseline: string; memo: PairedMemo },
  replicates?: Replicates,
): { metrics: Omit<ArmMetrics, 'verbatim_gold_rate'>; macro: ArmResult['macro'] } {
  const rows = all.slice(scope.from, scope.to);
  const t = aq.from(rows.map(({ gold: _gold, ...r }) => r)).derive({
    improved: 'd => d.ce < d.ocr_ce ? 1 : 0',
    worsened: 'd => d.ce > d.ocr_ce ? 1 : 0',
    failed_n: 'd => d.failed ? 1 : 0',
  });
  const sum = totals(t);
  const col = (c: keyof ArmRow) => Float64Array.from(all, (r) => r[c] as number);
  const [ref, ce, ocr] = [col('ref_chars'), col('ce'), col('ocr_ce')];
  const sl = (x: Float64Array) => x.subarray(scope.from, scope.to);
  const perReplicate = (c: 'ce' | 'we') => replicates?.rows.map((rs) => Float64Array.from(rs.slice(scope.from, scope.to), (r) => r[c]));
  const rate = (r: ArrayLike<number>, e: ArrayLike<number>, each: Float64Array[] | undefined, seed: number) =>
    each
      ? replicateRateInterval(r, each, scope.design, s.iterations, seed, s.minClusters)
      : blockRateInterval(r, e, scope.design, s.iterations, seed, s.minClusters);
  const cer = rate(sl(ref), sl(ce), perReplicate('ce'), seedFor(s.seed, `arms:${key}`));
  const refWords = rows.map((r) => r.ref_words);
  const wer = rate(
    refWords,
    rows.map((r) => r.we),
    perReplicate('we'),
    seedFor(s.seed, `arms:${key}:wer`),
  );
  const { macro: vbMacro, ...vsBaseline } = allBase
    ? comparePaired(
        ref,
        Float64Array.from(allBase, (r) => r.ce),
        ce,
        scope,
        s,
        baseline,
        memo,
      )
    : { macro: null };
  const { macro: ocrMacro, ...vsOcr } = comparePaired(ref, ocr, ce, scope, s, `${key}:vs:ocr`);
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
    filled_lines: rows.filter((r) => r.filled).length,
    vs_baseline: allBase ? { ...(vsBaseline as PairedComparison), p_holm: null } : null,
    vs_ocr: vsOcr,
    improved: sum.improved,
    unchanged: sum.n - sum.improved - sum.worsened,
    worsened: sum.worsened,
    by_band: bandCounts(t),
    ...(replicates ? { replicates: replicateFigures(sl(ref), perReplicate('ce')!, replicates.seeds) } : {}),
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
