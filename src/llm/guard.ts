/**
 * Over-correction guard and trimming of over-generation. Pure; never looks at the gold text,
 * only at the model's answer and the OCR line it was asked to correct.
 *
 * `trimOutput(raw, ocr)` starts from `cleanOutput` (./clean: think blocks, code fences, leading labels, one pair
 * of wrapping quotes — the record's `corrected_text`) and then removes what a model adds around the line:
 *   1. explanations after the line: from the first line that starts with a marker ("Explanation:", "Note:",
 *      "ملاحظة:", "التصحيحات:", "تم تصحيح …", a `---` rule) or, for an Arabic OCR line, from the first
 *      non-Arabic line after Arabic text, to the end; inline "(Note: …)" / "(ملاحظة: …)" and a trailing
 *      " Note: …" / " ملاحظة: …" on the line itself;
 *   2. preambles: non-Arabic lines before the Arabic text ("Sure! Here is the corrected version"), and a leading
 *      "…: " whose words say it is a preamble ("Here is the corrected text:", "إليك النص المصحح:");
 *   3. continuation: the remaining lines are joined with spaces; when that is longer than the OCR line, only the
 *      span that aligns best with the OCR line is kept (semi-global character alignment, `substringEditDistance`
 *      from src/text/distance.ts, widened to whole words) — continued sentences, a doubled line (the first copy),
 *      a preamble without a colon are dropped — provided the dropped words are mostly absent from the OCR line
 *      (`SPAN_MIN_SAVING`), so a line that a correction legitimately lengthens is left whole. A word the model
 *      restores at either end of the line may still be dropped: the price of never reading the gold line.
 * A marker or preamble that the OCR line itself contains (allowing OCR errors: `ocrHolds`) is content and stays.
 * `trimmed` is true when the result differs from `cleanOutput`'s in canonical form (src/text/canonical.ts);
 * when it does not, the text is exactly `cleanOutput`'s, so a line the trimming leaves alone keeps `cleanOutput`'s bytes.
 *
 * `applyGuard(raw, ocr, settings)` trims (when `trim_overgeneration`; otherwise it takes `cleanOutput`'s text),
 * then falls back to the OCR text, verbatim, on the first failing check, in this order (lengths and distances are
 * in code points of the canonical form, NFC, so a decomposed hamza counts once):
 *   - `fell_back:empty`       — nothing left after cleaning/trimming (while the OCR line is not empty);
 *   - `fell_back:empty_ocr`   — the OCR line is empty but the model wrote something (an empty OCR line with an empty
 *                               answer is `kept`);
 *   - `fell_back:not_arabic`  — the OCR line is Arabic text and the answer has letters, fewer than half of them
 *                               Arabic (a refusal, an English translation; src/text/arabic.ts). An answer with
 *                               no letters at all (a page number "407") goes on to the next checks;
 *   - `fell_back:length_ratio`— len(answer) / len(ocr) outside `length_ratio` [lo, hi] (bounds inclusive);
 *   - `fell_back:edit_ratio`  — Levenshtein(answer, ocr) > `max_edit_ratio` × len(ocr).
 * Otherwise the decision is `trimmed` (trimming changed the text) or `kept`. `applyGuard` ignores `enabled`: the
 * caller (the runner) decides whether the guard runs at all.
 */
import { z } from 'zod';
import { isMostlyArabic } from '../text/arabic';
import { levenshtein, substringEditDistance } from '../text/distance';
import { canonical } from '../text/canonical';
import { toCodePoints } from '../text/tokens';
import { cleanOutput } from './clean';

export interface GuardSettings {
  enabled: boolean;
  /** Fall back when the character edit distance to the OCR line exceeds this share of its length. */
  max_edit_ratio: number;
  /** Fall back when len(answer) / len(ocr) is outside [lo, hi]. */
  length_ratio: [number, number];
  /** Trim preambles, explanations and continuations before the checks. */
  trim_overgeneration: boolean;
}

export const GUARD_DEFAULTS: Readonly<GuardSettings> = Object.freeze({
  enabled: false,
  max_edit_ratio: 0.5,
  length_ratio: [0.6, 1.5] as [number, number],
  trim_overgeneration: true,
});

const lengthRatio = z
  .tuple([z.number().nonnegative(), z.number().positive()])
  .refine(([lo, hi]) => lo <= hi, 'length_ratio must be [lo, hi] with lo <= hi');

