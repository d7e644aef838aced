/**
 * Verbatim-gold retrieval: did the retrieved context contain the line's own gold text? A line counts when its
 * normalised gold line (src/text/arabic `normalizeArabic`: NFC first, so a decomposed hamza in the gold file
 * matches the composed one of OpenITI, then diacritics, tatweel, alef forms, ى, ة) matches some span of the
 * normalised context with character similarity ≥ 0.9 (1 − fitting edit distance / gold length,
 * `substringEditDistance` of src/text/distance). A high rate means the corpus leaks the OCR books' own text.
 */
import { normalizeArabic } from '../text/arabic';
import { substringEditDistance } from '../text/distance';

export const VERBATIM_THRESHOLD = 0.9;

const codePoints = (s: string) => Array.from(s, (c) => c.codePointAt(0) as number);

/** Similarity of the gold line to its best-matching span of the context, in [0, 1] (0 for an empty context or gold). */
export function goldSimilarity(gold: string, context: string): number {
  const g = codePoints(normalizeArabic(gold));
  const c = codePoints(normalizeArabic(context));
  if (g.length === 0 || c.length === 0) return 0;
  return Math.max(0, 1 - substringEditDistance(g, c).distance / g.length);
}

export function isVerbatimGold(gold: string, context: string, threshold = VERBATIM_THRESHOLD): boolean {
  return goldSimilarity(gold, context) >= threshold;
}

export interface VerbatimRate {
  lines: number;
  hits: number;
  /** hits / lines (null without lines). */
  rate: number | null;
}

/** The rate over records, overall and per dataset. */
export function verbatimGoldRate(
  records: Iterable<{ dataset: string; gt_text: string; retrieval_context: string }>,
): VerbatimRate & { by_dataset: Record<string, VerbatimRate> } {
  const total = { lines: 0, hits: 0 };
  const per = new Map<string, { lines: number; hits: number }>();
  for (const r of records) {
    const d = per.get(r.dataset) ?? { lines: 0, hits: 0 };
    per.set(r.dataset, d);
    const hit = r.retrieval_context !== '' && isVerbatimGold(r.gt_text, r.retrieval_context) ? 1 : 0;
    d.lines++;
    d.hits += hit;
    total.lines++;
    total.hits += hit;
  }
  const withRate = (x: { lines: number; hits: number }): VerbatimRate => ({ ...x, rate: x.lines ? x.hits / x.lines : null });
  return { ...withRate(total), by_dataset: Object.fromEntries([...per].map(([k, v]) => [k, withRate(v)])) };
}
