/**
 * The `collate` corrector (docs/correctors.md): correct an OCR line by collating it with its witnesses — the
 * passages of other copies of the same text that the arm's retrieval brought (witness mode, or any mode's hits).
 * Each hit is fitted to the line (./witness-fit.ts); a hit whose fit reaches `min_similarity` (chosen on the dev
 * split of OCR_GS, bench/baselines.ts) is a witness. No witness: the OCR line stays. One: its span replaces the
 * line. Several: a per-character vote over the OCR line and the witnesses (./vote.ts). Identical spans (two
 * versions of one edition) count once. Every line records which witnesses were used and why.
 */
import { canonical } from '../text/canonical';
import { voteCharacters } from './vote';
import { fitWitness } from './witness-fit';

export const COLLATE_VERSION = '1';
export const COLLATE_MODEL = `collate@${COLLATE_VERSION}`;
/**
 * The lowest witness similarity (1 − edits / OCR key length) that counts as a witness: the threshold with the
 * lowest CER on the dev split (every fifth OCR_GS line), chosen by bench/baselines.ts.
 */
export const DEFAULT_COLLATE_MIN_SIMILARITY = 0.7;

export interface CollateHit {
  text: string;
  source_uri: string;
}

export type CollateReason = 'no_hit' | 'below_threshold' | 'one_witness' | 'vote';

/** What the corrector did with one line (written beside the correction as its `collation`). */
export interface CollateDecision {
  text: string;
  reason: CollateReason;
  /** The best hit's similarity (null without a hit). */
  best_similarity: number | null;
  /** The witnesses used, best first: hit rank (1 = first hit), source and similarity. */
  witnesses: { rank: number; source_uri: string; similarity: number }[];
}

const round = (x: number) => Number(x.toFixed(4));

/**
 * Collate `ocr` with `hits` (the arm's context, best first). `vote: false` takes the best witness alone even when
 * there are several (bench/baselines.ts reports it beside the vote).
 */
export function collateLine(
  ocr: string,
  hits: readonly CollateHit[],
  minSimilarity = DEFAULT_COLLATE_MIN_SIMILARITY,
  vote = true,
): CollateDecision {
  const line = canonical(ocr);
  const fits = hits.map((h, i) => ({ rank: i + 1, source_uri: h.source_uri, ...fitWitness(line, h.text) }));
  if (fits.length === 0) return { text: line, reason: 'no_hit', best_similarity: null, witnesses: [] };
  const best = Math.max(...fits.map((f) => f.similarity));
  const seen = new Set<string>();
  const used = fits
    .filter((f) => f.similarity >= minSimilarity && f.span !== '')
    .sort((a, b) => b.similarity - a.similarity || a.rank - b.rank)
    .filter((f) => {
      const span = canonical(f.span);
      if (seen.has(span)) return false;
      seen.add(span);
      return true;
    });
  if (used.length === 0) return { text: line, reason: 'below_threshold', best_similarity: round(best), witnesses: [] };
  const voters = vote ? used : used.slice(0, 1);
  const spans = voters.map((f) => canonical(f.span));
  return {
    text: voters.length === 1 ? spans[0] : voteCharacters(line, spans),
    reason: voters.length === 1 ? 'one_witness' : 'vote',
    best_similarity: round(best),
    witnesses: voters.map((f) => ({ rank: f.rank, source_uri: f.source_uri, similarity: round(f.similarity) })),
  };
}
