/**
 * Locating a gold OCR line in its source text: which corpus units (OpenITI lines) hold it.
 *
 * An OCR_GS line is a line of a printed page; OpenITI units are the lines of a digital edition, cut
 * elsewhere. So a gold line is a (noisy: other edition, other punctuation) *substring* of the source
 * text, possibly spanning two or three units. The locator works on matching keys (see matchKey) of the
 * whole file joined into one string: n-gram hits vote for an alignment diagonal, the best diagonals are
 * verified with a fitting (semi-global) edit distance, and the matched span is mapped back to the units it
 * overlaps. `quality` = 1 − edits / gold length.
 */
import { codePoints, matchKey, substringEditDistance } from '../retrieval/text';
import type { SourceLine } from '../retrieval/source-lines';

export interface SourceDoc {
  /** Version URI (corpus source_uri). */
  uri: string;
  lines: readonly SourceLine[];
}

export interface UnitOverlap {
  /** Position in doc.lines. */
  pos: number;
  /** Physical line number in the file. */
  line: number;
  /** Characters of the matched span inside this unit (in key characters). */
  overlap: number;
  /** Key length of the unit. */
  unitLength: number;
}

export interface Location {
  uri: string;
  /** 1 − distance / gold key length, in [0, 1]. */
  quality: number;
  distance: number;
  goldLength: number;
  /** Units the matched span overlaps, in file order. */
  units: UnitOverlap[];
}

interface DocIndex {
  uri: string;
  lines: readonly SourceLine[];
  text: Int32Array;
  /** Start offset of each unit's key in `text` (units joined by one space). */
  starts: Int32Array;
  ends: Int32Array;
  grams: Map<string, number[]>;
}

export interface LocatorOptions {
  /** Gram length for seeding (default 5). */
  n?: number;
  /** Grams with more postings than this are too common to vote (default 400). */
  maxPostings?: number;
  /** Diagonals verified by alignment per gold line (default 4). */
  candidates?: number;
}

export class FuzzyLocator {
  private readonly docs: DocIndex[];
  private readonly n: number;
  private readonly maxPostings: number;
  private readonly candidates: number;

  constructor(docs: readonly SourceDoc[], opts: LocatorOptions = {}) {
    this.n = opts.n ?? 5;
    this.maxPostings = opts.maxPostings ?? 400;
    this.candidates = opts.candidates ?? 4;
    this.docs = docs.map((d) => this.indexDoc(d));
  }

  private indexDoc(d: SourceDoc): DocIndex {
    const keys = d.lines.map((l) => matchKey(l.text));
    const joined = keys.join(' ');
    const text = codePoints(joined);
    const starts = new Int32Array(keys.length);
    const ends = new Int32Array(keys.length);
    let off = 0;
    keys.forEach((k, i) => {
      starts[i] = off;
      off += codePoints(k).length;
      ends[i] = off;
      off += 1;
    });
    const grams = new Map<string, number[]>();
    const chars = Array.from(joined);
    for (let i = 0; i + this.n <= chars.length; i++) {
      const g = chars.slice(i, i + this.n).join('');
      const list = grams.get(g);
      if (list) list.push(i);
      else grams.set(g, [i]);
    }
    return { uri: d.uri, lines: d.lines, text, starts, ends, grams };
  }

  /** Best location of `gold` over all documents, or null when no gram of it occurs anywhere. */
  locate(gold: string): Location | null {
    const key = matchKey(gold);
    const g = codePoints(key);
    const m = g.length;
    if (m < this.n) return null;
    const chars = Array.from(key);
    // Vote: doc × diagonal bucket (diagonal = text position − gold position, bucketed by 8).
    const votes = new Map<string, number>();
    for (let i = 0; i + this.n <= chars.length; i++) {
      const gram = chars.slice(i, i + this.n).join('');
      this.docs.forEach((d, di) => {
        const posts = d.grams.get(gram);
        if (!posts || posts.length > this.maxPostings) return;
        for (const p of posts) {
          const bucket = (p - i) >> 3;
          const k = `${di}:${bucket}`;
          votes.set(k, (votes.get(k) ?? 0) + 1);
        }
      });
    }
    if (votes.size === 0) return null;
    // Merge neighbouring buckets (a diagonal near a bucket edge splits its votes).
    const scored = [...votes.entries()].map(([k, v]) => {
      const [di, b] = k.split(':').map(Number);
      return { di, b, v: v + (votes.get(`${di}:${b - 1}`) ?? 0) + (votes.get(`${di}:${b + 1}`) ?? 0) };
    });
    scored.sort((a, b) => b.v - a.v || a.di - b.di || a.b - b.b);
    let best: Location | null = null;
    const tried = new Set<string>();
    for (const c of scored) {
      if (tried.size >= this.candidates) break;
      const key2 = `${c.di}:${c.b}`;
      if (tried.has(key2) || tried.has(`${c.di}:${c.b - 1}`) || tried.has(`${c.di}:${c.b + 1}`)) continue;
      tried.add(key2);
      const d = this.docs[c.di];
      const slack = 16 + Math.ceil(m * 0.25);
      const from = Math.max(0, c.b * 8 - slack);
      const to = Math.min(d.text.length, c.b * 8 + 8 + m + slack);
      const hit = substringEditDistance(g, d.text.subarray(from, to));
      const quality = Math.max(0, 1 - hit.distance / m);
      if (best && quality <= best.quality) continue;
      best = { uri: d.uri, quality, distance: hit.distance, goldLength: m, units: this.unitsOf(d, from + hit.start, from + hit.end) };
    }
    return best;
  }

  private unitsOf(d: DocIndex, start: number, end: number): UnitOverlap[] {
    // First unit ending after `start` (binary search), then walk while units start before `end`.
    let lo = 0;
    let hi = d.ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (d.ends[mid] <= start) lo = mid + 1;
      else hi = mid;
    }
    const out: UnitOverlap[] = [];
    for (let i = lo; i < d.starts.length && d.starts[i] < end; i++) {
      const overlap = Math.min(end, d.ends[i]) - Math.max(start, d.starts[i]);
      if (overlap > 0) out.push({ pos: i, line: d.lines[i].line, overlap, unitLength: d.ends[i] - d.starts[i] });
    }
    return out;
  }
}
