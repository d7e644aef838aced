/**
 * The comparison files' `bootstrap` block as a projection of the arms analysis (analysis/study/arms.ts), so that one
 * comparison has one answer: ΔCER rag vs zero_shot (estimate, CI, p, SE, detectable effect, reason), rag vs OCR and
 * zero_shot vs OCR and each arm's CER and WER interval as arms.json states them, ΔWER and the OCR text's intervals
 * from the same analysis's design figures (analysis/study/design-figures.ts) — per dataset and pooled, from the
 * same clusters, block bootstrap, permutation test and seeds. Taken only where the arms analysis compared the very
 * lines the file compares (`ArmsFigures.scopes`): every rag line with its zero_shot line, none filled in; a run
 * without that analysis (rag alone, a baseline elsewhere) measures its block itself (./bootstrap-block.ts).
 */
import { round } from '../format';
import { isSignificant } from '../stats/min-clusters';
import type { PairedComparison } from '../study/compare';
import type { ArmMetrics, ArmsAnalysis } from '../study/types';
import { BLOCK_METHOD, type BootstrapBlock } from './bootstrap-block';

/** The arms analysis of the run, and the scopes (dataset keys; POOLED_SCOPE) whose lines are the files' own. */
export interface ArmsFigures {
  analysis: ArmsAnalysis;
  scopes: ReadonlySet<string>;
}

/** The scope of comparison.json (all datasets pooled); the arms analysis's pooled scope key too. */
export const POOLED_SCOPE = '*pooled*';

/** A delta of the bootstrap block, from arms.json's comparison (p to 4 decimals, as the block writes it). */
function fromPaired(c: PairedComparison): NonNullable<BootstrapBlock['delta_cer']> {
  return {
    estimate: c.delta_cer,
    ci95: c.ci,
    p_value: round(c.p, 4),
    significant: isSignificant(c.p),
    se: c.se,
    mde: c.mde,
    reason: c.reason,
  };
}

/**
 * The block of `scope` (a dataset key, or POOLED_SCOPE) from the arms analysis; null where it did not compare the
 * file's lines. `seed` (`analysis.bootstrap_seed`) and `stratified` (pooled: resampled within each dataset) label the block.
 */
export function armsBlock(figures: ArmsFigures | null, scope: string, seed: number, stratified: boolean): BootstrapBlock | null {
  const own = figures?.analysis.design_figures?.[scope];
  if (!figures?.scopes.has(scope) || !own) return null;
  const arm = (name: string): ArmMetrics | undefined => {
    const a = figures.analysis.arms.find((x) => x.name === name);
    return scope === POOLED_SCOPE ? a : a?.datasets[scope];
  };
  const rag = arm('rag');
  const zeroShot = arm('zero_shot');
  if (!rag?.vs_baseline || !zeroShot) return null;
  return {
    method: BLOCK_METHOD,
    clusters: own.clusters,
    reason: own.reason,
    iterations: own.iterations,
    seed: seed >>> 0,
    stratified_by_dataset: stratified,
    delta_cer: fromPaired(rag.vs_baseline),
    delta_wer: fromPaired(own.delta_wer),
    delta_cer_phase5_vs_ocr: fromPaired(rag.vs_ocr),
    delta_cer_phase2_vs_ocr: fromPaired(zeroShot.vs_ocr),
    cer_ci95: { ocr: own.ocr_cer_ci, phase2: zeroShot.cer_ci, phase5: rag.cer_ci },
    wer_ci95: { ocr: own.ocr_wer_ci, phase2: zeroShot.wer_ci, phase5: rag.wer_ci },
  };
}
