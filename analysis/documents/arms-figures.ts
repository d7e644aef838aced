/**
 * The comparison files' `bootstrap` block, a projection of the arms analysis of their two arms (./own-arms.ts, or
 * the stage's when it covers their lines), so that one comparison has one answer: ΔCER rag vs zero_shot (estimate,
 * CI, p, SE, detectable effect, reason), rag vs OCR and zero_shot vs OCR and each arm's CER and WER interval as
 * arms.json states them, ΔWER and the OCR text's intervals from the same analysis's design figures
 * (analysis/study/design-figures.ts) — per dataset and pooled, from the same clusters, block bootstrap,
 * permutation test and seeds. A scope without zero_shot lines takes rag's figures against the OCR text from the
 * analysis of rag alone.
 */
import { round } from '../format';
import { isSignificant } from '../stats/min-clusters';
import type { PairedComparison } from '../study/compare';
import type { ArmMetrics, ArmsAnalysis } from '../study/types';
import type { DesignArms } from './own-arms';

/** The scope of comparison.json (all datasets pooled); the arms analysis's pooled scope key too. */
export const POOLED_SCOPE = '*pooled*';

/** How the block's intervals and tests are made (its `method`). */
export const BLOCK_METHOD =
  'paired percentile block bootstrap over clusters of lines (docs/statistics.md); p_value = block permutation test of the delta; significant = p_value < 0.05; mde = detectable |delta| at 80 % power';

/** One delta of the block. */
export interface BlockDeltaFigures {
  estimate: number | null;
  ci95: [number, number] | null;
  p_value: number | null;
  significant: boolean | null;
  se: number | null;
  mde: number | null;
  reason: string | null;
}

type Cis = { ocr: [number, number] | null; phase2: [number, number] | null; phase5: [number, number] | null };

/** comparison_vs_phase2.json's and comparison.json's `bootstrap` (docs/outputs.md#comparison_vs_phase2json). */
export interface BootstrapBlock {
  method: string;
  clusters: number;
  /** Why the intervals, p-values and detectable effects are null (too few clusters); null when they are given. */
  reason: string | null;
  iterations: number;
  seed: number;
  stratified_by_dataset: boolean;
  delta_cer: BlockDeltaFigures | null;
  delta_wer: BlockDeltaFigures | null;
  delta_cer_phase5_vs_ocr: BlockDeltaFigures;
  delta_cer_phase2_vs_ocr: BlockDeltaFigures | null;
  cer_ci95: Cis;
  wer_ci95: Cis;
}

/** A delta of the block, from arms.json's comparison (p to 4 decimals). */
function fromPaired(c: PairedComparison): BlockDeltaFigures {
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

/** `name`'s figures on `scope` (a dataset key, or POOLED_SCOPE). */
function armOn(a: ArmsAnalysis, name: string, scope: string): ArmMetrics {
  const arm = a.arms.find((x) => x.name === name);
  const m = scope === POOLED_SCOPE ? arm : arm?.datasets[scope];
  if (!m) throw new Error(`internal: the arms analysis has no ${name} figures on ${scope}`);
  return m;
}

/**
 * The block of `scope` from the analyses: the pair's where the scope has zero_shot lines (`hasBaseline`), else rag
 * alone's. `seed` (`analysis.bootstrap_seed`) and `stratified` (pooled: resampled within each dataset) label it.
 */
export function armsBlock(arms: DesignArms, scope: string, seed: number, stratified: boolean, hasBaseline: boolean): BootstrapBlock {
  const a = hasBaseline ? arms.pair : (arms.ragAlone ?? arms.pair);
  const own = a?.design_figures?.[scope];
  if (!a || !own) throw new Error(`internal: no arms analysis of the design files' lines on ${scope}`);
  const rag = armOn(a, 'rag', scope);
  const zeroShot = hasBaseline ? armOn(a, 'zero_shot', scope) : null;
  return {
    method: BLOCK_METHOD,
    clusters: own.clusters,
    reason: own.reason,
    iterations: own.iterations,
    seed: seed >>> 0,
    stratified_by_dataset: stratified,
    delta_cer: rag.vs_baseline && hasBaseline ? fromPaired(rag.vs_baseline) : null,
    delta_wer: own.delta_wer && hasBaseline ? fromPaired(own.delta_wer) : null,
    delta_cer_phase5_vs_ocr: fromPaired(rag.vs_ocr),
    delta_cer_phase2_vs_ocr: zeroShot ? fromPaired(zeroShot.vs_ocr) : null,
    cer_ci95: { ocr: own.ocr_cer_ci, phase2: zeroShot?.cer_ci ?? null, phase5: rag.cer_ci },
    wer_ci95: { ocr: own.ocr_wer_ci, phase2: zeroShot?.wer_ci ?? null, phase5: rag.wer_ci },
  };
}
