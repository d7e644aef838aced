/**
 * The one Levenshtein alignment routine behind CER (and behind the analysis's error_changes.json): unit costs,
 * a deterministic tie order, a separator preference, and the edit breakdown with (optionally) the edits themselves.
 */
import { commonEnds } from './levenshtein';

export const OP_MATCH = 0;
export const OP_SUB = 1;
export const OP_DEL = 2;
export const OP_INS = 3;

/** One non-matching edit. `ref` is the reference index (for an insertion: the gap before ref[ref]); `hyp` likewise. */
export interface EditOp {
  type: 'S' | 'D' | 'I';
  ref: number;
  hyp: number;
}

export interface EditCounts {
  distance: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  hits: number;
}

export interface Alignment extends EditCounts {
  /** Non-matching edits in reference order (present when requested). */
  ops?: EditOp[];
}

/** Refuse absurd pairs (a runaway LLM output) rather than allocate gigabytes; the caller reports the line. */
export const MAX_ALIGNMENT_CELLS = 256 * 1024 * 1024;

// Reused buffers: rows of costs plus a byte matrix of back-pointers.
let prevRow = new Float64Array(256);
let curRow = new Float64Array(256);
let back = new Uint8Array(64 * 1024);

/** Secondary cost unit: costs are `edits · SCALE + penalties`, exact in float64 for any allowed size. */
const SCALE = 2 ** 21;

export interface AlignOptions {
  /** Return the non-matching edits (for error_changes). */
  ops?: boolean;
  /**
   * A separator symbol (the space, for characters). Among alignments with the minimal edit distance,
   * prefer those with fewer substitutions between the separator and another symbol, so a merged or
   * split word shows up as an inserted/deleted space rather than as "letter → space".
   */
  separator?: number;
}

/**
 * Levenshtein alignment of two integer sequences (unit costs; the distance is plain Levenshtein).
 * Ties (after the separator preference) favour the diagonal, then deletion, then insertion, so the
 * alignment is deterministic. O(n·m) time, O(m) numbers plus n·m bytes of back-pointers.
 */
export function alignSequences(ref: ArrayLike<number>, hyp: ArrayLike<number>, options: AlignOptions | boolean = {}): Alignment {
  const opts: AlignOptions = typeof options === 'boolean' ? { ops: options } : options;
  const withOps = opts.ops === true;
  // A common prefix and suffix are matched outright (they never lengthen an optimal alignment), so
  // near-identical lines, the usual case after correction, cost almost nothing.
  const { p, q } = commonEnds(ref, hyp);
  const n = ref.length - p - q;
  const m = hyp.length - p - q;
  if (n === 0 || m === 0) return pureIndel(p, n, m, p + q, withOps);
  reserveBuffers(ref.length, hyp.length, n, m);
  const distance = fillBackPointers(ref, hyp, p, n, m, opts.separator ?? -1);
  return { distance, ...traceBack(p, n, m, p + q, withOps) };
}

/** The alignment when one middle part is empty: n deletions or m insertions at position p. */
function pureIndel(p: number, n: number, m: number, common: number, withOps: boolean): Alignment {
  const ops: EditOp[] | undefined = withOps ? [] : undefined;
  if (ops) {
    for (let i = 0; i < n; i++) ops.push({ type: 'D', ref: p + i, hyp: p });
    for (let j = 0; j < m; j++) ops.push({ type: 'I', ref: p, hyp: p + j });
  }
  return { distance: n + m, substitutions: 0, deletions: n, insertions: m, hits: common, ops };
}

/** Grow the reused cost rows and back-pointer matrix to an n × m middle part (N × M = the whole pair). */
function reserveBuffers(N: number, M: number, n: number, m: number): void {
  const cells = (n + 1) * (m + 1);
  if (cells > MAX_ALIGNMENT_CELLS) {
    throw new RangeError(`alignment too large: ${N} × ${M} symbols (limit ${MAX_ALIGNMENT_CELLS} cells)`);
  }
  if (prevRow.length < m + 1) {
    prevRow = new Float64Array(2 * (m + 1));
    curRow = new Float64Array(2 * (m + 1));
  }
  if (back.length < cells) back = new Uint8Array(Math.min(MAX_ALIGNMENT_CELLS, 2 * cells));
}

/**
 * The dynamic programme over ref[p, p+n) × hyp[p, p+m): fills the back-pointers and returns the distance.
 * Costs are `edits · SCALE + penalties`, a penalty being a substitution between `sep` and another symbol.
 */
function fillBackPointers(ref: ArrayLike<number>, hyp: ArrayLike<number>, p: number, n: number, m: number, sep: number): number {
  const bk = back; // locals keep the hot loop free of module-scope lookups
  let prev = prevRow;
  let cur = curRow;
  const w = m + 1;
  for (let j = 0; j <= m; j++) {
    prev[j] = j * SCALE;
    bk[j] = OP_INS;
  }
  for (let i = 1; i <= n; i++) {
    const a = ref[p + i - 1];
    const aSep = a === sep;
    const rowBase = i * w;
    let left = i * SCALE; // cur[j - 1]
    let upLeft = prev[0];
    cur[0] = left;
    bk[rowBase] = OP_DEL;
    for (let j = 1; j <= m; j++) {
      const up = prev[j];
      const b = hyp[p + j - 1];
      const same = a === b;
      const diag = upLeft + (same ? 0 : aSep !== (b === sep) ? SCALE + 1 : SCALE);
      const del = up + SCALE;
      const ins = left + SCALE;
      let v: number;
      if (diag <= del && diag <= ins) {
        v = diag;
        bk[rowBase + j] = same ? OP_MATCH : OP_SUB;
      } else if (del <= ins) {
        v = del;
        bk[rowBase + j] = OP_DEL;
      } else {
        v = ins;
        bk[rowBase + j] = OP_INS;
      }
      cur[j] = v;
      left = v;
      upLeft = up;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return Math.floor(prev[m] / SCALE);
}

/** Follow the back-pointers of an n × m middle part from its end: the edit breakdown and (optionally) the ops. */
function traceBack(p: number, n: number, m: number, common: number, withOps: boolean): Omit<Alignment, 'distance'> {
  const bk = back;
  const w = m + 1;
  let s = 0,
    d = 0,
    ins = 0,
    h = common;
  const ops: EditOp[] | undefined = withOps ? [] : undefined;
  let i = n,
    j = m;
  while (i > 0 || j > 0) {
    const op = bk[i * w + j];
    if (op === OP_MATCH) {
      h++;
      i--;
      j--;
    } else if (op === OP_SUB) {
      s++;
      i--;
      j--;
      ops?.push({ type: 'S', ref: p + i, hyp: p + j });
    } else if (op === OP_DEL) {
      d++;
      i--;
      ops?.push({ type: 'D', ref: p + i, hyp: p + j });
    } else {
      ins++;
      j--;
      ops?.push({ type: 'I', ref: p + i, hyp: p + j });
    }
  }
  ops?.reverse();
  return { substitutions: s, deletions: d, insertions: ins, hits: h, ops };
}

/** The space, the separator preference used for character alignments. */
export const SPACE = 0x20;
