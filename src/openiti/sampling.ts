/**
 * Date-stratified, author-balanced sampling (docs/corpus.md#eras; the choice is explained in
 * docs/corpus-sampling.md). Everything here is pure arithmetic on counts, deterministic given the seed.
 */

export interface EraSpec {
  name: string;
  /** First hijri year of the era (inclusive). */
  from: number;
  /** End of the era (exclusive): the project-wide [from, to) convention of the config and the analysis. */
  to: number;
  /** Share of the corpus the era should get (fractions sum to 1). */
  fraction: number;
}

/**
 * Spec §3.2 eras, 10/30/30/30 — the one default list (the config schema and the analysis use it too).
 * Bounds are [from, to) and upper-inclusive in the sense of docs/corpus.md#eras: an author who died in 300 AH belongs to
 * "0-300", as in OpenITI's own period repositories (0300AH = deaths 276–300). The last era is open-ended.
 */
export const DEFAULT_ERAS: readonly EraSpec[] = Object.freeze([
  { name: '0-300', from: 0, to: 301, fraction: 0.1 },
  { name: '300-600', from: 301, to: 601, fraction: 0.3 },
  { name: '600-900', from: 601, to: 901, fraction: 0.3 },
  { name: '900+', from: 901, to: 100000, fraction: 0.3 },
]);

export class SamplingConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SamplingConfigError';
  }
}

/** Throws a SamplingConfigError naming the bad era and field. */
export function validateEras(eras: readonly EraSpec[]): void {
  if (!Array.isArray(eras) || eras.length === 0) throw new SamplingConfigError('eras: at least one era is required');
  const names = new Set<string>();
  let sum = 0;
  eras.forEach((e, i) => {
    const at = `eras[${i}]${e && typeof e.name === 'string' ? ` (${e.name})` : ''}`;
    if (!e || typeof e.name !== 'string' || e.name.trim() === '') throw new SamplingConfigError(`${at}.name: a non-empty name is required`);
    if (names.has(e.name)) throw new SamplingConfigError(`${at}.name: duplicate era name`);
    names.add(e.name);
    if (!Number.isInteger(e.from) || !Number.isInteger(e.to)) throw new SamplingConfigError(`${at}: from/to must be integer hijri years`);
    if (e.from >= e.to) throw new SamplingConfigError(`${at}: from (${e.from}) must be < to (${e.to}); eras are [from, to)`);
    if (!(typeof e.fraction === 'number' && e.fraction >= 0 && e.fraction <= 1))
      throw new SamplingConfigError(`${at}.fraction: must be a number in [0, 1]`);
    sum += e.fraction;
  });
  if (Math.abs(sum - 1) > 1e-6) throw new SamplingConfigError(`eras: fractions sum to ${sum}, expected 1`);
  const sorted = [...eras].sort((a, b) => a.from - b.from);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].from < sorted[i - 1].to)
      throw new SamplingConfigError(
        `eras: ${sorted[i - 1].name} (${sorted[i - 1].from}–${sorted[i - 1].to}) overlaps ${sorted[i].name} (${sorted[i].from}–${sorted[i].to})`,
      );
  }
}

/** Index of the era containing `date` (from ≤ date < to), or -1. */
export function eraIndex(date: number, eras: readonly EraSpec[]): number {
  for (let i = 0; i < eras.length; i++) if (date >= eras[i].from && date < eras[i].to) return i;
  return -1;
}

