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

/**
 * Distance-only fast path of `alignSequences`: the same unit-cost Levenshtein (same prefix/suffix
 * matching), without back-pointers, so about twice as fast. Used where only the number of edits
 * matters (WER, the normalised secondary metrics).
 */
export function levenshtein(ref: ArrayLike<number>, hyp: ArrayLike<number>): number {
  const N = ref.length;
  const M = hyp.length;
  const { p, q } = commonEnds(ref, hyp);
  const n = N - p - q;
  const m = M - p - q;
  if (n === 0 || m === 0) return n + m;
  if (distRowA.length < m + 1) {
    distRowA = new Int32Array(2 * (m + 1));
    distRowB = new Int32Array(2 * (m + 1));
  }
  let prev = distRowA;
  let cur = distRowB;
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    const a = ref[p + i - 1];
    let left = i;
    let upLeft = prev[0];
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const up = prev[j];
      let v = upLeft + (a === hyp[p + j - 1] ? 0 : 1);
      if (up + 1 < v) v = up + 1;
      if (left + 1 < v) v = left + 1;
      cur[j] = v;
      left = v;
      upLeft = up;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}
