/**
 * Witness retrieval judged on real OCR lines whose printed book has a digital edition in the corpus.
 *
 * True source passage of a line: the span of the source work (any of its versions) that best matches the
 * line's GOLD text — found by witness search of the gold text — and, in each other version, its best span
 * when that one is the same passage too (gold score ≥ SAME_PASSAGE_MIN, the provenance threshold): several
 * versions of one work are several witnesses of the same passage, differing by a word or a spelling. A
 * retrieved hit is correct when it overlaps a true passage of its own version (key offsets for witness
 * hits; for sentence hits of another retriever, when its physical line lies in the passage's lines).
 */
import { globToRegExp } from '../util/glob';
import type { WitnessIndexData } from './build';
import { spanToHit, type LineTexts } from './hits';
import { searchInContext } from './context-search';
import { searchText, type WitnessSpan } from './search';

export interface TruePassage {
  uri: string;
  work: number;
  key_start: number;
  key_end: number;
  /** Physical lines the passage covers in its file. */
  line: number;
  line_end: number;
  /** Witness score of the gold text against it. */
  score: number;
}

/** Witness score (1 − edits / gold key length) from which a span is the gold line's passage. */
export const SAME_PASSAGE_MIN = 0.8;

/**
 * The true source passages of a gold line among the works matching `sourcePattern` (empty: not found). With
 * `neighbours` (the gold lines before and after it, nearest first), a gold line that alone is ambiguous (a short
 * line found verbatim in several places of its work, src/witness/context-search.ts) has its passage where its
 * neighbours' gold text puts it; without, ties go to the earliest position in the work.
 */
export function truePassages(
  idx: WitnessIndexData,
  texts: LineTexts,
  gold: string,
  sourcePattern: string,
  neighbours?: { before: readonly string[]; after: readonly string[] },
): TruePassage[] {
  const re = globToRegExp(sourcePattern);
  const opts = { candidates: 32 };
  const found = neighbours ? searchInContext(idx, { text: gold, ...neighbours }, 24, opts) : searchText(idx, gold, 24, opts);
  const spans = found.filter((s) => re.test(idx.works[s.work].uri));
  const best = new Map<number, WitnessSpan>();
  for (const s of spans) if (!best.has(s.work) || best.get(s.work)!.score < s.score) best.set(s.work, s);
  const top = Math.max(0, ...[...best.values()].map((s) => s.score));
  return [...best.values()]
    .filter((s) => s.score > 0 && (s.score === top || s.score >= SAME_PASSAGE_MIN))
    .map((s) => {
      const h = spanToHit(idx, texts, s, 1);
      return { uri: h.source_uri, work: s.work, key_start: s.start, key_end: s.end, line: h.line, line_end: h.line_end, score: h.score };
    });
}

/** Whether a witness hit (key span in a work) overlaps a true passage. */
export function witnessHitCorrect(hit: { source_uri: string; key_start: number; key_end: number }, truth: readonly TruePassage[]): boolean {
  return truth.some((t) => t.uri === hit.source_uri && hit.key_start < t.key_end && t.key_start < hit.key_end);
}

/** Whether a hit's physical lines (line..line_end) overlap a true passage's in the same file (indexes of other works agree on lines). */
export function lineSpanCorrect(hit: { source_uri: string; line: number; line_end: number }, truth: readonly TruePassage[]): boolean {
  return truth.some((t) => t.uri === hit.source_uri && hit.line <= t.line_end && t.line <= hit.line_end);
}

/** Whether a sentence hit (source file and physical line) lies in a true passage. */
export function lineHitCorrect(hit: { source_uri: string; line: number | null }, truth: readonly TruePassage[]): boolean {
  return hit.line !== null && truth.some((t) => t.uri === hit.source_uri && hit.line! >= t.line && hit.line! <= t.line_end);
}

/** 1-based rank of the first correct hit, or null. */
export function firstCorrectRank<T>(hits: readonly T[], correct: (h: T) => boolean): number | null {
  const i = hits.findIndex(correct);
  return i < 0 ? null : i + 1;
}

/** recall@k over ranks (null = missed). */
export function recallAt(ranks: readonly (number | null)[], k: number): number {
  return ranks.length === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / ranks.length;
}