/** Strict, every key optional and without defaults: a per-arm override of the study's guard. */
export const GuardOverrideSchema = z.strictObject({
  enabled: z.boolean().optional(),
  max_edit_ratio: z.number().nonnegative().optional(),
  length_ratio: lengthRatio.optional(),
  trim_overgeneration: z.boolean().optional(),
});
export type GuardOverride = z.infer<typeof GuardOverrideSchema>;

/** The study-level `guard:` block: strict, with the defaults of GUARD_DEFAULTS. */
export const GuardSettingsSchema = z.strictObject({
  enabled: z.boolean().default(GUARD_DEFAULTS.enabled),
  max_edit_ratio: z.number().nonnegative().default(GUARD_DEFAULTS.max_edit_ratio),
  length_ratio: lengthRatio.default(() => [...GUARD_DEFAULTS.length_ratio] as [number, number]),
  trim_overgeneration: z.boolean().default(GUARD_DEFAULTS.trim_overgeneration),
});

/** The settings an arm runs with: the study's guard (or the defaults) with the arm's override on top. */
export function resolveGuard(study?: GuardSettings | null, arm?: GuardOverride | null): GuardSettings {
  const base = study ?? GUARD_DEFAULTS;
  const pick = <K extends keyof GuardSettings>(k: K): GuardSettings[K] => (arm?.[k] ?? base[k]) as GuardSettings[K];
  return {
    enabled: pick('enabled'),
    max_edit_ratio: pick('max_edit_ratio'),
    length_ratio: [...pick('length_ratio')] as [number, number],
    trim_overgeneration: pick('trim_overgeneration'),
  };
}

export type GuardReason = 'empty' | 'empty_ocr' | 'not_arabic' | 'length_ratio' | 'edit_ratio';
export type GuardDecision = 'kept' | 'trimmed' | `fell_back:${string}`;
export const GUARD_REASONS: readonly GuardReason[] = ['empty', 'empty_ocr', 'not_arabic', 'length_ratio', 'edit_ratio'];

// ---------------------------------------------------------------------------------------------
// Trimming
// ---------------------------------------------------------------------------------------------

const EXPLANATION_WORDS = [
  'explanation',
  'explanations',
  'note',
  'notes',
  'changes',
  'changes made',
  'corrections',
  'corrections made',
  'correction notes',
  'reasoning',
  'translation',
  'remarks',
  'comment',
  'comments',
  'ملاحظة',
  'ملاحظات',
  'ملحوظة',
  'تنبيه',
  'الشرح',
  'شرح',
  'التوضيح',
  'توضيح',
  'التصحيحات',
  'التعديلات',
  'التغييرات',
  'الترجمة',
  'التعليق',
];
/** Arabic phrases that open an explanation without a colon ("تم تصحيح الكلمات التالية"). */
const EXPLANATION_PHRASES = ['تم تصحيح', 'تم تعديل', 'تم تغيير', 'قمت بتصحيح', 'قمت بتعديل', 'لقد قمت', 'التصحيحات التي'];
const PREAMBLE_WORDS = [
  'here is',
  "here's",
  'here are',
  'corrected',
  'correction',
  'sure',
  'certainly',
  'output',
  'result',
  'إليك',
  'اليك',
  'هذا هو',
  'هذه هي',
  'المصحح',
  'المصحّح',
  'التصحيح',
  'تصحيح',
  'بعد التصحيح',
  'النص الصحيح',
  'بالتأكيد',
];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alt = (words: readonly string[]) => words.map(escapeRe).join('|');
/** Markdown decoration or a bullet before a marker. */
const DECOR = `[#>*_\\-•\\s]*`;
const MARKER_LINE_RE = new RegExp(
  `^${DECOR}[(\\[]?${DECOR}(?:(?:${alt(EXPLANATION_WORDS)})[*_\\s]*[:：]|(?:${alt(EXPLANATION_PHRASES)}))`,
  'iu',
);
const RULE_LINE_RE = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/u;
const INLINE_NOTE_RE = new RegExp(`\\s*[(\\[]\\s*(?:${alt(EXPLANATION_WORDS)})\\s*[:：][^)\\]]*(?:[)\\]]|$)`, 'giu');
const TRAILING_NOTE_RE = new RegExp(`\\s+(?:${alt(EXPLANATION_WORDS)})\\s*[:：][\\s\\S]*$`, 'iu');
const PREAMBLE_RE = new RegExp(`^([^\\n:：]{0,80}?(?:${alt(PREAMBLE_WORDS)})[^\\n:：]{0,40})[:：]\\s*`, 'iu');

