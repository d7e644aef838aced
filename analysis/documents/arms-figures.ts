/**
 * The comparison files' figures that arms.json states too, taken from the arms analysis (analysis/study/arms.ts)
 * so that one comparison has one answer: ΔCER rag vs zero_shot (estimate, CI, p, SE, detectable effect, reason),
 * rag vs OCR and zero_shot vs OCR, and each arm's CER and WER interval — per dataset and pooled, from the same
 * clusters, block bootstrap, permutation test and seeds as arms.json. Figures arms.json lacks (ΔWER, the OCR
 * text's CER and WER intervals) stay ./bootstrap-block.ts's. Taken only where the arms analysis compared the very
 * lines the file compares (`ArmsFigures.scopes`): every rag line with its zero_shot line, none filled in.
 */
import { round } from '../format';
import { isSignificant } from '../stats/min-clusters';
import type { PairedComparison } from '../study/compare';
import type { ArmMetrics, ArmsAnalysis } from '../study/types';
import type { BootstrapBlock } from './bootstrap-block';

/** The arms analysis of the run, and the scopes (dataset keys; POOLED_SCOPE) whose lines are the files' own. */
export interface ArmsFigures {
  analysis: ArmsAnalysis;
  scopes: ReadonlySet<string>;
}

/** The scope of comparison.json (all datasets pooled). */
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

/** `boot` with the figures arms.json states for this scope (a dataset key, or POOLED_SCOPE) taken from it. */
export function withArmsFigures(boot: BootstrapBlock, figures: ArmsFigures | null, scope: string): BootstrapBlock {
  if (!figures?.scopes.has(scope)) return boot;
  const arm = (name: string): ArmMetrics | undefined => {
    const a = figures.analysis.arms.find((x) => x.name === name);
    return scope === POOLED_SCOPE ? a : a?.datasets[scope];
  };
  const rag = arm('rag');
  const zeroShot = arm('zero_shot');
  if (!rag?.vs_baseline || !zeroShot || !boot.delta_cer) return boot;
  return {
    ...boot,
    delta_cer: fromPaired(rag.vs_baseline),
    delta_cer_phase5_vs_ocr: fromPaired(rag.vs_ocr),
    delta_cer_phase2_vs_ocr: fromPaired(zeroShot.vs_ocr),
    cer_ci95: { ocr: boot.cer_ci95.ocr, phase2: zeroShot.cer_ci, phase5: rag.cer_ci },
    wer_ci95: { ocr: boot.wer_ci95.ocr, phase2: zeroShot.wer_ci, phase5: rag.wer_ci },
  };
}
