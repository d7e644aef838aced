/** The bootstrap block of the comparisons of a run the arms analysis does not cover (./arms-figures.ts covers the rest): CIs of CER/WER per arm and of the deltas, on the same resamples. */
import { clusteredRates, type ClusteredResult as BootstrapResult, type Resampling } from '../stats/comparison-stats';
import { round } from '../format';
import type { Table } from './table';

function ciOf(b: BootstrapResult, name: string): [number, number] | null {
  const c = b.rates[name]?.ci95;
  return c ? [round(c[0])!, round(c[1])!] : null;
}

function deltaCi(b: BootstrapResult, name: string) {
  const d = b.deltas[name];
  return {
    estimate: round(d.estimate),
    ci95: d.ci95 ? ([round(d.ci95[0])!, round(d.ci95[1])!] as [number, number]) : null,
    p_value: round(d.p_value, 4),
    significant: d.significant,
    se: round(d.se),
    mde: round(d.mde),
    reason: d.reason,
  };
}

/** How the block's intervals and tests are made (its `method`). */
export const BLOCK_METHOD =
  'paired percentile block bootstrap over clusters of lines (docs/statistics.md); p_value = block permutation test of the delta; significant = p_value < 0.05; mde = detectable |delta| at 80 % power';

/** Bootstrap CER and WER of OCR / Phase 2 / Phase 5 on the comparison set (same resamples for both). */
export function bootstrapBlock(
  t: Table,
  hasBaseline: boolean,
  iterations: number,
  seed: number,
  strata?: ArrayLike<number>,
  resampling: Resampling & { datasets?: readonly string[] } = {},
) {
  const arr = (c: string) => t.array(c) as ArrayLike<number>;
  const run = (ref: string, suffix: 'ce' | 'we') => {
    const series: Record<string, ArrayLike<number>> = { ocr: arr(`ocr_${suffix}`), phase5: arr(`rag_${suffix}`) };
    const deltas: Record<string, [string, string]> = { phase5_vs_ocr: ['ocr', 'phase5'] };
    if (hasBaseline) {
      series.phase2 = arr(`base_${suffix}`);
      deltas.phase5_vs_phase2 = ['phase2', 'phase5'];
      deltas.phase2_vs_ocr = ['ocr', 'phase2'];
    }
    return clusteredRates(arr(ref), series, deltas, {
      iterations,
      seed,
      strata,
      sampleIds: t.array('sample_id') as ArrayLike<string>,
      ...resampling,
    });
  };
  const c = run('ref_chars', 'ce');
  const w = run('ref_words', 'we');
  return {
    method: BLOCK_METHOD,
    clusters: c.clusters,
    /** Why the intervals, p-values and detectable effects are null (too few clusters); null when they are given. */
    reason: c.reason,
    iterations: c.iterations,
    seed: c.seed,
    stratified_by_dataset: strata !== undefined,
    delta_cer: hasBaseline ? deltaCi(c, 'phase5_vs_phase2') : null,
    delta_wer: hasBaseline ? deltaCi(w, 'phase5_vs_phase2') : null,
    delta_cer_phase5_vs_ocr: deltaCi(c, 'phase5_vs_ocr'),
    delta_cer_phase2_vs_ocr: hasBaseline ? deltaCi(c, 'phase2_vs_ocr') : null,
    cer_ci95: { ocr: ciOf(c, 'ocr'), phase2: hasBaseline ? ciOf(c, 'phase2') : null, phase5: ciOf(c, 'phase5') },
    wer_ci95: { ocr: ciOf(w, 'ocr'), phase2: hasBaseline ? ciOf(w, 'phase2') : null, phase5: ciOf(w, 'phase5') },
  };
}

export type BootstrapBlock = ReturnType<typeof bootstrapBlock>;
