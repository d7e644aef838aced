/**
 * CER / WER and the one alignment routine behind them (and behind error_changes.json).
 *
 * Definitions (binding for every number the analysis writes):
 * - Texts are scored after `scoringText`: trimmed, every whitespace run collapsed to one space
 *   (`collapseWhitespace: false` keeps inner whitespace as is; word tokens are the same either way).
 * - CER = Levenshtein distance over Unicode code points; WER = the same over space-separated tokens.
 * - Corpus-level rates are summed edits / summed reference length (what `jiwer.cer(list, list)` computes);
 *   the per-line mean is reported beside them and skips lines with an empty reference.
 * - The secondary, clearly labelled "normalised" figures apply `normalizeArabic` to both sides first.
 *
 * `bench/metrics-vs-jiwer.ts` checks agreement with Python jiwer on all OCR_GS lines.
 */

// ---------------------------------------------------------------------------------------------
// Text preparation
// ---------------------------------------------------------------------------------------------

/**
 * The scoring form of a text: trimmed, and (by default) every whitespace run collapsed to one space.
 * With `collapseWhitespace = false` only the ends are trimmed, which reproduces the raw OCR_GS figures
 * in the data README (a few OCR lines carry double spaces that then count as insertions).
 */
export function scoringText(s: string, collapseWhitespace = true): string {
  const t = s.trim();
  return collapseWhitespace ? t.replace(/\s+/gu, ' ') : t;
}

/** Arabic orthographic normalisation switches (the keys of the config's `analysis.normalization`). */
export interface ArabicNormalization {
  /** Remove harakat, tanwin, shadda, sukun, superscript alef and Quranic annotation marks. */
  remove_diacritics: boolean;
  /** Remove tatweel (kashida, U+0640). */
  remove_tatweel: boolean;
  /** أ إ آ ٱ → ا */
  unify_alef: boolean;
  /** ى → ي */
  unify_yaa: boolean;
  /** ة → ه */
  unify_taa_marbuta: boolean;
}

export const DEFAULT_ARABIC_NORMALIZATION: Readonly<ArabicNormalization> = Object.freeze({
  remove_diacritics: true,
  remove_tatweel: true,
  unify_alef: true,
  unify_yaa: true,
  unify_taa_marbuta: true,
});

const DIACRITICS_RE = /[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED]/gu;
const TATWEEL_RE = /\u0640/gu;
const ALEF_RE = /[\u0622\u0623\u0625\u0671]/gu;

/** True when a code point is an Arabic diacritic in the sense of `removeDiacritics`. */
export function isArabicDiacritic(cp: number): boolean {
  return (
    (cp >= 0x0610 && cp <= 0x061a) ||
    (cp >= 0x064b && cp <= 0x065f) ||
    cp === 0x0670 ||
    (cp >= 0x06d6 && cp <= 0x06dc) ||
    (cp >= 0x06df && cp <= 0x06e8) ||
    (cp >= 0x06ea && cp <= 0x06ed)
  );
}

/** Orthographic normalisation for the secondary metrics, followed by `scoringText`. */
export function normalizeArabic(
  s: string,
  opts: Partial<ArabicNormalization> = DEFAULT_ARABIC_NORMALIZATION,
  collapseWhitespace = true,
): string {
  const o = { ...DEFAULT_ARABIC_NORMALIZATION, ...opts };
  let t = s;
  if (o.remove_diacritics) t = t.replace(DIACRITICS_RE, '');
  if (o.remove_tatweel) t = t.replace(TATWEEL_RE, '');
  if (o.unify_alef) t = t.replace(ALEF_RE, '\u0627');
  if (o.unify_yaa) t = t.replaceAll('\u0649', '\u064a');
  if (o.unify_taa_marbuta) t = t.replaceAll('\u0629', '\u0647');
  return scoringText(t, collapseWhitespace);
}

/** Code points of a string (not UTF-16 units, so astral characters count once, as in Python). */
export function toCodePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0)!;
  return n === s.length ? out : out.slice(0, n);
}

/** Whitespace-separated tokens of a scoring-form text (runs of whitespace separate once; '' → no tokens). */
export function toWords(s: string): string[] {
  return s === '' ? [] : s.split(/\s+/u).filter((w) => w !== '');
}

/** Map two token lists to integer ids so words align with the same routine as characters. */
export function wordIds(ref: string[], hyp: string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const map = (ws: string[]) => {
    const out = new Int32Array(ws.length);
    for (let i = 0; i < ws.length; i++) {
      let id = ids.get(ws[i]);
      if (id === undefined) {
        id = ids.size;
        ids.set(ws[i], id);
      }
      out[i] = id;
    }
    return out;
  };
  return [map(ref), map(hyp)];
}

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
  const sep = opts.separator ?? -1;
  const N = ref.length;
  const M = hyp.length;
  // A common prefix and suffix are matched outright (they never lengthen an optimal alignment), so
  // near-identical lines, the usual case after correction, cost almost nothing.
  const { p, q } = commonEnds(ref, hyp);
  const n = N - p - q;
  const m = M - p - q;
  const common = p + q;
  if (n === 0 || m === 0) {
    const ops: EditOp[] | undefined = withOps ? [] : undefined;
    if (ops) {
      for (let i = 0; i < n; i++) ops.push({ type: 'D', ref: p + i, hyp: p });
      for (let j = 0; j < m; j++) ops.push({ type: 'I', ref: p, hyp: p + j });
    }
    return { distance: n + m, substitutions: 0, deletions: n, insertions: m, hits: common, ops };
  }
  const cells = (n + 1) * (m + 1);
  if (cells > MAX_ALIGNMENT_CELLS) {
    throw new RangeError(`alignment too large: ${N} × ${M} symbols (limit ${MAX_ALIGNMENT_CELLS} cells)`);
  }
  if (prevRow.length < m + 1) {
    prevRow = new Float64Array(2 * (m + 1));
    curRow = new Float64Array(2 * (m + 1));
  }
  if (back.length < cells) back = new Uint8Array(Math.min(MAX_ALIGNMENT_CELLS, 2 * cells));
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
  const distance = Math.floor(prev[m] / SCALE);
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
  return { distance, substitutions: s, deletions: d, insertions: ins, hits: h, ops };
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
  /** Apply Arabic normalisation first (secondary metrics); null/undefined = raw. */
  normalization?: Partial<ArabicNormalization> | null;
}

/** Bring a raw text to the form that is scored under `opts`. */
export function prepareText(s: string, opts: ScoringOptions = {}): string {
  const collapse = opts.collapseWhitespace ?? true;
  return opts.normalization ? normalizeArabic(s, opts.normalization, collapse) : scoringText(s, collapse);
}

/** Score one pair. `ref`/`hyp` are raw texts; they are brought to scoring form here. */
export function scorePair(ref: string, hyp: string, opts: ScoringOptions = {}): PairScore {
  return scorePrepared(prepareText(ref, opts), prepareText(hyp, opts)).score;
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
  const rc = toCodePoints(ref);
  const c = alignSequences(rc, toCodePoints(hyp), { separator: SPACE, ops: withOps });
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
  const rc = toCodePoints(r);
  const w = wordDistance(r, h);
  return { charEdits: levenshtein(rc, toCodePoints(h)), refChars: rc.length, wordEdits: w.edits, refWords: w.refWords };
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
