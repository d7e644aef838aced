/**
 * The hits, substitutions, deletions and insertions (H, S, D, I) of one minimal-edit alignment of two integer
 * sequences, for the match error rate MER = (S + D + I) / (H + S + D + I) (./mer.ts).
 *
 * S + D + I is the Levenshtein distance (./levenshtein.ts), whatever alignment is chosen; H is not: among the
 * alignments with the minimal distance some trade one substitution for a deletion and an insertion, so MER depends
 * on the tie order. The order here is the one jiwer's `process_characters` / `process_words` use (they take
 * RapidFuzz's `Levenshtein.editops`, whose backtrace runs from the end and prefers, at each cell, a deletion, then an
 * insertion, then the diagonal): the common prefix and suffix are matched first, then from the end of the middle
 * part a reference symbol is deleted when that is optimal, else a hypothesis symbol inserted when the diagonal is
 * not cheaper, else the diagonal taken. Only cells within the distance of the diagonal can lie on a minimal path,
 * so the table is a band around it, doubled until it holds the distance (Ukkonen): near-identical texts (the usual
 * case after correction) cost O(length · distance).
 */
import { commonEnds } from './levenshtein';
import { MAX_ALIGNMENT_CELLS } from './alignment';

export interface MatchCounts {
  hits: number;
  substitutions: number;
  deletions: number;
  insertions: number;
}

let table = new Int32Array(64 * 1024);

/** H, S, D, I of `ref` against `hyp` under the tie order above. */
export function matchCounts(ref: ArrayLike<number>, hyp: ArrayLike<number>): MatchCounts {
  const { p, q } = commonEnds(ref, hyp);
  const n = ref.length - p - q;
  const m = hyp.length - p - q;
  if (n === 0 || m === 0) return { hits: p + q, substitutions: 0, deletions: n, insertions: m };
  const r = middle(ref, p, n);
  const h = middle(hyp, p, m);
  // Ukkonen's doubling: a band of half-width e holds every minimal path once the distance it finds is ≤ e.
  for (let e = Math.max(Math.abs(n - m), 16); ; e = Math.min(2 * e, Math.max(n, m))) {
    const w = 2 * e + 1;
    const cells = (n + 1) * w;
    if (cells > MAX_ALIGNMENT_CELLS) throw new RangeError(`alignment too large: ${n} × ${m} symbols (limit ${MAX_ALIGNMENT_CELLS} cells)`);
    if (table.length < cells) table = new Int32Array(Math.min(MAX_ALIGNMENT_CELLS, 2 * cells));
    fillBand(r, h, e, w);
    if (at(n, m, e, w, m) <= e || e >= Math.max(n, m)) {
      const c = traceBand(r, h, e, w);
      return { ...c, hits: c.hits + p + q };
    }
  }
}

const INF = 0x3fffffff;

function middle(x: ArrayLike<number>, from: number, length: number): Int32Array {
  const out = new Int32Array(length);
  for (let k = 0; k < length; k++) out[k] = x[from + k];
  return out;
}

/** D[i][j] for |i − j| ≤ e, stored at i·w + (j − i + e); a neighbour outside the band counts as INF. */
function fillBand(r: Int32Array, h: Int32Array, e: number, w: number): void {
  const t = table;
  const n = r.length;
  const m = h.length;
  for (let i = 0; i <= n; i++) {
    const base = i * w - i + e;
    const prev = base - w + 1; // row i − 1's origin
    const lo = Math.max(0, i - e);
    const hi = Math.min(m, i + e);
    for (let j = lo; j <= hi; j++) {
      let v: number;
      if (i === 0) v = j;
      else if (j === 0) v = i;
      else {
        const up = j <= i - 1 + e ? t[prev + j] : INF; // D[i-1][j]
        const left = j - 1 >= lo ? t[base + j - 1] : INF; // D[i][j-1]
        const diag = t[prev + j - 1] + (r[i - 1] === h[j - 1] ? 0 : 1); // D[i-1][j-1]
        v = diag;
        if (up + 1 < v) v = up + 1;
        if (left + 1 < v) v = left + 1;
      }
      t[base + j] = v;
    }
  }
}

function at(i: number, j: number, e: number, w: number, m: number): number {
  if (j < 0 || j > m || j < i - e || j > i + e) return INF;
  return table[i * w - i + e + j];
}

/** The backtrace from (n, m): deletion, then insertion, then the diagonal, as RapidFuzz's editops. */
function traceBand(r: Int32Array, h: Int32Array, e: number, w: number): MatchCounts {
  const m = h.length;
  let i = r.length;
  let j = m;
  let hits = 0,
    substitutions = 0,
    deletions = 0,
    insertions = 0;
  while (i > 0 && j > 0) {
    const d = at(i, j, e, w, m);
    if (d === at(i - 1, j, e, w, m) + 1) {
      deletions++;
      i--;
    } else if (j > 1 && at(i - 1, j - 1, e, w, m) === at(i, j - 1, e, w, m) + 1) {
      insertions++;
      j--;
    } else {
      i--;
      j--;
      if (r[i] === h[j]) hits++;
      else substitutions++;
    }
  }
  return { hits, substitutions, deletions: deletions + i, insertions: insertions + j };
}
