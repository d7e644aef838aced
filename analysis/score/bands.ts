/**
 * Every band a line is put in, in one place: the top-1 retrieval-score buckets, and the one band scheme of the
 * raw OCR line's CER, used by the design document's files (`by_ocr_cer_band`), the Arms section and the Lines view.
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

/** Bands of the raw OCR line CER: [0, 2 %), [2, 5 %), [5, 10 %), [10, 20 %), [20 %, ∞) — keys of `by_ocr_cer_band`. */
export const OCR_CER_BANDS = ['0–2%', '2–5%', '5–10%', '10–20%', '>20%'] as const;
export type OcrCerBand = (typeof OCR_CER_BANDS)[number];

/** Band of a line's raw OCR CER; an empty gold line counts as 0–2 % when the OCR line is empty too, else as > 20 %. */
export function ocrCerBand(edits: number, goldChars: number): OcrCerBand {
  const c = goldChars > 0 ? edits / goldChars : edits > 0 ? Infinity : 0;
  if (c < 0.02) return '0–2%';
  if (c < 0.05) return '2–5%';
  if (c < 0.1) return '5–10%';
  if (c < 0.2) return '10–20%';
  return '>20%';
}
