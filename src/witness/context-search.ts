/**
 * Witness search of an OCR line among its neighbours. An OCR line is not alone: the lines of a book come in page
 * order (a paired dir's sorted stems, docs/witness-context.md), and a witness of a page is contiguous text, so the
 * OCR lines before and after a line lie just before and after its passage. A short line ("بيت المقدس .") occurs
 * verbatim in many places of a large corpus, and alone its best spans tie.
 *
 * When the line alone is ambiguous (isAmbiguous), its neighbours place it. A neighbour whose own best span is
 * unambiguous (anchorSpan) is an anchor: the line's key is fitted (substringEditDistance) just after the anchor
 * before it and just before the anchor after it, and the better fit is the line's span. Neighbours' searches are
 * the same alone searches a line gets as a query, so a caller that memoises them (WitnessRetriever) pays about
 * one search per line. Without an anchor, the keys of the neighbours and the line, in page order, are searched as
 * one query and the line's span is cut out of the best context span where, in proportion, it lies (± a slack).
 * The placed span comes first unless it aligns clearly worse (by more than TIE) than the line's best span alone;
 * the line-alone spans follow. Hits are always spans of the line itself, never of its neighbours.
 */
import { substringEditDistance } from '../text/distance';
import type { WitnessIndexData } from './build';
import { witnessKey } from './key';
import { searchKey, workBounds, type WitnessSearchOptions, type WitnessSpan } from './search';

/** An OCR line with the OCR lines around it, nearest first on each side. */
export interface LineInContext {
  text: string;
  before: readonly string[];
  after: readonly string[];
}

/** OCR lines on each side of a line that witness retrieval searches with it (the export's neighbours). */
export const WITNESS_CONTEXT_LINES = 1;
/** Names this placement rule in the witness export retriever's fingerprint (src/stages/witness/witness-index.ts). */
export const WITNESS_CONTEXT_RULE = 'anchor-or-context:tie-in-work';
/** Keys shorter than this many letters are ambiguous in a large corpus whatever their score. */
export const SHORT_KEY = 20;
/** A best span scoring below this is not trusted alone. */
export const CLEAR_SCORE = 0.85;
/** Scores closer than this count as a tie. */
export const TIE = 0.1;
/** A neighbour whose unambiguous best span scores at least this anchors the line next to it. */
export const ANCHOR_MIN_SCORE = 0.5;

/**
 * Whether another place of the best span's work aligns nearly as well. A near tie in another work is not one:
 * the versions of a work (and the works quoting it) are witnesses of the same passage.
 */
function tiedInWork(spans: readonly WitnessSpan[]): boolean {
  return spans.slice(1).some((s) => s.work === spans[0].work && s.score >= spans[0].score - TIE);
}

/** Whether the line-alone spans (best first) leave its passage in doubt. */
export function isAmbiguous(spans: readonly WitnessSpan[], keyLength: number): boolean {
  if (spans.length === 0 || keyLength < SHORT_KEY || spans[0].score < CLEAR_SCORE) return true;
  return tiedInWork(spans);
}

/** The lines of a text in order, each with up to `width` neighbours on each side. */
export function linesInContext(texts: readonly string[], width: number): LineInContext[] {
  return texts.map((text, i) => ({
    text,
    before: texts.slice(Math.max(0, i - width), i).reverse(),
    after: texts.slice(i + 1, i + 1 + width),
  }));
}

function concat(keys: readonly Uint16Array[]): Uint16Array {
  const out = new Uint16Array(keys.reduce((s, k) => s + k.length, 0));
  let at = 0;
  for (const k of keys) {
    out.set(k, at);
    at += k.length;
  }
  return out;
}

/**
 * What the placement asks of an index: a line's alone search (memoised by the caller), the search of a whole
 * context, and the best fit of a key into key offsets [from, to) of a work. One index answers directly; a sharded
 * index answers from its shards (src/witness/sharded-search.ts).
 */
export interface SpanOracle {
  alone: AloneSearch;
  contextSearch(key: Uint16Array): WitnessSpan[];
  fitIn(work: number, q: Uint16Array, from: number, to: number): WitnessSpan | null;
}

/** The best fit of the line's key into key offsets [from, to) of a work. */
export function fitIn(idx: WitnessIndexData, work: number, q: Uint16Array, from: number, to: number): WitnessSpan | null {
  const [ws, we] = workBounds(idx, work);
  const a = Math.max(ws, Math.floor(from));
  const b = Math.min(we, Math.ceil(to));
  if (b <= a) return null;
  const hit = substringEditDistance(q, idx.text.subarray(a, b));
  return { work, start: a + hit.start, end: a + hit.end, distance: hit.distance, score: Math.max(0, 1 - hit.distance / q.length) };
}

/** The best span of the line's key inside a context span, `pre` key letters of neighbours before it in a query of `total`. */
function cutLine(o: SpanOracle, span: WitnessSpan, q: Uint16Array, pre: number, total: number): WitnessSpan | null {
  const ratio = (span.end - span.start) / total;
  const slack = 8 + Math.ceil(q.length * 0.25);
  return o.fitIn(span.work, q, span.start + pre * ratio - slack, span.start + (pre + q.length) * ratio + slack);
}

