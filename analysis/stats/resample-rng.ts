/**
 * mulberry32 (src/util/random.ts, the analysis's seeded PRNG) opened up for the resampling loops of
 * analysis/stats/block-stats.ts: its state is a plain 32-bit integer that a loop keeps in a local variable,
 * `MULBERRY_STEP` advances it and `mulberryBits` gives the draw's 32 bits as a signed integer x. The draw
 * mulberry32 returns is `(x >>> 0) / 2³²`, so `x < 0` exactly when the draw is ≥ ½. The numbers and their
 * order are mulberry32's, so every interval and p-value stays the same; what goes is a closure call per
 * draw (and, in the permutation test, a branch the processor cannot predict).
 */

/** Added to the state before each draw (mod 2³²). */
export const MULBERRY_STEP = 0x6d2b79f5 | 0;

/** The 32 bits of the draw of state `a` (already advanced), as a signed integer. */
export function mulberryBits(a: number): number {
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return t ^ (t >>> 14);
}

/** mulberry32 with its state in view: `next()` gives what `mulberry32(seed)()` gives, call for call. */
export class Mulberry32 {
  state: number;
  constructor(seed: number) {
    this.state = seed | 0;
  }
  next(): number {
    this.state = (this.state + MULBERRY_STEP) | 0;
    return (mulberryBits(this.state) >>> 0) / 4294967296;
  }
}
