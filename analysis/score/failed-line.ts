/**
 * The failed-line rule, the one place every scorer takes it from (docs/scoring.md): a correction with an `error`,
 * or an empty output for a non-empty OCR line, failed; a failed line is scored as its OCR text (corrected = OCR),
 * counted, never dropped. Used by the line scorers of both the arms and the design document's files, the
 * profiles, provenance, the "when" splits, the Lines view, the tidy table and the plan's pilot.
 */
import { isFailed, type CorrectionRecord } from '../../src/llm/records';

export type FailureKind = 'error' | 'empty_output';

type Scorable = Pick<CorrectionRecord, 'error' | 'corrected_text' | 'ocr_text'>;

/**
 * Whether a text's canonical form (src/text/canonical.ts) is empty. NFC maps no character that is not white space
 * to white space or to nothing, so that is exactly a text of white space alone: `trim` tells without normalising.
 */
export const isBlank = (text: string): boolean => text.trim() === '';

/** Why a correction counts as failed (null = usable). */
export function failureKind(r: Scorable): FailureKind | null {
  if (isFailed(r)) return 'error';
  if (isBlank(r.corrected_text) && !isBlank(r.ocr_text)) return 'empty_output';
  return null;
}

/** The text a line is scored by: its correction, or its OCR text when the correction failed. */
export function scoredText(r: Scorable): string {
  return failureKind(r) === null ? r.corrected_text : r.ocr_text;
}
