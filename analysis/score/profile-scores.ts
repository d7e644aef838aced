/**
 * Every aligned line of every arm and replicate (analysis/study/alignment.ts) scored under every normalisation
 * profile, once: arms.json's figures (./arm-line.ts), its `profiles` list (analysis/study/profiles.ts)
 * and the tidy table (analysis/tidy/rows.ts) all read these counts, so no text is scored twice. The same scoring
 * as everywhere in the analysis (src/text/distance.ts `scoreDistances`): a failed line scores as its OCR text.
 *
 * The lines are scored line by line across the arms, so a line's gold text is prepared once per profile and an
 * output several arms share (the OCR text, the gold text, the same correction) is scored once; nothing of a line
 * is kept after it is scored but its counts. A line too far from its gold and too long to align (the MER counts
 * align every line) stops the analysis with an error naming its arm, dataset and sample_id.
 */
import { referenceScorer, type ReferenceScorer } from '../../src/text/distance';
import { textFormKey, type NormalizationProfile } from '../../src/text/profiles';
import type { AlignedLine } from '../study/alignment';
import { scoredText } from './failed-line';
import { merCounts, merTotal } from '../../src/text/mer';

/** The counts of one line list (an arm or one of its replicates) under one profile, per line. */
export interface ProfileCounts {
  /** Character edits of the scored output (the OCR text for a failed line). */
  ce: Int32Array;
  refChars: Int32Array;
  we: Int32Array;
  refWords: Int32Array;
  /** Character and word edits of the OCR text. */
  ocrCe: Int32Array;
  ocrWe: Int32Array;
  /**
   * MER denominators H + S + D + I (src/text/mer.ts) of the scored output and of the OCR text, characters and
   * words: counted under the first profile only (the primary one), zero under the others.
   */
  ct: Int32Array;
  wt: Int32Array;
  ocrCt: Int32Array;
  ocrWt: Int32Array;
}

/** Line list name (analysis/study/replicates.ts replicateName for a replicate) → counts per profile, in `profiles` order. */
export type ProfileScores = Map<string, ProfileCounts[]>;

/** What scoreProfiles gives: the counts, and each list's gold texts in the first profile's scoring form. */
export interface ScoredLines {
  scores: ProfileScores;
  golds: Map<string, string[]>;
}

const counts = (n: number): ProfileCounts => ({
  ce: new Int32Array(n),
  refChars: new Int32Array(n),
  we: new Int32Array(n),
  refWords: new Int32Array(n),
  ocrCe: new Int32Array(n),
  ocrWe: new Int32Array(n),
  ct: new Int32Array(n),
  wt: new Int32Array(n),
  ocrCt: new Int32Array(n),
  ocrWt: new Int32Array(n),
});

/** MER denominators of a line's outputs against one gold text, each output form counted once. */
function merTotals(): (gold: string, form: string) => [number, number] {
  const seen = new Map<string, [number, number]>();
  return (gold, form) => {
    const key = `${gold}\u0000${form}`;
    let t = seen.get(key);
    if (!t) {
      const c = merCounts(gold, form);
      seen.set(key, (t = [merTotal(c.char), merTotal(c.word)]));
    }
    return t;
  };
}

/** A line whose texts are too far apart and too long to align (src/text/alignment.ts MAX_ALIGNMENT_CELLS), named. */
function tooLong(arm: string, l: AlignedLine, err: RangeError): Error {
  const { dataset, sample_id } = l.record;
  return new Error(
    `arm ${arm}, dataset ${dataset}, sample_id ${sample_id}: ${err.message}; the analysis aligns every line, so remove or shorten it`,
  );
}

/** Score every list of `lines` (all of the same length) under every profile. */
export function scoreProfiles(
  lines: ReadonlyMap<string, AlignedLine[]>,
  profiles: readonly NormalizationProfile[],
  collapseWhitespace: boolean,
): ScoredLines {
  const lists = [...lines];
  const n = lists[0]?.[1].length ?? 0;
  const out: ProfileScores = new Map(lists.map(([name]) => [name, profiles.map(() => counts(n))]));
  const golds = new Map(lists.map(([name]): [string, string[]] => [name, new Array<string>(n)]));
  // A profile that prepares text like an earlier one (the same removals and replacements) takes its prepared
  // texts and word distances: only its characters are counted apart.
  const textForm = textFormKey;
  const twinOf = profiles.map((p, k) => profiles.findIndex((q, j) => j < k && textForm(q) === textForm(p)));
  for (let i = 0; i < n; i++) {
    const scorers = profiles.map(() => new Map<string, ReferenceScorer>());
    const totals = merTotals();
    profiles.forEach((profile, p) => {
      for (const [name, list] of lists) {
        const l = list[i];
        const gt = l.record.gt_text;
        let ref = scorers[p].get(gt);
        if (!ref) {
          const twin = twinOf[p] >= 0 ? scorers[twinOf[p]].get(gt) : undefined;
          scorers[p].set(gt, (ref = referenceScorer(gt, { collapseWhitespace, profile }, twin)));
        }
        if (p === 0) golds.get(name)![i] = ref.prepared;
        const ocr = ref.score(l.record.ocr_text);
        const s = ref.score(scoredText(l.record));
        const c = out.get(name)![p];
        c.ce[i] = s.charEdits;
        c.refChars[i] = s.refChars;
        c.we[i] = s.wordEdits;
        c.refWords[i] = s.refWords;
        c.ocrCe[i] = ocr.charEdits;
        c.ocrWe[i] = ocr.wordEdits;
        if (p === 0) {
          try {
            [c.ocrCt[i], c.ocrWt[i]] = totals(ref.prepared, ref.form(l.record.ocr_text));
            [c.ct[i], c.wt[i]] = totals(ref.prepared, ref.form(scoredText(l.record)));
          } catch (err) {
            throw err instanceof RangeError ? tooLong(name, l, err) : err;
          }
        }
      }
    });
  }
  return { scores: out, golds };
}
