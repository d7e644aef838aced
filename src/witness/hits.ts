/**
 * From an aligned key span to what a prompt and a reader need: the edition's own text of the span
 * (NFC, diacritics kept, widened to whole words, lines joined by a space), its work, physical lines and
 * page / milestone marker, and the alignment score.
 */
import type { WitnessIndexData } from './build';
import { keyWithOffsets } from './key';
import { lineAt, type WitnessSpan } from './search';

/** NFC text of a line by its number in the index (in memory, or read from the index's lines file). */
export interface LineTexts {
  get(line: number): string;
}

export interface WitnessHit {
  /** The aligned passage in the edition's text. */
  text: string;
  source_uri: string;
  date: number | null;
  /** Alignment score: 1 − edits / query key length. */
  score: number;
  distance: number;
  /** 1 = best. */
  rank: number;
  /** Index line of the span's first line (the hit's `idx`: stable for one index). */
  idx: number;
  /** Physical lines of the source file the span covers. */
  line: number;
  line_end: number;
  /** Page marker (`PageV01P005`) and milestone (`ms12`) of the span's first line, when the work has them. */
  page: string | null;
  ms: string | null;
  /** Key offsets of the span in the index (for overlap tests). */
  key_start: number;
  key_end: number;
}

const SPACE = /\s/u;

/** The part of one line's NFC text that key offsets [ks, ke) of that line cover, widened to whole words. */
function linePart(nfcLine: string, ks: number, ke: number): string {
  const { from, nfc } = keyWithOffsets(nfcLine);
  if (from.length === 0 || ke <= ks) return '';
  let s = from[Math.min(ks, from.length - 1)];
  let e = from[Math.min(ke, from.length) - 1] + 1;
  while (s > 0 && !SPACE.test(nfc[s - 1])) s--;
  while (e < nfc.length && !SPACE.test(nfc[e])) e++;
  return nfc.slice(s, e).trim();
}

/** The hit for an aligned span (rank given by the caller). */
export function spanToHit(idx: WitnessIndexData, texts: LineTexts, span: WitnessSpan, rank: number): WitnessHit {
  const first = lineAt(idx, span.start);
  const last = Math.max(first, lineAt(idx, Math.max(span.start, span.end - 1)));
  const parts: string[] = [];
  for (let l = first; l <= last; l++) {
    const ls = idx.lineStart[l];
    const part = linePart(texts.get(l), Math.max(0, span.start - ls), Math.min(idx.lineStart[l + 1], span.end) - ls);
    if (part) parts.push(part);
  }
  const work = idx.works[span.work];
  const label = (i: number) => (i < 0 ? null : idx.labels[i]);
  return {
    text: parts.join(' '),
    source_uri: work.uri,
    date: work.date,
    score: Number(span.score.toFixed(4)),
    distance: span.distance,
    rank,
    idx: first,
    line: idx.lineNo[first],
    line_end: idx.lineNo[last],
    page: label(idx.linePage[first]),
    ms: label(idx.lineMs[first]),
    key_start: span.start,
    key_end: span.end,
  };
}
