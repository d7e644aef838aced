/**
 * The one Levenshtein alignment routine behind CER (and behind the analysis's error_changes.json): unit costs,
 * a deterministic tie order, a separator preference, and the edit breakdown with (optionally) the edits themselves.
 */
import { commonEnds, levenshtein } from './levenshtein';

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
 * alignment is deterministic. O(n·e) time for e edits, O(m) numbers plus n·(2e + 1) bytes of back-pointers.
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
  // Every alignment with the minimal number of edits e stays within e of the diagonal, and the separator
  // preference only ranks those: the table is that band (Ukkonen), n · (2e + 1) cells.
  const e = levenshtein(ref, hyp);
  reserveBuffers(ref.length, hyp.length, n, m, e);
  const distance = fillBackPointers(ref, hyp, p, n, m, e, opts.separator ?? -1);
  return { distance, ...traceBack(p, n, m, e, p + q, withOps) };
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

/** Grow the reused cost rows and back-pointer band to an n × m middle part within e of the diagonal (N × M = the whole pair). */
function reserveBuffers(N: number, M: number, n: number, m: number, e: number): void {
  const cells = (n + 1) * (2 * e + 1);
  if (cells > MAX_ALIGNMENT_CELLS) {
    throw new RangeError(`alignment too large: ${N} × ${M} symbols (limit ${MAX_ALIGNMENT_CELLS} cells)`);
  }
  if (prevRow.length < m + 1) {
    prevRow = new Float64Array(2 * (m + 1));
    curRow = new Float64Array(2 * (m + 1));
  }
  if (back.length < cells) back = new Uint8Array(Math.min(MAX_ALIGNMENT_CELLS, 2 * cells));
}

const INF = Number.POSITIVE_INFINITY;

/**
 * The dynamic programme over ref[p, p+n) × hyp[p, p+m), cells with |i − j| ≤ e: fills the back-pointers (row i at
 * i·(2e + 1), column j at j − i + e) and returns the distance. Costs are `edits · SCALE + penalties`, a penalty
 * being a substitution between `sep` and another symbol.
 */
function fillBackPointers(ref: ArrayLike<number>, hyp: ArrayLike<number>, p: number, n: number, m: number, e: number, sep: number): number {
  const bk = back; // locals keep the hot loop free of module-scope lookups
  let prev = prevRow;
  let cur = curRow;
  const w = 2 * e + 1;
  for (let j = 0; j <= Math.min(m, e); j++) {
    prev[j] = j * SCALE;
    bk[j + e] = OP_INS;
  }
  for (let i = 1; i <= n; i++) {
    const a = ref[p + i - 1];
    const aSep = a === sep;
    const rowBase = i * w - i + e;
    const lo = Math.max(0, i - e);
    const hi = Math.min(m, i + e);
    const upHi = i - 1 + e;
    let left = INF; // cur[j - 1]
    if (lo === 0) {
      cur[0] = left = i * SCALE;
      bk[rowBase] = OP_DEL;
    }
    for (let j = Math.max(1, lo); j <= hi; j++) {
      const b = hyp[p + j - 1];
      const same = a === b;
      const diag = prev[j - 1] + (same ? 0 : aSep !== (b === sep) ? SCALE + 1 : SCALE);
      const del = j <= upHi ? prev[j] + SCALE : INF;
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
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return Math.floor(prev[m] / SCALE);
}

/** Follow the back-pointers of an n × m middle part (band e) from its end: the edit breakdown and (optionally) the ops. */
function traceBack(p: number, n: number, m: number, e: number, common: number, withOps: boolean): Omit<Alignment, 'distance'> {
  const bk = back;
  const w = 2 * e + 1;
  let s = 0,
    d = 0,
    ins = 0,
    h = common;
  const ops: EditOp[] | undefined = withOps ? [] : undefined;
  let i = n,
    j = m;
  while (i > 0 || j > 0) {
    const op = bk[i * w - i + e + j];
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
