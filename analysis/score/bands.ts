/**
 * Every band a line is put in, in one place: the top-1 retrieval-score buckets, and the bands of the raw OCR
 * line's CER — the four of the design document's files and the five finer ones of the arms analysis.
 */

/** Retrieval-score buckets: docs/outputs.md#retrieval_analysisjson keys, exactly. */
export const SCORE_BUCKETS = ['0.8+', '0.7–0.8', '0.6–0.7', '<0.6'] as const;
export type ScoreBucket = (typeof SCORE_BUCKETS)[number];

/** Bucket of a top-1 score: [0.8, ∞), [0.7, 0.8), [0.6, 0.7), (−∞, 0.6). */
export function scoreBucket(score: number): ScoreBucket {
  if (score >= 0.8) return '0.8+';
  if (score >= 0.7) return '0.7–0.8';
  if (score >= 0.6) return '0.6–0.7';
  return '<0.6';
}

/**
 * The four bands of the per-condition documents (`by_ocr_cer_band` of comparison_vs_phase2.json and comparison.json,
 * and the Lines view without study arms): their keys are part of those files. The Arms section has its own five
 * finer bands (ARM_OCR_BANDS below: 0–2 / 2–5 / 5–10 / 10–20 / > 20 %); the two sets are kept apart
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

/** Bands of the raw OCR line CER for the arms analysis: [0, 2 %), [2, 5 %), [5, 10 %), [10, 20 %), [20 %, ∞). */
export const ARM_OCR_BANDS = ['0–2%', '2–5%', '5–10%', '10–20%', '>20%'] as const;
export type ArmOcrBand = (typeof ARM_OCR_BANDS)[number];

/** An empty gold line counts as 0–2 % when the OCR line is empty too, else as > 20 %. */
export function armOcrBand(edits: number, goldChars: number): ArmOcrBand {
  const c = goldChars > 0 ? edits / goldChars : edits > 0 ? Infinity : 0;
  if (c < 0.02) return '0–2%';
  if (c < 0.05) return '2–5%';
  if (c < 0.1) return '5–10%';
  if (c < 0.2) return '10–20%';
  return '>20%';
}
