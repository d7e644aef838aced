/**
 * Match error rate, MER = (S + D + I) / (H + S + D + I), on characters (cMER) and on words (wMER): bounded by 1
 * however much a hypothesis inserts (CER is not). The counts are one alignment's (./match-counts.ts); texts come in
 * scoring form (./pair-score.ts `prepareText`). A pair with nothing to align (both empty) has MER 0.
 */
import { matchCounts, type MatchCounts } from './match-counts';
import { toCodePoints, toWords, wordIds } from './tokens';

export interface MerCounts {
  char: MatchCounts;
  word: MatchCounts;
}

/** Character and word counts of two texts already in scoring form. */
export function merCounts(ref: string, hyp: string): MerCounts {
  const [rw, hw] = wordIds(toWords(ref), toWords(hyp));
  return { char: matchCounts(toCodePoints(ref), toCodePoints(hyp)), word: matchCounts(rw, hw) };
}

/** S + D + I, the edits (the Levenshtein distance). */
export const merEdits = (c: MatchCounts): number => c.substitutions + c.deletions + c.insertions;

/** H + S + D + I, MER's denominator. */
export const merTotal = (c: MatchCounts): number => c.hits + merEdits(c);

/** MER of one count set (0 when there is nothing to align). */
export function mer(c: MatchCounts): number {
  const t = merTotal(c);
  return t === 0 ? 0 : merEdits(c) / t;
}
