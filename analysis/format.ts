/**
 * Numbers and order as every analysis output writes them: fixed decimals, ratios, code-unit string order. The
 * labels live where they are computed (score/bands.ts, score/eras.ts), source-pattern matching with the leakage
 * check (inputs/leakage.ts), rank correlation with the statistics (stats/correlation.ts).
 */

/** Round to a fixed number of decimals (outputs are byte-stable and readable); null/NaN → null. */
export function round(x: number | null | undefined, digits = 6): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  const r = Math.round(x * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

/** a / b, or null when b is 0. */
export function ratio(a: number, b: number): number | null {
  return b > 0 ? a / b : null;
}

/** Code-unit string order (locale-independent, so output order never depends on ICU). */
export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