/** Compare markers with the OCR line in one case and whitespace, so a marker the OCR itself holds stays. */
const squash = (s: string) => canonical(s).toLowerCase();

/**
 * True when the OCR line (squashed) holds `segment`, also with OCR errors: at most a quarter of its characters
 * edited (semi-global alignment), so "هدا هو الصحيح:" in the OCR protects the model's "هذا هو الصحيح:".
 */
function ocrHolds(ocrKey: string, segment: string): boolean {
  const seg = squash(segment);
  if (!seg || ocrKey.includes(seg)) return seg !== '';
  return substringEditDistance(toCodePoints(seg), toCodePoints(ocrKey)).distance <= Math.floor(Array.from(seg).length / 4);
}

export interface TrimResult {
  text: string;
  /** The result differs from `cleanOutput(raw)` (in scoring form): trimming removed something. */
  trimmed: boolean;
}

/**
 * Trim a model's answer down to the corrected line (see module comment). Never reads the gold text.
 * `spanMinSaving` is for bench/guard-trim.ts, which chooses it on a dev split.
 */
export function trimOutput(raw: string, ocr: string, spanMinSaving = SPAN_MIN_SAVING): TrimResult {
  const clean = (s: string) => cleanOutput(s, { source: ocr });
  const cleaned = clean(raw);
  const ocrKey = squash(ocr);
  const arabicOcr = isMostlyArabic(ocr);
  let lines = cleaned.split('\n');
  lines = cutExplanation(lines, ocrKey, arabicOcr);
  lines = dropLeadingForeignLines(lines, arabicOcr);
  let text = clean(stripInlineNotes(lines.join('\n'), ocrKey));
  text = clean(stripPreamble(text, ocrKey));
  text = clean(
    bestSpan(
      text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' '),
      ocr,
      spanMinSaving,
    ),
  );
  if (canonical(text) === canonical(cleaned)) return { text: cleaned, trimmed: false };
  return { text, trimmed: true };
}

