/**
 * One line's counts under every normalisation profile, as ./profile-scores.ts `scoreProfiles` gives them, keyed by
 * (dataset, sample_id): the arms analysis's counts of an arm (`armLineCounts`). The design document's rows (analysis/documents/pair-rows.ts) take every CER/WER count from
 * these, so its files and arms.json count one line one way: the output (the OCR text for a failed line,
 * ./failed-line.ts) and the OCR text against the record's own gold text.
 */
import { isFailed, type CorrectionRecord } from '../../src/llm/records';
import type { DistanceScore } from '../../src/text/distance';
import type { AlignedLine } from '../study/alignment';
import type { ProfileCounts } from './profile-scores';
import { lineKey } from '../inputs/records';

/** A line's distances per profile (in profile order): its OCR text's and its scored output's. */
export interface LineCounts {
  /** The record counted: a line is taken from another analysis only when its texts are these. */
  record: Pick<CorrectionRecord, 'sample_id' | 'gt_text' | 'ocr_text' | 'corrected_text' | 'error'>;
  ocr: DistanceScore[];
  out: DistanceScore[];
}

/** (dataset, sample_id) → the line's counts. */
export type ArmLineCounts = Map<string, LineCounts>;

/** Line `i`'s counts out of scoreProfiles' per-profile arrays. */
function countsAt(profiles: readonly ProfileCounts[], i: number): Pick<LineCounts, 'ocr' | 'out'> {
  return {
    ocr: profiles.map((c) => ({ charEdits: c.ocrCe[i], refChars: c.refChars[i], wordEdits: c.ocrWe[i], refWords: c.refWords[i] })),
    out: profiles.map((c) => ({ charEdits: c.ce[i], refChars: c.refChars[i], wordEdits: c.we[i], refWords: c.refWords[i] })),
  };
}

/** One arm's lines as the arms analysis counted them; a line the arm lacked (scored as the OCR text) is left out. */
export function armLineCounts(
  lines: readonly AlignedLine[],
  datasets: readonly string[],
  sampleIds: readonly string[],
  profiles: readonly ProfileCounts[],
): ArmLineCounts {
  const out: ArmLineCounts = new Map();
  lines.forEach((l, i) => {
    if (!l.filled) out.set(lineKey(datasets[i], sampleIds[i]), { record: l.record, ...countsAt(profiles, i) });
  });
  return out;
}

/** The same texts: a line counted elsewhere stands for this record. */
export function sameTexts(a: LineCounts['record'], b: LineCounts['record']): boolean {
  return a.gt_text === b.gt_text && a.ocr_text === b.ocr_text && a.corrected_text === b.corrected_text && isFailed(a) === isFailed(b);
}
