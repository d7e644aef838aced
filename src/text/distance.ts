/**
 * Text distances: the one Levenshtein alignment routine behind CER / WER (and behind the analysis's
 * error_changes.json), its distance-only fast path, CER / WER counting over lines and corpora, and the
 * semi-global (substring) edit distance the retrieval reranker fits OCR lines into corpus text with.
 *
 * Definitions (binding for every number the analysis writes):
 * - Texts are scored in canonical form (./canonical: Unicode NFC, trimmed, every whitespace run collapsed to one
 *   space; `collapseWhitespace: false` keeps inner whitespace as is; word tokens are the same either way), then
 *   under a normalisation profile (./profiles) when one is given.
 * - CER = Levenshtein distance over Unicode code points (over grapheme clusters under a `grapheme` profile);
 *   WER = the same over space-separated tokens.
 * - Corpus-level rates are summed edits / summed reference length (what `jiwer.cer(list, list)` computes);
 *   the per-line mean is reported beside them and skips lines with an empty reference.
 *
 * `bench/metrics-vs-jiwer.ts` checks agreement with Python jiwer on all OCR_GS lines.
 */
import { canonical } from './canonical';
import { graphemeIds } from './graphemes';
import { applyProfile, type NormalizationProfile } from './profiles';
import { toCodePoints, toWords, wordIds } from './tokens';

// ---------------------------------------------------------------------------------------------
// Alignment
// ---------------------------------------------------------------------------------------------

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

/** Lengths of the common prefix (p) and of the common suffix after it (q): matched outright by both routines. */
function commonEnds(ref: ArrayLike<number>, hyp: ArrayLike<number>): { p: number; q: number } {
  const N = ref.length;
  const M = hyp.length;
  let p = 0;
  while (p < N && p < M && ref[p] === hyp[p]) p++;
  let q = 0;
  while (q < N - p && q < M - p && ref[N - 1 - q] === hyp[M - 1 - q]) q++;
  return { p, q };
}

/**
 * Levenshtein alignment of two integer sequences (unit costs; the distance is plain Levenshtein).
 * Ties (after the separator preference) favour the diagonal, then deletion, then insertion, so the
 * alignment is deterministic. O(n·m) time, O(m) numbers plus n·m bytes of back-pointers.
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
  reserveBuffers(ref.length, hyp.length, n, m);
  const distance = fillBackPointers(ref, hyp, p, n, m, opts.separator ?? -1);
  return { distance, ...traceBack(p, n, m, p + q, withOps) };
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

/** Grow the reused cost rows and back-pointer matrix to an n × m middle part (N × M = the whole pair). */
function reserveBuffers(N: number, M: number, n: number, m: number): void {
  const cells = (n + 1) * (m + 1);
  if (cells > MAX_ALIGNMENT_CELLS) {
    throw new RangeError(`alignment too large: ${N} × ${M} symbols (limit ${MAX_ALIGNMENT_CELLS} cells)`);
  }
  if (prevRow.length < m + 1) {
    prevRow = new Float64Array(2 * (m + 1));
    curRow = new Float64Array(2 * (m + 1));
  }
  if (back.length < cells) back = new Uint8Array(Math.min(MAX_ALIGNMENT_CELLS, 2 * cells));
}

/**
 * The dynamic programme over ref[p, p+n) × hyp[p, p+m): fills the back-pointers and returns the distance.
 * Costs are `edits · SCALE + penalties`, a penalty being a substitution between `sep` and another symbol.
 */