/** Cut from the first explanation line (a marker, a rule, or a non-Arabic line after Arabic text) to the end. */
function cutExplanation(lines: string[], ocrKey: string, arabicOcr: boolean): string[] {
  let seenArabic = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    const marker = MARKER_LINE_RE.exec(line);
    const isMarker = marker !== null && !ocrHolds(ocrKey, marker[0].replace(/^[#>*_\-•\s([]+/u, ''));
    const foreignAfterArabic = arabicOcr && seenArabic && hasLetters(line) && !isMostlyArabic(line);
    if (i > 0 && (isMarker || RULE_LINE_RE.test(line) || foreignAfterArabic)) return lines.slice(0, i);
    seenArabic ||= isMostlyArabic(line);
  }
  return lines;
}

/** Drop non-Arabic lines before the first Arabic one, when the OCR line is Arabic and Arabic text follows. */
function dropLeadingForeignLines(lines: string[], arabicOcr: boolean): string[] {
  if (!arabicOcr) return lines;
  const first = lines.findIndex((l) => isMostlyArabic(l));
  return first > 0 ? lines.slice(first) : lines;
}

const hasLetters = (s: string) => /\p{L}/u.test(s);

/** "(Note: …)" anywhere and " ملاحظة: …" to the end of the text, unless the OCR line holds the marker. */
function stripInlineNotes(text: string, ocrKey: string): string {
  const keep = (m: string) =>
    ocrHolds(
      ocrKey,
      squash(m)
        .replace(/^[([]\s*/u, '')
        .split(/[:：]/u)[0],
    );
  let out = text.replace(INLINE_NOTE_RE, (m) => (keep(m) ? m : ''));
  const trailing = TRAILING_NOTE_RE.exec(out);
  if (trailing && !keep(trailing[0]) && trailing.index > 0) out = out.slice(0, trailing.index);
  return out;
}

/** A leading "…: " that announces the answer ("إليك النص المصحح:"), unless the OCR line starts the same way. */
function stripPreamble(text: string, ocrKey: string): string {
  const m = PREAMBLE_RE.exec(text);
  if (!m || ocrHolds(ocrKey, m[1])) return text;
  const rest = text.slice(m[0].length);
  return rest.trim() ? rest : text;
}

/**
 * Dropping words at the ends must save at least this many edits (against the OCR line) per dropped character.
 * Words the OCR line does not hold at all (a continuation, a second copy) save about one each; a correction
 * that legitimately grows the line (an abbreviation such as "صعم" written out) keeps most of its characters
 * matched and saves far fewer. 0.7 is what `bench/guard-trim.ts --split dev` chooses on its dev split (every
 * fifth OCR_GS line of each book): the lowest continuation CER while the gold answer loses ≤ 0.2 % CER. On the
 * 4,072 held-out lines the gold answer is cut on 37 lines (CER 0 → 0.17 %), while gold + three words, gold + the
 * next line and gold twice come back from 25–102 % CER to 1.6 % (0.0 would cut gold to 1.3 %, 0.9 leave the
 * others near 6.5 %).
 */
export const SPAN_MIN_SAVING = 0.7;

/**
 * Longer than the OCR line: keep the substring that aligns best with it, widened to whole words (a word the
 * model completed at either end stays), when dropping the rest pays (SPAN_MIN_SAVING). Ties go to the earliest
 * span, so a doubled line keeps its first copy.
 */
function bestSpan(joined: string, ocr: string, minSaving: number): string {
  const text = canonical(joined);
  const ocrCp = toCodePoints(canonical(ocr));
  const chars = Array.from(text);
  if (ocrCp.length === 0 || chars.length <= ocrCp.length) return joined;
  const textCp = toCodePoints(text);
  const { start, end } = substringEditDistance(ocrCp, textCp);
  let s = start;
  let e = end;
  while (s > 0 && chars[s - 1] !== ' ') s--;
  while (e < chars.length && chars[e] !== ' ') e++;
  const span = chars.slice(s, e).join('');
  const dropped = chars.length - (e - s);
  if (dropped === 0) return joined;
  const saved = levenshtein(ocrCp, textCp) - levenshtein(ocrCp, toCodePoints(span));
  return saved >= minSaving * dropped ? span : joined;
}

// ---------------------------------------------------------------------------------------------
// Guard
// ---------------------------------------------------------------------------------------------

export interface GuardResult {
  corrected_text: string;
  guard: GuardDecision;
}

/** Trim (per settings), then keep the answer or fall back to the OCR line verbatim (see module comment). */
export function applyGuard(raw: string, ocr: string, settings: GuardSettings): GuardResult {
  const { text, trimmed } = settings.trim_overgeneration
    ? trimOutput(raw, ocr)
    : { text: cleanOutput(raw, { source: ocr }), trimmed: false };
  const reason = fallbackReason(text, ocr, settings);
  if (reason) return { corrected_text: ocr, guard: `fell_back:${reason}` };
  return { corrected_text: text, guard: trimmed ? 'trimmed' : 'kept' };
}

/** The first failing check, or null when the answer may stand. */
export function fallbackReason(
  text: string,
  ocr: string,
  settings: Pick<GuardSettings, 'max_edit_ratio' | 'length_ratio'>,
): GuardReason | null {
  const hyp = toCodePoints(canonical(text));
  const ref = toCodePoints(canonical(ocr));
  if (ref.length === 0) return hyp.length === 0 ? null : 'empty_ocr';
  if (hyp.length === 0) return 'empty';
  if (isMostlyArabic(ocr) && hasLetters(text) && !isMostlyArabic(text)) return 'not_arabic';
  const [lo, hi] = settings.length_ratio;
  const ratio = hyp.length / ref.length;
  if (ratio < lo || ratio > hi) return 'length_ratio';
  if (levenshtein(ref, hyp) > settings.max_edit_ratio * ref.length) return 'edit_ratio';
  return null;
}

/**
 * The answer before the guard: cleaned (./clean: think blocks, fences, labels, wrapping quotes) but neither
 * trimmed nor checked. The analysis scores it as `raw_cer`, so raw vs guarded CER is the guard's own effect.
 */
export function unguardedOutput(raw: string, ocr: string): string {
  return cleanOutput(raw, { source: ocr });
}
