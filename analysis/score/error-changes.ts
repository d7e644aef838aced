/**
 * What the LLM did to the OCR errors: align OCR→gold and corrected→gold at character level with the one
 * alignment routine (metrics.alignSequences) and compare the two error sets.
 *
 * An error is anchored on the gold text: a substitution at gold position i producing character h, a
 * deletion of gold position i, or an insertion of h into the gap before gold position i. Errors are
 * compared as multisets per line: present for OCR only → fixed, for the correction only → introduced,
 * for both → unchanged. So per line `ocr_errors = fixed + unchanged` and
 * `corrected_errors = introduced + unchanged` (the edit distances of the two alignments).
 * A substitution whose wrong character changed (ة→ه became ة→ت) counts as one fixed plus one introduced.
 */
import { DOT_GROUPS, HAMZA_FORMS, HAMZA_SEATS, isArabicDiacritic, TATWEEL } from '../../src/text/arabic';
import { alignSequences, SPACE, type EditOp } from '../../src/text/distance';
import { toCodePoints } from '../../src/text/tokens';

export type EditType = 'substitution' | 'deletion' | 'insertion';
export const EDIT_TYPES: readonly EditType[] = ['substitution', 'deletion', 'insertion'];

/** Arabic-aware error categories, in the order checks are made (first match wins). */
export const ERROR_CATEGORIES = [
  'whitespace',
  'diacritics_tatweel',
  'punctuation',
  'digits',
  'ta_marbuta',
  'alef_maqsura_ya',
  'hamza_alef',
  'dots_same_skeleton',
  'other_letter',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/** Letters that share a skeleton (rasm) and differ only in dots (src/text/arabic.ts). */
const SKELETON = new Map<string, number>();
DOT_GROUPS.forEach((g, k) => {
  for (const c of g) SKELETON.set(c, k);
});

const isSpace = (c: string) => /\s/u.test(c);
const isMark = (c: string) => c !== '' && (isArabicDiacritic(c.codePointAt(0)!) || c === TATWEEL);
const isPunct = (c: string) => /[\p{P}\p{S}]/u.test(c);
const isDigit = (c: string) => /\p{N}/u.test(c);

const categoryCache = new Map<string, ErrorCategory>();

/** Category of one edit; `ref`/`hyp` are single characters or '' for the missing side. */
export function classifyEdit(ref: string, hyp: string): ErrorCategory {
  const k = `${ref}\u0000${hyp}`;
  let c = categoryCache.get(k);
  if (c === undefined) {
    c = classifyUncached(ref, hyp);
    if (categoryCache.size < 100_000) categoryCache.set(k, c);
  }
  return c;
}

function classifyUncached(ref: string, hyp: string): ErrorCategory {
  const both = [ref, hyp].filter((c) => c !== '');
  if (both.some(isSpace)) return 'whitespace';
  if (both.some(isMark)) return 'diacritics_tatweel';
  if (both.some(isPunct)) return 'punctuation';
  if (both.some(isDigit)) return 'digits';
  if (ref === '' || hyp === '') {
    const c = both[0];
    if (c === 'ة') return 'ta_marbuta';
    if (c === 'ى') return 'alef_maqsura_ya';
    if (HAMZA_FORMS.has(c)) return 'hamza_alef';
    return 'other_letter';
  }
  const pair = new Set([ref, hyp]);
  if (pair.has('ة') && (pair.has('ه') || pair.has('ت'))) return 'ta_marbuta';
  if (pair.has('ى') && (pair.has('ي') || pair.has('ا'))) return 'alef_maqsura_ya';
  if ((HAMZA_FORMS.has(ref) || HAMZA_FORMS.has(hyp)) && [ref, hyp].every((c) => HAMZA_FORMS.has(c) || HAMZA_SEATS.has(c)))
    return 'hamza_alef';
  const gr = SKELETON.get(ref);
  if (gr !== undefined && gr === SKELETON.get(hyp)) return 'dots_same_skeleton';
  return 'other_letter';
}

/** One anchored error of a line. */
export interface AnchoredError {
  type: EditType;
  /** Gold character ('' for an insertion). */
  ref: string;
  /** Output character ('' for a deletion). */
  hyp: string;
  category: ErrorCategory;
  key: string;
}

const TYPE_OF: Record<EditOp['type'], EditType> = { S: 'substitution', D: 'deletion', I: 'insertion' };

/** Errors of `hyp` against `gold` (both already in scoring form), anchored on gold positions. */
export function anchoredErrors(gold: string, hyp: string): AnchoredError[] {
  const a = alignSequences(toCodePoints(gold), toCodePoints(hyp), { ops: true, separator: SPACE });
  return anchorOps(gold, hyp, a.ops!);
}

/** Anchored errors from the edits of an alignment already computed (metrics.scorePrepared with ops). */
export function anchorOps(gold: string, hyp: string, ops: readonly EditOp[]): AnchoredError[] {
  if (ops.length === 0) return [];
  const g = [...gold];
  const h = [...hyp];
  return ops.map((op) => {
    const ref = op.type === 'I' ? '' : g[op.ref];
    const out = op.type === 'D' ? '' : h[op.hyp];
    const key = op.type === 'S' ? `S|${op.ref}|${out}` : op.type === 'D' ? `D|${op.ref}` : `I|${op.ref}|${out}`;
    return { type: TYPE_OF[op.type], ref, hyp: out, category: classifyEdit(ref, out), key };
  });
}

export interface LineChange {
  ocr_errors: number;
  corrected_errors: number;
  fixed: AnchoredError[];
  introduced: AnchoredError[];
  unchanged: AnchoredError[];
}

/** Compare the OCR and corrected error multisets of one line (texts in scoring form). */
export function lineChanges(gold: string, ocr: string, corrected: string): LineChange {
  return compareErrors(anchoredErrors(gold, ocr), anchoredErrors(gold, corrected));
}

/** Fixed / introduced / unchanged from the anchored errors before (OCR) and after (correction). */
export function compareErrors(before: readonly AnchoredError[], after: readonly AnchoredError[]): LineChange {
  const afterByKey = new Map<string, AnchoredError[]>();
  for (const e of after) {
    const l = afterByKey.get(e.key);
    if (l) l.push(e);
    else afterByKey.set(e.key, [e]);
  }
  const fixed: AnchoredError[] = [];
  const unchanged: AnchoredError[] = [];
  for (const e of before) {
    const l = afterByKey.get(e.key);
    if (l && l.length > 0) {
      l.pop();
      unchanged.push(e);
    } else {
      fixed.push(e);
    }
  }
  // What is left in the corrected multiset was not in the OCR errors: introduced.
  const introduced: AnchoredError[] = [];
  for (const l of afterByKey.values()) introduced.push(...l);
  // Keep introduced errors in gold order for stable output.
  const order = new Map(after.map((e, i) => [e, i]));
  introduced.sort((x, y) => order.get(x)! - order.get(y)!);
  return { ocr_errors: before.length, corrected_errors: after.length, fixed, introduced, unchanged };
}

// ---------------------------------------------------------------------------------------------
// Aggregation
// ---------------------------------------------------------------------------------------------

export interface ChangeCounts {
  ocr_errors: number;
  corrected_errors: number;
  fixed: number;
  introduced: number;
  unchanged: number;
}

const zero = (): ChangeCounts => ({ ocr_errors: 0, corrected_errors: 0, fixed: 0, introduced: 0, unchanged: 0 });

export interface Confusion {
  type: EditType;
  ref: string;
  hyp: string;
  category: ErrorCategory;
  count: number;
}

export type ChangeKind = 'fixed' | 'introduced' | 'unchanged';

/** Sums line changes into totals, per edit type, per category, and confusion counts. */
export class ErrorChangeAccumulator {
  lines = 0;
  linesWithOcrErrors = 0;
  totals = zero();
  byType: Record<EditType, ChangeCounts> = { substitution: zero(), deletion: zero(), insertion: zero() };
  byCategory = Object.fromEntries(ERROR_CATEGORIES.map((c) => [c, zero()])) as Record<ErrorCategory, ChangeCounts>;
  private confusions: Record<ChangeKind, Map<string, Confusion>> = { fixed: new Map(), introduced: new Map(), unchanged: new Map() };

  add(c: LineChange): void {
    this.lines++;
    if (c.ocr_errors > 0) this.linesWithOcrErrors++;
    this.totals.ocr_errors += c.ocr_errors;
    this.totals.corrected_errors += c.corrected_errors;
    const bump = (kind: ChangeKind, list: AnchoredError[]) => {
      for (const e of list) {
        this.totals[kind]++;
        this.byType[e.type][kind]++;
        this.byCategory[e.category][kind]++;
        if (kind !== 'introduced') {
          this.byType[e.type].ocr_errors++;
          this.byCategory[e.category].ocr_errors++;
        }
        if (kind !== 'fixed') {
          this.byType[e.type].corrected_errors++;
          this.byCategory[e.category].corrected_errors++;
        }
        const k = `${e.type}|${e.ref}|${e.hyp}`;
        const m = this.confusions[kind];
        const cur = m.get(k);
        if (cur) cur.count++;
        else m.set(k, { type: e.type, ref: e.ref, hyp: e.hyp, category: e.category, count: 1 });
      }
    };
    bump('fixed', c.fixed);
    bump('introduced', c.introduced);
    bump('unchanged', c.unchanged);
  }

  /** Add another accumulator's counts (for the all-datasets aggregate). */
  merge(o: ErrorChangeAccumulator): void {
    this.lines += o.lines;
    this.linesWithOcrErrors += o.linesWithOcrErrors;
    addCounts(this.totals, o.totals);
    for (const t of EDIT_TYPES) addCounts(this.byType[t], o.byType[t]);
    for (const c of ERROR_CATEGORIES) addCounts(this.byCategory[c], o.byCategory[c]);
    for (const kind of ['fixed', 'introduced', 'unchanged'] as const) {
      const m = this.confusions[kind];
      for (const [k, v] of o.confusions[kind]) {
        const cur = m.get(k);
        if (cur) cur.count += v.count;
        else m.set(k, { ...v });
      }
    }
  }

  /** The `top` most frequent confusions of one kind; ties broken by type, gold char, output char. */
  topConfusions(kind: ChangeKind, top: number): Confusion[] {
    return [...this.confusions[kind].values()]
      .sort((a, b) => b.count - a.count || cmp(a.type, b.type) || cmp(a.ref, b.ref) || cmp(a.hyp, b.hyp))
      .slice(0, top)
      .map((c) => ({ ...c }));
  }
}

function addCounts(a: ChangeCounts, b: ChangeCounts): void {
  a.ocr_errors += b.ocr_errors;
  a.corrected_errors += b.corrected_errors;
  a.fixed += b.fixed;
  a.introduced += b.introduced;
  a.unchanged += b.unchanged;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