/** Split an integer total by weights (largest remainder; ties go to the lower index). */
export function largestRemainder(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (total <= 0 || sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const out = exact.map((x) => Math.floor(x));
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, frac: x - Math.floor(x) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (let k = 0; left > 0 && k < order.length; k++, left--) out[order[k].i]++;
  return out;
}

export interface EraAllocation {
  /** Sentences the era should get from its fraction. */
  targets: number[];
  /** Sentences planned per era after redistribution. */
  allocated: number[];
  /** Per era: target minus what its own capacity could cover. */
  shortfall: number[];
  /** Per era: sentences taken over from other eras' shortfalls. */
  received: number[];
  /** Shortfall no era could take (the corpus is smaller than maxSentences). */
  unfilled: number;
}

/**
 * Era targets from the fractions, capped by what each era has; the shortfall of an era goes to the
 * eras with spare capacity in proportion to their fractions (eras with fraction 0 take nothing).
 */
export function allocateEras(total: number, fractions: readonly number[], capacities: readonly number[]): EraAllocation {
  const targets = largestRemainder(total, fractions);
  const allocated = targets.map((t, i) => Math.min(t, capacities[i]));
  const shortfall = targets.map((t, i) => t - allocated[i]);
  const received = targets.map(() => 0);
  let deficit = shortfall.reduce((a, b) => a + b, 0);
  while (deficit > 0) {
    const open = fractions.map((f, i) => i).filter((i) => fractions[i] > 0 && capacities[i] > allocated[i]);
    if (open.length === 0) break;
    const shares = largestRemainder(
      deficit,
      open.map((i) => fractions[i]),
    );
    let given = 0;
    open.forEach((i, k) => {
      const g = Math.min(shares[k], capacities[i] - allocated[i]);
      allocated[i] += g;
      received[i] += g;
      given += g;
    });
    deficit -= given;
    if (given === 0) break;
  }
  return { targets, allocated, shortfall, received, unfilled: deficit };
}

/**
 * Max-min fair integer split of `quota` over groups with the given capacities ("water filling"): every
 * group gets the same amount L (or L+1) unless it has less, in which case it gets all it has. The +1
 * extras go to the groups that come first in `tieOrder` (a seeded order). Sum = min(quota, Σcapacities).
 */
export function waterFill(capacities: readonly number[], quota: number, tieOrder: readonly number[]): number[] {
  const n = capacities.length;
  const total = capacities.reduce((a, b) => a + b, 0);
  if (quota >= total) return capacities.slice();
  const out = new Array<number>(n).fill(0);
  const byCap = capacities.map((c, i) => i).sort((a, b) => capacities[a] - capacities[b] || tieOrder[a] - tieOrder[b]);
  let remaining = quota;
  let left = n;
  let k = 0;
  for (; k < n; k++) {
    const i = byCap[k];
    if (capacities[i] * left > remaining) break;
    out[i] = capacities[i];
    remaining -= capacities[i];
    left--;
  }
  const rest = byCap.slice(k);
  const level = Math.floor(remaining / left);
  let extra = remaining - level * left;
  for (const i of rest) out[i] = level;
  for (const i of [...rest].sort((a, b) => tieOrder[a] - tieOrder[b])) {
    if (extra === 0) break;
    out[i]++;
    extra--;
  }
  return out;
}

// --- hashing -----------------------------------------------------------------------------------

/** 32-bit FNV-1a of a string, then mixed with the seed: a seeded, stable key for names. */
export function seededKey(seed: number, s: string): number {
  let h = 0x811c9dc5 ^ (seed | 0);
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's finaliser: a good 32-bit integer mix. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Seeded random priority of the `index`-th candidate of a file (uniform uint32). */
export function linePriority(fileKey: number, index: number): number {
  return fmix32((fileKey ^ Math.imul(index + 1, 0x9e3779b1)) | 0);
}

/** cyrb53: a fast 53-bit string hash. Within-file dedup uses it on the dedup key; the parser computes it inline while scanning a line (src/openiti/line-parser.ts), and the tests hold the two equal. */
export function hash53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

// --- k smallest by priority ----------------------------------------------------------------------

export interface Candidate {
  priority: number;
  /** Position among the file's eligible lines. */
  index: number;
  text: string;
  /** Length in code points. */
  charLen: number;
  /** First 64 bits of the SHA-256 of the dedup key (cross-corpus dedup), as two uint32. */
  dh?: number;
  dl?: number;
}

/** Keeps the k candidates with the smallest (priority, index): a bounded max-heap. */
export class TopK {
  private heap: Candidate[] = [];

  constructor(readonly k: number) {}

  get size(): number {
    return this.heap.length;
  }

  /** Would a candidate with this priority/index be kept? (Lets callers skip work for losers.) */
  wouldAccept(priority: number, index: number): boolean {
    if (this.k <= 0) return false;
    if (this.heap.length < this.k) return true;
    const top = this.heap[0];
    return priority < top.priority || (priority === top.priority && index < top.index);
  }

  offer(c: Candidate): void {
    if (!this.wouldAccept(c.priority, c.index)) return;
    const h = this.heap;
    if (h.length < this.k) {
      h.push(c);
      this.up(h.length - 1);
    } else {
      h[0] = c;
      this.down(0);
    }
  }

  /** The kept candidates in file order. */
  inFileOrder(): Candidate[] {
    return [...this.heap].sort((a, b) => a.index - b.index);
  }

  private greater(a: Candidate, b: Candidate): boolean {
    return a.priority > b.priority || (a.priority === b.priority && a.index > b.index);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.greater(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.greater(h[l], h[m])) m = l;
      if (r < h.length && this.greater(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
