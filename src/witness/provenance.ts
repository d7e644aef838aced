/**
 * Provenance of a retrieved hit relative to the OCR line it was retrieved for:
 *   same_passage — the hit holds the line's gold text: fitting the gold text into the hit costs at most 20 % of
 *                  the gold's characters (passageSimilarity ≥ SAME_PASSAGE_MIN_SIMILARITY = 0.8, on witness keys:
 *                  src/witness/key.ts — NFC, letters only, alef/yaa/taa marbuta/hamza seats unified);
 *   same_work    — otherwise, a hit from a version of the dataset's source work (its `source_pattern` matches the
 *                  hit's version URI or its work URI `NNNNAuthor.Title`);
 *   other_work   — any other hit of a dataset that declares its source;
 *   unknown_work — a hit that is not the passage, for a dataset without a declared source.
 * A line has "the gold passage in context" when any hit of its context is same_passage.
 */
import { CONTEXT_HEADER } from '../prompts/context';
import { globToRegExp } from '../util/glob';
import { substringEditDistance } from '../text/distance';
import { witnessKey } from './key';

export const SAME_PASSAGE_MIN_SIMILARITY = 0.8;
export const HIT_CLASSES = ['same_passage', 'same_work', 'other_work', 'unknown_work'] as const;
export type HitClass = (typeof HIT_CLASSES)[number];
/** A line's strongest hit class, or no_context when it had no hit. */
export type LineClass = HitClass | 'no_context';

/** 1 − (edits to fit the gold key into the hit key) / gold key length, in [0, 1]; 0 for an empty gold. */
export function passageSimilarity(gold: string, hitText: string): number {
  const g = witnessKey(gold);
  if (g.length === 0) return 0;
  return Math.max(0, 1 - substringEditDistance(g, witnessKey(hitText)).distance / g.length);
}

/** The work URI (`NNNNAuthor.Title`) of a version URI. */
export function workOf(uri: string): string {
  return uri.split('.').slice(0, 2).join('.');
}

export function hitClass(gold: string, hit: { text: string; source_uri: string }, sourcePattern: string | null): HitClass {
  if (passageSimilarity(gold, hit.text) >= SAME_PASSAGE_MIN_SIMILARITY) return 'same_passage';
  if (!sourcePattern) return 'unknown_work';
  const re = globToRegExp(sourcePattern);
  return re.test(hit.source_uri) || re.test(workOf(hit.source_uri)) ? 'same_work' : 'other_work';
}

/** The sentences of an exported retrieval context (numbered_arabic or plain, with or without `[#i]` citations). */
export function contextSentences(context: string): string[] {
  const lines = context.split('\n').filter((l) => l.trim() !== '');
  const body = lines[0]?.trim() === CONTEXT_HEADER ? lines.slice(1) : lines;
  return body.map((l) => l.replace(/^\d+\.\s+/, '').replace(/^\[#\d+\]\s*/, ''));
}

export interface LineProvenance {
  gold_in_context: boolean;
  best: LineClass;
  /** One class per hit, in context order. */
  classes: HitClass[];
}

const ORDER: Record<LineClass, number> = { same_passage: 0, same_work: 1, other_work: 2, unknown_work: 3, no_context: 4 };

/** Provenance of an inference_input record's context (hits paired with retrieval_sources in order). */
export function lineProvenance(
  r: { gt_text: string; retrieval_context?: string; retrieval_sources?: readonly { source_uri: string }[] },
  sourcePattern: string | null,
): LineProvenance {
  const sentences = contextSentences(r.retrieval_context ?? '');
  const sources = r.retrieval_sources ?? [];
  const classes = sentences.map((text, i) => hitClass(r.gt_text, { text, source_uri: sources[i]?.source_uri ?? '' }, sourcePattern));
  const best = classes.reduce<LineClass>((b, c) => (ORDER[c] < ORDER[b] ? c : b), 'no_context');
  return { gold_in_context: best === 'same_passage', best, classes };
}
