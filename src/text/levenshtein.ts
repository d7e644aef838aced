/** Plain Levenshtein distance of two integer sequences, without the alignment (the fast path for WER and secondary figures). */

/** Lengths of the common prefix (p) and of the common suffix after it (q): matched outright by both routines. */
export function commonEnds(ref: ArrayLike<number>, hyp: ArrayLike<number>): { p: number; q: number } {
  const N = ref.length;
  const M = hyp.length;
  let p = 0;
  while (p < N && p < M && ref[p] === hyp[p]) p++;
  let q = 0;
  while (q < N - p && q < M - p && ref[N - 1 - q] === hyp[M - 1 - q]) q++;
  return { p, q };
}

let distRowA = new Int32Array(256);
let distRowB = new Int32Array(256);

const INF = 0x3fffffff;

/**
 * Distance-only fast path of `alignSequences`: the same unit-cost Levenshtein (same prefix/suffix matching),
 * without back-pointers. Ukkonen's band: only cells within d of the diagonal can lie on a path of cost d, so the
 * rows are filled within a band that doubles until the distance found fits in it — O(length · distance), the
 * usual case after correction being a small distance. Used where only the number of edits matters (WER, the
 * normalised secondary metrics, CER of the analysis's lines).
 */
export function levenshtein(ref: ArrayLike<number>, hyp: ArrayLike<number>): number {
  const { p, q } = commonEnds(ref, hyp);
  const n = ref.length - p - q;
  const m = hyp.length - p - q;
  if (n === 0 || m === 0) return n + m;
  if (distRowA.length < m + 1) {
    distRowA = new Int32Array(2 * (m + 1));
    distRowB = new Int32Array(2 * (m + 1));
  }
  const most = Math.max(n, m);
  for (let e = Math.min(most, Math.max(Math.abs(n - m), 16)); ; e = Math.min(2 * e, most)) {
    const d = bandDistance(ref, hyp, p, n, m, e);
    if (d <= e || e >= most) return d;
  }
}

/** The distance when it is at most `e` (else a number above `e`): rows filled only where |i − j| ≤ e. */
function bandDistance(ref: ArrayLike<number>, hyp: ArrayLike<number>, p: number, n: number, m: number, e: number): number {
  let prev = distRowA;
  let cur = distRowB;
  const hi0 = Math.min(m, e);
  for (let j = 0; j <= hi0; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    const a = ref[p + i - 1];
    const lo = Math.max(0, i - e);
    const hi = Math.min(m, i + e);
    const upHi = i - 1 + e; // the last column of row i − 1
    let left = INF;
    if (lo === 0) cur[0] = left = i;
    for (let j = Math.max(1, lo); j <= hi; j++) {
      let v = prev[j - 1] + (a === hyp[p + j - 1] ? 0 : 1);
      const up = j <= upHi ? prev[j] + 1 : INF;
      if (up < v) v = up;
      if (left + 1 < v) v = left + 1;
      cur[j] = v;
      left = v;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}
