/**
 * Set of 64-bit digest prefixes in typed arrays (open addressing): no per-entry objects for the GC to
 * walk, no 2^24-entry limit of a JS Set, 16 bytes per slot. 64 bits of SHA-256 make a false "duplicate"
 * vanishingly rare (≈ n² / 2^65: 6·10⁻⁸ for 1.5 M sentences).
 */
export class Digest64Set {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private count = 0;

  /** `slots`: initial table size, a power of two (it doubles as needed). */
  constructor(slots = 1 << 16) {
    if (!(slots >= 2 && (slots & (slots - 1)) === 0)) throw new RangeError(`Digest64Set: slots must be a power of two ≥ 2 (got ${slots})`);
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
  }

  get size(): number {
    return this.count;
  }

  /** Adds the 64-bit key (h, l); returns false when it was already present. */
  add(h: number, l: number): boolean {
    if (h === 0 && l === 0) l = 1; // (0, 0) marks an empty slot
    if ((this.count + 1) * 2 > this.hi.length) this.grow();
    return this.insert(h >>> 0, l >>> 0);
  }

  has(h: number, l: number): boolean {
    if (h === 0 && l === 0) l = 1;
    h >>>= 0;
    l >>>= 0;
    const mask = this.hi.length - 1;
    for (let i = (l ^ h) & mask; ; i = (i + 1) & mask) {
      if (this.hi[i] === 0 && this.lo[i] === 0) return false;
      if (this.hi[i] === h && this.lo[i] === l) return true;
    }
  }

  private insert(h: number, l: number): boolean {
    const mask = this.hi.length - 1;
    for (let i = (l ^ h) & mask; ; i = (i + 1) & mask) {
      if (this.hi[i] === 0 && this.lo[i] === 0) {
        this.hi[i] = h;
        this.lo[i] = l;
        this.count++;
        return true;
      }
      if (this.hi[i] === h && this.lo[i] === l) return false;
    }
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    this.hi = new Uint32Array(oldHi.length * 2);
    this.lo = new Uint32Array(oldLo.length * 2);
    this.count = 0;
    for (let i = 0; i < oldHi.length; i++) if (oldHi[i] !== 0 || oldLo[i] !== 0) this.insert(oldHi[i], oldLo[i]);
  }
}