/** A neighbour's best span when it is unambiguous (a long key, a real alignment, no near tie in its work): where the page is. */
function anchorSpan(spans: readonly WitnessSpan[], keyLength: number): WitnessSpan | null {
  if (keyLength < SHORT_KEY || spans.length === 0 || spans[0].score < ANCHOR_MIN_SCORE) return null;
  return tiedInWork(spans) ? null : spans[0];
}

/** Alone search of a key (memoised by the caller: a line's neighbour is the next query). */
export type AloneSearch = (key: Uint16Array) => WitnessSpan[];

/**
 * The line's span next to its nearest anchored neighbour on each side: after the one before it, before the one after
 * it, skipping unanchored neighbours' letters (kept as extra room); the better of the two fits, or null.
 */
function anchoredFit(
  o: SpanOracle,
  q: Uint16Array,
  line: { before: readonly Uint16Array[]; after: readonly Uint16Array[] },
): WitnessSpan | null {
  const alone = o.alone;
  const slack = 8 + Math.ceil(q.length * 0.25);
  const fits: (WitnessSpan | null)[] = [];
  let skipped = 0;
  for (const key of line.before) {
    const a = anchorSpan(alone(key), key.length);
    if (a) {
      fits.push(o.fitIn(a.work, q, a.end + skipped * 0.8 - slack, a.end + (skipped + q.length) * 1.25 + slack));
      break;
    }
    skipped += key.length;
  }
  skipped = 0;
  for (const key of line.after) {
    const a = anchorSpan(alone(key), key.length);
    if (a) {
      fits.push(o.fitIn(a.work, q, a.start - (skipped + q.length) * 1.25 - slack, a.start - skipped * 0.8 + slack));
      break;
    }
    skipped += key.length;
  }
  const found = fits.filter((f): f is WitnessSpan => f !== null);
  return found.length === 0 ? null : found.reduce((b, f) => (f.score > b.score ? f : b));
}

/** The line's span among its neighbours: next to an anchored neighbour, else cut out of a search of the whole context. */
function placedSpan(
  o: SpanOracle,
  line: { key: Uint16Array; before: readonly Uint16Array[]; after: readonly Uint16Array[] },
): WitnessSpan | null {
  const q = line.key;
  const anchored = anchoredFit(o, q, line);
  if (anchored) return anchored;
  const pre = concat([...line.before].reverse());
  const post = concat(line.after);
  const context = concat([pre, q, post]);
  const [span] = o.contextSearch(context);
  return span ? cutLine(o, span, q, pre.length, context.length) : null;
}

/** Spans of a line's key (best first), its neighbours resolving a line that alone is ambiguous. */
export function searchKeyInContext(
  idx: WitnessIndexData,
  line: { key: Uint16Array; before: readonly Uint16Array[]; after: readonly Uint16Array[] },
  k: number,
  opts: WitnessSearchOptions = {},
  alone: AloneSearch = (key) => searchKey(idx, key, Math.max(k, 2), { ...opts, minScore: 0 }),
): WitnessSpan[] {
  const oracle: SpanOracle = {
    alone,
    contextSearch: (key) => searchKey(idx, key, 1, { ...opts, minScore: 0 }),
    fitIn: (work, q, from, to) => fitIn(idx, work, q, from, to),
  };
  return placeLine(oracle, line, k, opts.minScore ?? 0);
}

/** Spans of a line's key (best first) from any oracle: the rule of searchKeyInContext. */
export function placeLine(
  o: SpanOracle,
  line: { key: Uint16Array; before: readonly Uint16Array[]; after: readonly Uint16Array[] },
  k: number,
  minScore: number,
): WitnessSpan[] {
  const q = line.key;
  const spans = o.alone(q);
  const keep = (list: WitnessSpan[]) => list.filter((s) => s.score >= minScore).slice(0, k);
  const hasNeighbours = line.before.some((b) => b.length > 0) || line.after.some((a) => a.length > 0);
  if (q.length === 0 || !hasNeighbours || !isAmbiguous(spans, q.length)) return keep(spans);
  const cut = placedSpan(o, line);
  if (!cut || cut.score < (spans[0]?.score ?? 0) - TIE) return keep(spans);
  return keep([cut, ...spans.filter((s) => !(s.start < cut.end && cut.start < s.end))]);
}

/** searchKeyInContext on the witness keys of an OCR line and its neighbours. */
export function searchInContext(
  idx: WitnessIndexData,
  line: LineInContext,
  k: number,
  opts: WitnessSearchOptions = {},
  alone?: AloneSearch,
): WitnessSpan[] {
  return searchKeyInContext(
    idx,
    { key: witnessKey(line.text), before: line.before.map(witnessKey), after: line.after.map(witnessKey) },
    k,
    opts,
    alone,
  );
}
