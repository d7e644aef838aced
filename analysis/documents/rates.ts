/** Rate blocks shared by the documents: CER/WER of the OCR or an arm, group figures, deltas, normalisation label. */
import { profileLabel, type NormalizationProfile } from '../../src/text/profiles';
import { OCR_CER_BANDS } from '../score/bands';
import { ratio, round } from '../format';
import type { Table } from './table';
import { sumsBy, type Sums } from './sums';

type TextSource = 'ocr' | 'rag' | 'base';

/** Full rate block of the OCR or one arm (metrics.json `corrected` / `ocr_baseline`). */
export function rateBlock(s: Sums, c: TextSource) {
  return {
    cer: round(ratio(s[`${c}_ce`], s.ref_chars)),
    wer: round(ratio(s[`${c}_we`], s.ref_words)),
    cer_mean_per_line: round(s[`${c}_line_cer`]),
    wer_mean_per_line: round(s[`${c}_line_wer`]),
    char_edits: s[`${c}_ce`],
    ref_chars: s.ref_chars,
    word_edits: s[`${c}_we`],
    ref_words: s.ref_words,
    substitutions: s[`${c}_cs`],
    deletions: s[`${c}_cd`],
    insertions: s[`${c}_ci`],
  };
}

export function cerWer(s: Sums, c: TextSource) {
  return { cer: round(ratio(s[`${c}_ce`], s.ref_chars)), wer: round(ratio(s[`${c}_we`], s.ref_words)) };
}

export function normCerWer(s: Sums, c: TextSource) {
  return { cer: round(ratio(s[`n_${c}_ce`], s.n_ref_chars)), wer: round(ratio(s[`n_${c}_we`], s.n_ref_words)) };
}

/** CER-by-group figures: zero_shot / rag on the comparison set, improvement = zero_shot − rag. */
export function groupStats(s: Sums, hasBaseline: boolean) {
  const p5 = ratio(s.rag_ce, s.ref_chars);
  const p2 = hasBaseline ? ratio(s.base_ce, s.ref_chars) : null;
  const ocr = ratio(s.ocr_ce, s.ref_chars);
  return {
    n_samples: s.n,
    mean_top1_score: round(s.top1),
    ocr_cer: round(ocr),
    phase2_cer: round(p2),
    phase5_cer: round(p5),
    delta_cer: round(p2 !== null && p5 !== null ? p5 - p2 : null),
    cer_improvement: round(p2 !== null && p5 !== null ? p2 - p5 : null),
    cer_improvement_vs_ocr: round(ocr !== null && p5 !== null ? ocr - p5 : null),
    phase5_help_rate: round(ratio(s.rag_help, s.n)),
    phase5_harm_rate: round(ratio(s.rag_harm, s.n)),
    phase2_help_rate: hasBaseline ? round(ratio(s.base_help, s.n)) : null,
    phase2_harm_rate: hasBaseline ? round(ratio(s.base_harm, s.n)) : null,
  };
}

export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
export const signed = (x: number, d = 4) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(d)}`;

export function deltaBlock(base: { cer: number | null; wer: number | null }, cur: { cer: number | null; wer: number | null }) {
  const abs = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  const rel = (a: number | null, b: number | null) => (a === null || b === null || a === 0 ? null : ((b - a) / a) * 100);
  return {
    cer_absolute: round(abs(base.cer, cur.cer)),
    wer_absolute: round(abs(base.wer, cur.wer)),
    cer_relative_pct: round(rel(base.cer, cur.cer), 2),
    wer_relative_pct: round(rel(base.wer, cur.wer), 2),
  };
}

/** CER-by-group figures per raw-OCR CER band of the comparison set. */
export function byOcrCerBand(cmpT: Table, hasBaseline: boolean) {
  return Object.fromEntries(sumsBy(cmpT, 'ocr_band', OCR_CER_BANDS).map(([b, s]) => [b, groupStats(s, hasBaseline)]));
}

export function normalizationLabel(n: NormalizationProfile): string {
  return `SECONDARY metrics under the normalisation profile ${profileLabel(n)}; the primary figures use the primary profile (see profiles)`;
}
