/** One line of one arm scored against its gold text: output, raw (unguarded) output and OCR edits, and its OCR-CER band. */
import { prepareText, scoreDistances, type DistanceScore, type ScoringOptions } from '../../src/text/distance';
import { unguardedOutput } from '../../src/llm/guard';
import { ocrCerBand, type OcrCerBand } from './bands';
import type { ArmLine } from '../inputs/arm-types';
import { failureKind, scoredText } from './failed-line';

/** One scored line of one arm. */
export interface ArmRow {
  dataset: string;
  sample_id: string;
  gold: string;
  ref_chars: number;
  ref_words: number;
  ocr_ce: number;
  ocr_we: number;
  ce: number;
  we: number;
  raw_ce: number;
  guard: string | null;
  failed: boolean;
  filled: boolean;
  band: OcrCerBand;
  /** MER denominators H + S + D + I (src/text/mer.ts) under the primary profile: output and OCR, characters and words. */
  ct: number;
  wt: number;
  ocr_ct: number;
  ocr_wt: number;
}

/**
 * A failed correction scores as the OCR text (./failed-line.ts); so does a failed raw output. `scored`: the OCR
 * text's and the output's scores and the gold text in scoring form under `prep` when they are already known
 * (./profile-scores.ts).
 */
export function scoreArmLine(
  { record: r, rawText, guard }: ArmLine,
  prep: ScoringOptions,
  scored?: { ocr: DistanceScore; out: DistanceScore; gold: string },
): Omit<ArmRow, 'filled' | 'ct' | 'wt' | 'ocr_ct' | 'ocr_wt'> {
  const failed = failureKind(r) !== null;
  const hyp = scoredText(r);
  const ocr = scored?.ocr ?? scoreDistances(r.gt_text, r.ocr_text, prep);
  const out = scored?.out ?? (hyp === r.ocr_text ? ocr : scoreDistances(r.gt_text, hyp, prep));
  let rawCe = out.charEdits;
  if (rawText !== null && rawText !== r.corrected_text) {
    const unguarded = unguardedOutput(rawText, r.ocr_text);
    const raw = scoredText({ ...r, corrected_text: unguarded });
    rawCe = raw === r.ocr_text ? ocr.charEdits : scoreDistances(r.gt_text, raw, prep).charEdits;
  }
  return {
    dataset: r.dataset,
    sample_id: r.sample_id,
    gold: scored?.gold ?? prepareText(r.gt_text, prep),
    ref_chars: ocr.refChars,
    ref_words: ocr.refWords,
    ocr_ce: ocr.charEdits,
    ocr_we: ocr.wordEdits,
    ce: out.charEdits,
    we: out.wordEdits,
    raw_ce: rawCe,
    guard,
    failed,
    band: ocrCerBand(ocr.charEdits, ocr.refChars),
  };
}
