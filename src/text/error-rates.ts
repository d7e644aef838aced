/** Corpus-level CER and WER: summed edits / summed reference length, with the per-line mean beside them. */
import type { EditCounts } from './alignment';
import { scorePair, type PairScore, type ScoringOptions } from './pair-score';

export interface RateSummary {
  /** Summed edits / summed reference length (null when the reference is empty). */
  rate: number | null;
  edits: number;
  ref_length: number;
  /** Mean of per-line rates over lines with a non-empty reference. */
  mean_per_line: number | null;
  /** Edit breakdown (characters only; null for words, which are scored by distance). */
  substitutions: number | null;
  deletions: number | null;
  insertions: number | null;
}

/** Accumulates pair scores into corpus-level CER and WER. */
export class ErrorRateAccumulator {
  lines = 0;
  emptyReference = 0;
  private c = zeroSums();
  private w = zeroSums();

  add(p: PairScore): void {
    this.lines++;
    if (p.refChars === 0) this.emptyReference++;
    addSums(this.c, p.char, p.refChars);
    addSums(this.w, { distance: p.wordEdits, substitutions: 0, deletions: 0, insertions: 0, hits: 0 }, p.refWords);
  }

  get cer(): RateSummary {
    return summarize(this.c, true);
  }
  get wer(): RateSummary {
    return summarize(this.w, false);
  }
}

interface Sums {
  edits: number;
  ref: number;
  s: number;
  d: number;
  i: number;
  lineRateSum: number;
  linesWithRef: number;
}
function zeroSums(): Sums {
  return { edits: 0, ref: 0, s: 0, d: 0, i: 0, lineRateSum: 0, linesWithRef: 0 };
}
function addSums(t: Sums, e: EditCounts, refLen: number): void {
  t.edits += e.distance;
  t.ref += refLen;
  t.s += e.substitutions;
  t.d += e.deletions;
  t.i += e.insertions;
  if (refLen > 0) {
    t.lineRateSum += e.distance / refLen;
    t.linesWithRef++;
  }
}
function summarize(t: Sums, breakdown: boolean): RateSummary {
  return {
    rate: t.ref > 0 ? t.edits / t.ref : null,
    edits: t.edits,
    ref_length: t.ref,
    mean_per_line: t.linesWithRef > 0 ? t.lineRateSum / t.linesWithRef : null,
    substitutions: breakdown ? t.s : null,
    deletions: breakdown ? t.d : null,
    insertions: breakdown ? t.i : null,
  };
}

/** Corpus-level CER of parallel lists (summed edits / summed reference characters). */
export function cer(refs: readonly string[], hyps: readonly string[], opts: ScoringOptions = {}): number {
  return corpus(refs, hyps, opts).cer.rate ?? 0;
}

/** Corpus-level WER of parallel lists (summed edits / summed reference words). */
export function wer(refs: readonly string[], hyps: readonly string[], opts: ScoringOptions = {}): number {
  return corpus(refs, hyps, opts).wer.rate ?? 0;
}

function corpus(refs: readonly string[], hyps: readonly string[], opts: ScoringOptions): ErrorRateAccumulator {
  if (refs.length !== hyps.length) throw new Error(`cer/wer: ${refs.length} references but ${hyps.length} hypotheses`);
  const acc = new ErrorRateAccumulator();
  for (let k = 0; k < refs.length; k++) acc.add(scorePair(refs[k], hyps[k], opts));
  return acc;
}
