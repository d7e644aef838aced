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
  return SIMPLE_TEXT.test(text) ? simpleGraphemeIds(text) : segmentedIds(text);
}

/**
 * A text of letters and their marks only: printable ASCII, the Arabic letters, digits and punctuation (none of
 * which join a neighbour into a cluster: Grapheme_Cluster_Break "Other", UAX #29), and the Arabic combining
 * marks U+064B–U+065F and U+0670 (Grapheme_Cluster_Break "Extend"). Its clusters follow from two rules: a mark
 * stays with what precedes it (GB9), every other boundary breaks (GB999) — so they are found without the
 * segmenter, which is an order of magnitude slower; any other text goes through the segmenter.
 */
const SIMPLE_TEXT = /^[\u0020-\u007e\u060c\u061b\u061f\u0621-\u063a\u0640-\u065f\u0660-\u0670\u0671-\u06d3]*$/;
const isMark = (c: number) => (c >= 0x064b && c <= 0x065f) || c === 0x0670;

function simpleGraphemeIds(text: string): Int32Array {
  const out = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length;) {
    let j = i + 1;
    while (j < text.length && isMark(text.charCodeAt(j))) j++;
    out[n++] = j === i + 1 ? text.charCodeAt(i) : clusterId(text.slice(i, j));
    i = j;
  }
  return out.slice(0, n);
}

function clusterId(segment: string): number {
  let id = clusterIds.get(segment);
  if (id === undefined) {
    id = FIRST_CLUSTER_ID + clusterIds.size;
    clusterIds.set(segment, id);
  }
  return id;
}

function segmentedIds(text: string): Int32Array {
  const out: number[] = [];
  for (const { segment } of segmenter.segment(text)) {
    if (segment.length === 1 || (segment.length === 2 && segment.codePointAt(0)! > 0xffff)) {
      out.push(segment.codePointAt(0)!);
      continue;
    }
    out.push(clusterId(segment));
  }
  return Int32Array.from(out);
}
