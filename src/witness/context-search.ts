/**
 * Witness search of an OCR line among its neighbours. An OCR line is not alone: the lines of a book come in page
 * order (a paired dir's sorted stems, docs/witness-context.md), and a witness of a page is contiguous text, so the
 * OCR lines before and after a line lie just before and after its passage. A short line ("بيت المقدس .") occurs
 * verbatim in many places of a large corpus, and alone its best spans tie.
 *
 * When the line alone is ambiguous (isAmbiguous), the keys of its neighbours and its own, in page order, are
 * searched as one query; the line's own span is then cut out of the best context span: the line's key fitted
 * (substringEditDistance) into the part of that span where, in proportion, the line lies, ± a slack. The cut span
 * comes first unless it aligns clearly worse (by more than TIE) than the line's best span alone; the line-alone
 * spans follow. Hits are always spans of the line itself, never of its neighbours.
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
/** Keys shorter than this many letters are ambiguous in a large corpus whatever their score. */
export const SHORT_KEY = 20;
/** A best span scoring below this is not trusted alone. */
export const CLEAR_SCORE = 0.85;
/** Scores closer than this count as a tie. */
export const TIE = 0.1;

/** Whether the line-alone spans (best first) leave its passage in doubt. */
export function isAmbiguous(spans: readonly WitnessSpan[], keyLength: number): boolean {
  if (spans.length === 0 || keyLength < SHORT_KEY || spans[0].score < CLEAR_SCORE) return true;
  return spans.length > 1 && spans[1].score >= spans[0].score - TIE;
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

/** The line's span inside a context span, `pre` key letters of neighbours before it in a query of `total`. */
function cutLine(idx: WitnessIndexData, span: WitnessSpan, q: Uint16Array, pre: number, total: number): WitnessSpan | null {
  const ratio = (span.end - span.start) / total;
  const slack = 8 + Math.ceil(q.length * 0.25);
  const [ws, we] = workBounds(idx, span.work);
  const from = Math.max(ws, Math.floor(span.start + pre * ratio) - slack);
  const to = Math.min(we, Math.ceil(span.start + (pre + q.length) * ratio) + slack);
  if (to <= from) return null;
  const hit = substringEditDistance(q, idx.text.subarray(from, to));
  return {
    work: span.work,
    start: from + hit.start,
    end: from + hit.end,
    distance: hit.distance,
    score: Math.max(0, 1 - hit.distance / q.length),
  };
}

/** Spans of a line's key (best first), its neighbours' keys resolving a line that alone is ambiguous. */
export function searchKeyInContext(
  idx: WitnessIndexData,
  line: { key: Uint16Array; before: readonly Uint16Array[]; after: readonly Uint16Array[] },
  k: number,
  opts: WitnessSearchOptions = {},
): WitnessSpan[] {
  const q = line.key;
  const minScore = opts.minScore ?? 0;
  const alone = searchKey(idx, q, Math.max(k, 2), { ...opts, minScore: 0 });
  const keep = (spans: WitnessSpan[]) => spans.filter((s) => s.score >= minScore).slice(0, k);
  const pre = concat([...line.before].reverse());
  const post = concat(line.after);
  if (q.length === 0 || pre.length + post.length === 0 || !isAmbiguous(alone, q.length)) return keep(alone);
  const context = concat([pre, q, post]);
  const [span] = searchKey(idx, context, 1, { ...opts, minScore: 0 });
  const cut = span ? cutLine(idx, span, q, pre.length, context.length) : null;
  if (!cut || cut.score < (alone[0]?.score ?? 0) - TIE) return keep(alone);
  return keep([cut, ...alone.filter((s) => !(s.start < cut.end && cut.start < s.end))]);
}

/** searchKeyInContext on the witness keys of an OCR line and its neighbours. */
export function searchInContext(idx: WitnessIndexData, line: LineInContext, k: number, opts: WitnessSearchOptions = {}): WitnessSpan[] {
  return searchKeyInContext(
    idx,
    { key: witnessKey(line.text), before: line.before.map(witnessKey), after: line.after.map(witnessKey) },
    k,
    opts,
  );
}
