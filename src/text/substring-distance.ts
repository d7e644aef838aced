/** Semi-global (substring) edit distance: how the retrieval reranker fits an OCR line into corpus text. */

// Reused rows of substringEditDistance: costs and the start of the best substring ending at each position.
let rowA = new Int32Array(256);
let rowB = new Int32Array(256);
let startA = new Int32Array(256);
let startB = new Int32Array(256);

export interface SubstringMatch {
  /** Fewest edits turning `pattern` into some substring text[start, end). */
  distance: number;
  start: number;
  end: number;
}

/**
 * Semi-global (fitting) alignment: the edit distance between the whole `pattern` and the best-matching
 * substring of `text` (free leading and trailing text), with that substring's bounds. O(|p|·|t|) time,
 * O(|t|) memory; ties prefer the earliest end, then the longest substring.
 */
export function substringEditDistance(pattern: ArrayLike<number>, text: ArrayLike<number>): SubstringMatch {
  const m = pattern.length;
  const n = text.length;
  if (m === 0) return { distance: 0, start: 0, end: 0 };
  if (n === 0) return { distance: m, start: 0, end: 0 };
  if (rowA.length < n + 1) {
    const size = 2 * (n + 1);
    rowA = new Int32Array(size);
    rowB = new Int32Array(size);
    startA = new Int32Array(size);
    startB = new Int32Array(size);
  }
  let prev = rowA;
  let cur = rowB;
  let prevStart = startA;
  let curStart = startB;
  // Row 0: matching the empty pattern prefix costs nothing anywhere in the text.
  for (let j = 0; j <= n; j++) {
    prev[j] = 0;
    prevStart[j] = j;
  }
  for (let i = 1; i <= m; i++) {
    const a = pattern[i - 1];
    cur[0] = i;
    curStart[0] = 0;
    for (let j = 1; j <= n; j++) {
      // diagonal (match/substitute), up (pattern char deleted), left (text char inserted)
      let v = prev[j - 1] + (a === text[j - 1] ? 0 : 1);
      let s = prevStart[j - 1];
      const up = prev[j] + 1;
      if (up < v) {
        v = up;
        s = prevStart[j];
      }
      const left = cur[j - 1] + 1;
      if (left < v) {
        v = left;
        s = curStart[j - 1];
      }
      cur[j] = v;
      curStart[j] = s;
    }
    [prev, cur] = [cur, prev];
    [prevStart, curStart] = [curStart, prevStart];
  }
  let best = 0;
  for (let j = 1; j <= n; j++) {
    if (prev[j] < prev[best] || (prev[j] === prev[best] && best === 0)) best = j;
  }
  return { distance: prev[best], start: prevStart[best], end: best };
}
