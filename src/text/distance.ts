/**
 * Text distances: the one Levenshtein alignment routine behind CER / WER (and behind the analysis's
 * error_changes.json), its distance-only fast path, CER / WER counting over lines and corpora, and the
 * semi-global (substring) edit distance the retrieval reranker fits OCR lines into corpus text with.
 *
 * Definitions (binding for every number the analysis writes):
 * - Texts are scored in canonical form (./canonical: Unicode NFC, trimmed, every whitespace run collapsed to one
 *   space; `collapseWhitespace: false` keeps inner whitespace as is; word tokens are the same either way), then
 *   under a normalisation profile (./profiles) when one is given.
 * - CER = Levenshtein distance over Unicode code points (over grapheme clusters under a `grapheme` profile);
 *   WER = the same over space-separated tokens.
 * - Corpus-level rates are summed edits / summed reference length (what `jiwer.cer(list, list)` computes);
 *   the per-line mean is reported beside them and skips lines with an empty reference.
 *
 * `bench/metrics-vs-jiwer.ts` checks agreement with Python jiwer on all OCR_GS lines.
 */
export {
  alignSequences,
  MAX_ALIGNMENT_CELLS,
  OP_DEL,
  OP_INS,
  OP_MATCH,
  OP_SUB,
  SPACE,
  type AlignOptions,
  type Alignment,
  type EditCounts,
  type EditOp,
} from './alignment';
export { levenshtein } from './levenshtein';
export { substringEditDistance, type SubstringMatch } from './substring-distance';
export {
  charUnits,
  prepareText,
  referenceScorer,
  scoreDistances,
  scorePair,
  scorePrepared,
  type DistanceScore,
  type PairScore,
  type PreparedScore,
  type ReferenceScorer,
  type ScoringOptions,
} from './pair-score';
export { cer, ErrorRateAccumulator, wer, type RateSummary } from './error-rates';
