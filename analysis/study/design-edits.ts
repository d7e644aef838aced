/**
 * What the design files state of each line's character alignment and arms.json does not: the substitutions /
 * deletions / insertions of the OCR text and of rag's and zero_shot's outputs (metrics.json), and the OCR errors
 * rag and zero_shot fixed and introduced (error_changes.json, retrieval_analysis.json's category changes).
 * Measured by the arms analysis of the default arms on their aligned lines (./alignment.ts) under the primary
 * profile; kept with the analysis in memory, like ./design-figures.ts, never written to arms.json.
 *
 * A line is aligned once per text, with its edit operations. The OCR text and rag's output are aligned against
 * rag's gold, zero_shot's output against its own; zero_shot's error changes are anchored on rag's OCR errors and
 * exist only where its gold text in scoring form is rag's. A failed correction is the OCR text (its alignment
 * reused). A line too long to align never gets here: the arms analysis's scorer refuses it first, naming it
 * (analysis/score/profile-scores.ts).
 */
import type { CorrectionRecord } from '../../src/llm/records';
import { prepareText, scorePrepared, type EditCounts, type ScoringOptions } from '../../src/text/distance';
import { lineKey } from '../inputs/records';
import { anchorOps, compareErrors, type LineChange } from '../score/error-changes';
import { failureKind, scoredText } from '../score/failed-line';
import type { AlignedArms } from './alignment';

/** One line's alignments as the design files read them. */
export interface LineEdits {
  ocr: EditCounts;
  rag: EditCounts;
  /** Null without a zero_shot line. */
  zeroShot: EditCounts | null;
  ragChanges: LineChange;
  /** Null also without a zero_shot line or where its gold text is not rag's. */
  zeroShotChanges: LineChange | null;
}

/** Line key (dataset + sample_id) → its edits. */
export type DesignEdits = Map<string, LineEdits>;

type Prepared = ReturnType<typeof scorePrepared>;

/** The edits of rag's line `r` and zero_shot's line `z` of the same sample. */
export function lineEdits(r: CorrectionRecord, z: CorrectionRecord | null, prep: ScoringOptions): LineEdits {
  const g = prepareText(r.gt_text, prep);
  const o = prepareText(r.ocr_text, prep);
  const zGold = z ? prepareText(z.gt_text, prep) : g;
  const ocrA = scorePrepared(g, o, true);
  const ragHyp = prepareText(scoredText(r), prep);
  const ragA = failureKind(r) ? ocrA : scorePrepared(g, ragHyp, true);
  const zHyp = z ? prepareText(scoredText(z), prep) : null;
  let zA: Prepared | null = null;
  if (z) zA = failureKind(z) && z.ocr_text === r.ocr_text && zGold === g ? ocrA : scorePrepared(zGold, zHyp!, true);
  const before = anchorOps(g, o, ocrA.ops!);
  const changes = (a: Prepared, hyp: string) => compareErrors(before, a === ocrA ? before : anchorOps(g, hyp, a.ops!));
  return {
    ocr: ocrA.score.char,
    rag: ragA.score.char,
    zeroShot: zA?.score.char ?? null,
    ragChanges: changes(ragA, ragHyp),
    zeroShotChanges: zA && zGold === g ? changes(zA, zHyp!) : null,
  };
}

/** Every aligned line's edits of the rag arm, against the zero_shot arm's lines when `withZeroShot`. */
export function designEdits(aligned: AlignedArms, withZeroShot: boolean, prep: ScoringOptions): DesignEdits {
  const rag = aligned.lines.get('rag')!;
  const zs = withZeroShot ? aligned.lines.get('zero_shot')! : null;
  const out: DesignEdits = new Map();
  rag.forEach((l, i) => out.set(lineKey(aligned.datasets[i], aligned.sampleIds[i]), lineEdits(l.record, zs?.[i].record ?? null, prep)));
  return out;
}