function fillBackPointers(ref: ArrayLike<number>, hyp: ArrayLike<number>, p: number, n: number, m: number, sep: number): number {
  const bk = back; // locals keep the hot loop free of module-scope lookups
  let prev = prevRow;
  let cur = curRow;
  const w = m + 1;
  for (let j = 0; j <= m; j++) {
    prev[j] = j * SCALE;
    bk[j] = OP_INS;
  }
  for (let i = 1; i <= n; i++) {
    const a = ref[p + i - 1];
    const aSep = a === sep;
    const rowBase = i * w;
    let left = i * SCALE; // cur[j - 1]
    let upLeft = prev[0];
    cur[0] = left;
    bk[rowBase] = OP_DEL;
    for (let j = 1; j <= m; j++) {
      const up = prev[j];
      const b = hyp[p + j - 1];
      const same = a === b;
      const diag = upLeft + (same ? 0 : aSep !== (b === sep) ? SCALE + 1 : SCALE);
      const del = up + SCALE;
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
      upLeft = up;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return Math.floor(prev[m] / SCALE);
}

/** Follow the back-pointers of an n × m middle part from its end: the edit breakdown and (optionally) the ops. */
function traceBack(p: number, n: number, m: number, common: number, withOps: boolean): Omit<Alignment, 'distance'> {
  const bk = back;
  const w = m + 1;
  let s = 0, d = 0, ins = 0, h = common;
  const ops: EditOp[] | undefined = withOps ? [] : undefined;
  let i = n, j = m;
  while (i > 0 || j > 0) {
    const op = bk[i * w + j];
    if (op === OP_MATCH) { h++; i--; j--; }
    else if (op === OP_SUB) { s++; i--; j--; ops?.push({ type: 'S', ref: p + i, hyp: p + j }); }
    else if (op === OP_DEL) { d++; i--; ops?.push({ type: 'D', ref: p + i, hyp: p + j }); }
    else { ins++; j--; ops?.push({ type: 'I', ref: p + i, hyp: p + j }); }
  }
  ops?.reverse();
  return { substitutions: s, deletions: d, insertions: ins, hits: h, ops };
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

/** The space, the separator preference used for character alignments. */
export const SPACE = 0x20;

// ---------------------------------------------------------------------------------------------
// Pair and corpus scores
// ---------------------------------------------------------------------------------------------

export interface PairScore {
  charEdits: number;
  refChars: number;
  wordEdits: number;
  refWords: number;
  /** Character edit breakdown of the alignment. */
  char: EditCounts;
}

export interface ScoringOptions {
  /** Collapse inner whitespace runs before scoring (default true). */
  collapseWhitespace?: boolean;
  /** Score under this normalisation profile (./profiles); null/undefined = the canonical form only (`nfc`). */
  profile?: NormalizationProfile | null;
}

/** Bring a raw text to the form that is scored under `opts`. */
export function prepareText(s: string, opts: ScoringOptions = {}): string {
  const collapse = opts.collapseWhitespace ?? true;
  return opts.profile ? applyProfile(s, opts.profile, collapse) : canonical(s, collapse);
}

/** The characters of a prepared text as integers: code points, or grapheme-cluster ids under a `grapheme` profile. */
export function charUnits(prepared: string, opts: ScoringOptions = {}): Int32Array {
  return opts.profile?.unit === 'grapheme' ? graphemeIds(prepared) : toCodePoints(prepared);
}

/** Score one pair. `ref`/`hyp` are raw texts; they are brought to scoring form here. */
export function scorePair(ref: string, hyp: string, opts: ScoringOptions = {}): PairScore {
  const r = prepareText(ref, opts);
  const h = prepareText(hyp, opts);
  if (opts.profile?.unit === 'grapheme') return scoreUnits(r, h, charUnits(r, opts), charUnits(h, opts), false).score;
  return scorePrepared(r, h).score;
}

export interface PreparedScore {
  score: PairScore;
  /** Character edits (reference = gold) when requested. */
  ops?: EditOp[];
}

/**
 * Score texts that are already in scoring form. The character alignment is the same one
 * error_changes uses (`withOps`), so CER and the error analysis never disagree.
 */
export function scorePrepared(ref: string, hyp: string, withOps = false): PreparedScore {
  return scoreUnits(ref, hyp, toCodePoints(ref), toCodePoints(hyp), withOps);
}

function scoreUnits(ref: string, hyp: string, rc: Int32Array, hc: Int32Array, withOps: boolean): PreparedScore {
  const c = alignSequences(rc, hc, { separator: SPACE, ops: withOps });
  const w = wordDistance(ref, hyp);
  return {
    score: { charEdits: c.distance, refChars: rc.length, wordEdits: w.edits, refWords: w.refWords, char: strip(c) },
    ops: c.ops,
  };
}

function wordDistance(ref: string, hyp: string): { edits: number; refWords: number } {
  const rw = toWords(ref);
  const [ri, hi] = wordIds(rw, toWords(hyp));
  return { edits: levenshtein(ri, hi), refWords: rw.length };
}

export interface DistanceScore {
  charEdits: number;
  refChars: number;
  wordEdits: number;
  refWords: number;
}

/** Character and word edit distances only (the fast path for secondary figures); texts are raw. */
export function scoreDistances(ref: string, hyp: string, opts: ScoringOptions = {}): DistanceScore {
  const r = prepareText(ref, opts);
  const h = prepareText(hyp, opts);
  const rc = charUnits(r, opts);
  const w = wordDistance(r, h);
  return { charEdits: levenshtein(rc, charUnits(h, opts)), refChars: rc.length, wordEdits: w.edits, refWords: w.refWords };
}

function strip(a: Alignment): EditCounts {
  return { distance: a.distance, substitutions: a.substitutions, deletions: a.deletions, insertions: a.insertions, hits: a.hits };
}

export interface RateSummary {
  /** Summed edits / summed reference length (null when the reference is empty). */
  rate: number | null;
  edits: number;
  ref_length: number;
  /** Mean of per-line rates over lines with a non-empty reference. */
  mean_per_line: number | null;
  /** Edit breakdown (characters only; null for words, which are scored by distance). */
  substitutions: number | null;
  deletions: number | null;
  insertions: number | null;
}

/** Accumulates pair scores into corpus-level CER and WER. */
export class ErrorRateAccumulator {
  lines = 0;
  emptyReference = 0;
  private c = zeroSums();
  private w = zeroSums();

  add(p: PairScore): void {
    this.lines++;
    if (p.refChars === 0) this.emptyReference++;
    addSums(this.c, p.char, p.refChars);
    addSums(this.w, { distance: p.wordEdits, substitutions: 0, deletions: 0, insertions: 0, hits: 0 }, p.refWords);
  }

  get cer(): RateSummary { return summarize(this.c, true); }
  get wer(): RateSummary { return summarize(this.w, false); }
}

interface Sums { edits: number; ref: number; s: number; d: number; i: number; lineRateSum: number; linesWithRef: number }
function zeroSums(): Sums { return { edits: 0, ref: 0, s: 0, d: 0, i: 0, lineRateSum: 0, linesWithRef: 0 }; }
function addSums(t: Sums, e: EditCounts, refLen: number): void {
  t.edits += e.distance;
  t.ref += refLen;
  t.s += e.substitutions;
  t.d += e.deletions;
  t.i += e.insertions;
  if (refLen > 0) {
    t.lineRateSum += e.distance / refLen;
    t.linesWithRef++;
  }
}
function summarize(t: Sums, breakdown: boolean): RateSummary {
  return {
    rate: t.ref > 0 ? t.edits / t.ref : null,
    edits: t.edits,
    ref_length: t.ref,
    mean_per_line: t.linesWithRef > 0 ? t.lineRateSum / t.linesWithRef : null,
    substitutions: breakdown ? t.s : null,
    deletions: breakdown ? t.d : null,
    insertions: breakdown ? t.i : null,
  };
}

/** Corpus-level CER of parallel lists (summed edits / summed reference characters). */
export function cer(refs: readonly string[], hyps: readonly string[], opts: ScoringOptions = {}): number {
  return corpus(refs, hyps, opts).cer.rate ?? 0;
}

/** Corpus-level WER of parallel lists (summed edits / summed reference words). */
export function wer(refs: readonly string[], hyps: readonly string[], opts: ScoringOptions = {}): number {
  return corpus(refs, hyps, opts).wer.rate ?? 0;
}

function corpus(refs: readonly string[], hyps: readonly string[], opts: ScoringOptions): ErrorRateAccumulator {
  if (refs.length !== hyps.length) throw new Error(`cer/wer: ${refs.length} references but ${hyps.length} hypotheses`);
  const acc = new ErrorRateAccumulator();
  for (let k = 0; k < refs.length; k++) acc.add(scorePair(refs[k], hyps[k], opts));
  return acc;
}
