/** comparison_vs_phase2.json: the lines with both default arms — headline, bootstrap, line effects, OCR-CER bands. */
import type { NormalizationProfile } from '../../src/text/profiles';
import { round, ratio } from '../format';
import type { BootstrapBlock } from './arms-figures';
import type { SectionContext } from './context';
import { FAILED_SCORED_AS } from './metrics-json';
import { byOcrCerBand, cerWer, deltaBlock, normalizationLabel, normCerWer, pct, signed } from './rates';
import type { Rollup, Sums } from './sums';
import type { Validity } from './validity';

/** The uncertainty of the headline delta: its interval and test, or why there is none. */
export interface HeadlineUncertainty {
  ci95: [number, number] | null;
  significant: boolean | null;
  reason?: string | null;
}

/**
 * One sentence in the documented style (docs/outputs.md#comparison_vs_phase2json) ("CER reduced by 20.2% vs
 * Phase 2.") with the bootstrap interval, or the reason it has none (too few clusters: docs/statistics.md).
 */
export function interpretation(p2: number | null, p5: number | null, u: HeadlineUncertainty | null): string {
  if (p2 === null || p5 === null) return 'No Phase 2 baseline for these samples, so no comparison was made.';
  const ci = u?.ci95 ?? null;
  const ciText = ci
    ? ` (ΔCER ${signed(p5 - p2)}, 95% CI [${signed(ci[0])}, ${signed(ci[1])}]${u?.significant ? '' : ', not significant'})`
    : u?.reason
      ? ` (ΔCER ${signed(p5 - p2)}; no interval or p-value: ${u.reason})`
      : '';
  if (p2 === 0) return p5 === 0 ? `CER is 0 in both arms${ciText}.` : `CER rose from 0 to ${pct(p5)} vs Phase 2${ciText}.`;
  const rel = ((p5 - p2) / p2) * 100;
  if (Math.abs(rel) < 0.05) return `CER unchanged vs Phase 2${ciText}.`;
  return `CER ${rel < 0 ? 'reduced' : 'increased'} by ${Math.abs(rel).toFixed(1)}% vs Phase 2${ciText}.`;
}

/**
 * The comparison headline (both arms, Δ, the sentence, OCR for reference, the bootstrap), shared by
 * comparison_vs_phase2.json and the aggregate comparison.json.
 */
export function comparisonHeadline(cmp: Sums, hasBaseline: boolean, boot: BootstrapBlock, validity: Validity) {
  const p2cw = hasBaseline ? cerWer(cmp, 'base') : null;
  const p5cw = cerWer(cmp, 'rag');
  return {
    ...validity,
    phase2_baseline: p2cw,
    phase5_corrected: p5cw,
    delta: p2cw ? deltaBlock(p2cw, p5cw) : null,
    interpretation: validity ? `Not valid: ${validity.invalid_reason}.` : interpretation(p2cw?.cer ?? null, p5cw.cer, boot.delta_cer),
    ocr_baseline: cerWer(cmp, 'ocr'),
    bootstrap: boot,
  };
}

/** rag vs zero_shot per line on the comparison set; per dataset also ties and the definition. */
export function pairedLineEffects(cmp: Sums, hasBaseline: boolean, perDataset: boolean) {
  return {
    phase5_better_than_phase2: hasBaseline ? cmp.rag_better : null,
    phase5_worse_than_phase2: hasBaseline ? cmp.rag_worse : null,
    ...(perDataset ? { tied: hasBaseline ? cmp.n - cmp.rag_better - cmp.rag_worse : null } : {}),
    phase5_help_rate: round(ratio(cmp.rag_help, cmp.n)),
    phase5_harm_rate: round(ratio(cmp.rag_harm, cmp.n)),
    phase2_help_rate: hasBaseline ? round(ratio(cmp.base_help, cmp.n)) : null,
    phase2_harm_rate: hasBaseline ? round(ratio(cmp.base_harm, cmp.n)) : null,
    ...(perDataset ? { definition: 'help/harm: per line, fewer/more character edits than the raw OCR line' } : {}),
  };
}

/** comparison_vs_phase2.json (docs/outputs.md#comparison_vs_phase2json, and more): the lines with both default arms. */
export function comparisonDocument(
  ds: string,
  { all, cmp, cmpT, hasBaseline }: Rollup,
  boot: BootstrapBlock,
  validity: Validity,
  ctx: SectionContext,
) {
  const headline = comparisonHeadline(cmp, hasBaseline, boot, validity);
  return {
    meta: {
      comparison: 'phase5_vs_phase2',
      dataset: ds,
      generated_at: ctx.generatedAt,
      n_paired: cmp.paired,
      phase5_samples: all.n,
      phase5_without_phase2: all.n - all.paired,
    },
    ...headline,
    failures: {
      phase5: cmp.rag_fail_n,
      phase2: hasBaseline ? cmp.base_fail_n : null,
      phase2_error: hasBaseline ? cmp.base_fail_error : null,
      phase2_empty_output: hasBaseline ? cmp.base_fail_empty : null,
      scored_as: FAILED_SCORED_AS,
    },
    line_effects: pairedLineEffects(cmp, hasBaseline, true),
    by_ocr_cer_band: byOcrCerBand(cmpT, hasBaseline),
    normalized: ctx.normalization ? normalizedComparison(ctx.normalization, cmp, hasBaseline) : null,
  };
}

function normalizedComparison(n: NormalizationProfile, cmp: Sums, hasBaseline: boolean) {
  const a = hasBaseline ? normCerWer(cmp, 'base') : null;
  const b = normCerWer(cmp, 'rag');
  return { label: normalizationLabel(n), phase2_baseline: a, phase5_corrected: b, delta: a ? deltaBlock(a, b) : null };
}
