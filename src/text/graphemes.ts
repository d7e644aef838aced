/**
 * Display units of a text: what a diff may highlight as a whole. A unit is a grapheme cluster
 * (Intl.Segmenter: a base letter with all its combining marks — shadda, harakat, stacked diacritics),
 * and a lam followed by an alef form (لا لأ لإ لآ, with their marks) is one unit, because the two are drawn
 * as one ligature that a highlight boundary between them would break apart.
 */
import { isLigatureAlef, LAM } from './arabic';

const segmenter = new Intl.Segmenter('ar', { granularity: 'grapheme' });

/** The display units of `text`, in order; joined they give `text` back. */
export function displayUnits(text: string): string[] {
  const units: string[] = [];
  let afterLam = false; // the last unit is a lam cluster on its own
  for (const { segment } of segmenter.segment(text)) {
    const first = String.fromCodePoint(segment.codePointAt(0)!);
    if (afterLam && isLigatureAlef(first)) {
      units[units.length - 1] += segment;
      afterLam = false;
    } else {
      units.push(segment);
      afterLam = first === LAM;
    }
  }
  return units;
}

/**
 * Unit boundaries in code-point offsets: `starts[i]` is true when a display unit starts at code point i;
 * `starts[length]` (the end) is true too.
 */
export function unitBoundaries(text: string): Uint8Array {
  const cps = [...text].length;
  const starts = new Uint8Array(cps + 1);
  let at = 0;
  for (const u of displayUnits(text)) {
    starts[at] = 1;
    at += [...u].length;
  }
  starts[cps] = 1;
  return starts;
}

const clusterIds = new Map<string, number>();
/** First id of a multi-code-point cluster: above every code point, so a one-code-point cluster keeps its own. */
const FIRST_CLUSTER_ID = 0x110000;

/**
 * Extended grapheme clusters of `text` as integers, for edit distances over clusters: a cluster of one code
 * point is that code point (the space stays 0x20), a longer one gets a stable id of its own.
 */
export function graphemeIds(text: string): Int32Array {
  const out: number[] = [];
  for (const { segment } of segmenter.segment(text)) {
    if (segment.length === 1 || (segment.length === 2 && segment.codePointAt(0)! > 0xffff)) {
      out.push(segment.codePointAt(0)!);
      continue;
    }
    let id = clusterIds.get(segment);
    if (id === undefined) {
      id = FIRST_CLUSTER_ID + clusterIds.size;
      clusterIds.set(segment, id);
    }
    out.push(id);
  }
  return Int32Array.from(out);
}
