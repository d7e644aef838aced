/** One line of one arm scored against its gold text: output, raw (unguarded) output and OCR edits, and its OCR-CER band. */
import { isFailed } from '../src/llm/records';
import { prepareText, scoreDistances, type DistanceScore, type ScoringOptions } from '../src/text/distance';
import { unguardedOutput } from '../src/llm/guard';
import { armOcrBand, type ArmOcrBand } from './arm-counts';
import type { ArmLine } from './arms-inputs';
import { failureKind } from './score';

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
  band: ArmOcrBand;
}

/**
 * A failed correction scores as the OCR text (analysis/score.ts's rule); so does a failed raw output. `scored`:
 * the OCR text's and the output's scores and the gold text in scoring form under `prep` when they are already
 * known (analysis/profile-scores.ts).
 */
export function scoreArmLine(
  { record: r, rawText, guard }: ArmLine,
  prep: ScoringOptions,
  scored?: { ocr: DistanceScore; out: DistanceScore; gold: string },
): Omit<ArmRow, 'filled'> {
  const failed = failureKind(r) !== null;
  const hyp = failed ? r.ocr_text : r.corrected_text;
  const ocr = scored?.ocr ?? scoreDistances(r.gt_text, r.ocr_text, prep);
  const out = scored?.out ?? (hyp === r.ocr_text ? ocr : scoreDistances(r.gt_text, hyp, prep));
  let rawCe = out.charEdits;
  if (rawText !== null && rawText !== r.corrected_text) {
    const unguarded = unguardedOutput(rawText, r.ocr_text);
    const rawFailed = isFailed(r) || (unguarded.trim() === '' && r.ocr_text.trim() !== '');
    rawCe = rawFailed ? ocr.charEdits : scoreDistances(r.gt_text, unguarded, prep).charEdits;
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
    band: armOcrBand(ocr.charEdits, ocr.refChars),
  };
}
