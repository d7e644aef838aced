import { DEFAULT_ERAS as OPENITI_ERAS } from '../src/openiti/sampling';
import { globToRegExp } from '../src/util/glob';
/**
 * Small pure helpers shared by the analysis outputs: fixed number formatting, the binding bucket/band/era
 * labels, glob matching of source URIs, and rank correlation.
 */

/** Round to a fixed number of decimals (outputs are byte-stable and readable); null/NaN → null. */
export function round(x: number | null | undefined, digits = 6): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  const r = Math.round(x * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

/** a / b, or null when b is 0. */
export function ratio(a: number, b: number): number | null {
  return b > 0 ? a / b : null;
}

/** Code-unit string order (locale-independent, so output order never depends on ICU). */
export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Retrieval-score buckets (docs/outputs.md#retrieval_analysisjson keys, exactly)
// ---------------------------------------------------------------------------------------------

export const SCORE_BUCKETS = ['0.8+', '0.7–0.8', '0.6–0.7', '<0.6'] as const;
export type ScoreBucket = (typeof SCORE_BUCKETS)[number];

/** Bucket of a top-1 score: [0.8, ∞), [0.7, 0.8), [0.6, 0.7), (−∞, 0.6). */
export function scoreBucket(score: number): ScoreBucket {
  if (score >= 0.8) return '0.8+';
  if (score >= 0.7) return '0.7–0.8';
  if (score >= 0.6) return '0.6–0.7';
  return '<0.6';
}

// ---------------------------------------------------------------------------------------------
// Bands of the raw OCR line CER
// ---------------------------------------------------------------------------------------------

/**
 * The four bands of the per-condition documents (`by_ocr_cer_band` of comparison_vs_phase2.json and comparison.json,
 * and the Lines view without study arms): their keys are part of those files. The Arms section has its own five
 * finer bands (ARM_OCR_BANDS, analysis/study/arms.ts: 0–2 / 2–5 / 5–10 / 10–20 / > 20 %); the two sets are kept apart
 * on purpose and named apart (ocrCerBand vs armOcrBand).
 */
export const OCR_CER_BANDS = ['<5%', '5–15%', '15–30%', '>30%'] as const;
export type OcrCerBand = (typeof OCR_CER_BANDS)[number];

/** Band of a line's raw OCR CER: [0, 5 %), [5 %, 15 %), [15 %, 30 %), [30 %, ∞). An empty gold line with OCR text counts as >30 %. */
export function ocrCerBand(edits: number, refLength: number): OcrCerBand {
  const c = refLength > 0 ? edits / refLength : edits > 0 ? Infinity : 0;
  if (c < 0.05) return '<5%';
  if (c < 0.15) return '5–15%';
  if (c < 0.3) return '15–30%';
  return '>30%';
}

// ---------------------------------------------------------------------------------------------
// Eras of retrieved sources (hijri death year; same [from, to) convention as the corpus config)
// ---------------------------------------------------------------------------------------------

export interface Era {
  name: string;
  /** Inclusive lower bound (AH). */
  from: number;
  /** Exclusive upper bound (AH). */
  to: number;
}

export const DEFAULT_ERAS: readonly Era[] = OPENITI_ERAS.map(({ name, from, to }) => ({ name, from, to }));

export const UNKNOWN_ERA = 'unknown';

/** Parse a source date (number, or a string such as "0276" / "276AH"); null when absent or unreadable. */
export function parseDate(d: unknown): number | null {
  if (typeof d === 'number') return Number.isFinite(d) ? d : null;
  if (typeof d === 'string') {
    const m = /^\s*(-?\d+)/.exec(d);
    return m ? Number(m[1]) : null;
  }
  return null;
}

export function eraOf(date: number | null, eras: readonly Era[] = DEFAULT_ERAS): string {
  if (date === null) return UNKNOWN_ERA;
  for (const e of eras) if (date >= e.from && date < e.to) return e.name;
  return UNKNOWN_ERA;
}

// ---------------------------------------------------------------------------------------------
// Source patterns (config `source_pattern`: a version-URI glob such as "0276IbnQutayba.Adab*")
// ---------------------------------------------------------------------------------------------

export { globToRegExp };

/**
 * Does a retrieved source URI come from the book a pattern names? The glob is tried on the whole URI
 * and on each path segment, so "0276IbnQutayba.Adab*" matches a bare version URI as well as
 * "data/0276IbnQutayba/0276IbnQutayba.Adab/0276IbnQutayba.Adab.Shamela0001-ara1".
 */
export function sourceMatcher(pattern: string): (uri: string) => boolean {
  const re = globToRegExp(pattern);
  return (uri: string) => {
    if (re.test(uri)) return true;
    for (const seg of uri.split(/[\\/]/)) if (seg && re.test(seg)) return true;
    return false;
  };
}

// ---------------------------------------------------------------------------------------------
// Correlation
// ---------------------------------------------------------------------------------------------

/** Ranks with ties averaged (1-based). */
export function ranks(xs: readonly number[]): number[] {
  const idx = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b] || a - b);
  const r = new Array<number>(xs.length);
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]] === xs[idx[i]]) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) r[idx[k]] = avg;
    i = j + 1;
  }
  return r;
}

export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 3 || ys.length !== n) return null;
  let mx = 0,
    my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i];
    my += ys[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0,
    sxx = 0,
    syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i] - mx,
      dy = ys[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

/** Spearman rank correlation (Pearson on tie-averaged ranks); null when undefined. */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  return pearson(ranks(xs), ranks(ys));
}
