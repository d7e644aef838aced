/**
 * Every analysed line with every arm, for the report's Lines view and its examples: per line the OCR band,
 * the CER of OCR and of each arm's output against gold with the character diff of the counted alignment
 * (analysis/lines/diff.ts), the retrieved sentences, the raw model output where trimming or the guard changed it;
 * and the confusion counts by error class (src/text/arabic.ts `errorClassOf`) of OCR and of each arm.
 *
 * Written as lines.json and error_classes.json beside the other documents; report.ts reads them back.
 */
import type { CorrectionRecord } from '../../src/llm/records';
import { ERROR_CLASSES, errorClassOf, type ErrorClass } from '../../src/text/arabic';
import { prepareText, scoreDistances, scorePrepared } from '../../src/text/distance';
import type { LineArm } from './line-arms';
import { lineKey } from '../inputs/records';
import { diffSegments, type DiffSegment } from './diff';
import { anchorOps, compareErrors, type AnchoredError } from '../score/error-changes';
import { OCR_CER_BANDS, ocrCerBand } from '../score/bands';
import { round } from '../format';
import type { AnalysisInputRecord } from '../inputs/records';
import { failureKind, scoredText, type FailureKind } from '../score/failed-line';
import { passageSimilarity, SAME_PASSAGE_MIN_SIMILARITY, type HitClass } from '../../src/witness/provenance';

/** One text scored against gold: its edits (the CER numerator), its line CER and the diff. */
export interface ScoredText {
  edits: number;
  cer: number | null;
  diff: DiffSegment[];
}

export interface RetrievedSentence {
  score: number | null;
  source_uri: string | null;
  text: string | null;
  /** The hit comes from the dataset's own source book (null: the dataset has no source pattern). */
  from_source: boolean | null;
  /** Study arms: same_passage / same_work / other_work / unknown_work (src/witness/provenance.ts); null without text. */
  provenance?: HitClass | null;
}

export interface ArmLine extends ScoredText {
  /** Why the correction counts as failed (then scored as its OCR text), or null. */
  failed: FailureKind | null;
  /** Untouched model output, only when it differs from the corrected text. */
  raw: string | null;
  /** The guard's decision ("kept", "trimmed", "fell_back:<reason>") when the arm ran with one. */
  guard: string | null;
  retrieval: RetrievedSentence[] | null;
  /** Study arms: a retrieved sentence holds the line's gold passage (null: the arm saw no context). */
  gold_in_context?: boolean | null;
  /**
   * An arm with replicates: whether its replicates scored different texts on this line, and then every
   * replicate's text (replicate 0 first; null where a replicate has no line).
   */
  replicates_disagree?: boolean;
  replicate_texts?: (string | null)[];
}

export interface ExplorerLine {
  dataset: string;
  sample_id: string;
  band: string;
  ref_chars: number;
  ocr: ScoredText;
  /** Arm name → its line (null when the arm has no line for this sample). */
  arms: Record<string, ArmLine | null>;
}

export interface LinesOptions {
  collapseWhitespace: boolean;
  baseline: string;
  /** Per dataset: does a retrieved source URI come from its source book (null: unknown). */
  sourceMatcher: (dataset: string) => ((uri: string) => boolean) | null;
  sourceExcluded: (dataset: string) => boolean | null;
  /** Class every retrieved sentence and say whether the gold passage was in context (study arms only). */
  provenance?: boolean;
}

type ClassCounts = Record<ErrorClass, number>;
const zeroClasses = (): ClassCounts => Object.fromEntries(ERROR_CLASSES.map((c) => [c, 0])) as ClassCounts;

/** Error-class counts of OCR and of each arm (errors vs gold, and fixed / introduced relative to OCR). */
export class ErrorClassAccumulator {
  lines: Record<string, number> = {};
  errors: Record<string, ClassCounts> = { ocr: zeroClasses() };
  fixed: Record<string, ClassCounts> = {};
  introduced: Record<string, ClassCounts> = {};

  addOcr(errs: readonly AnchoredError[]): void {
    this.lines.ocr = (this.lines.ocr ?? 0) + 1;
    count(this.errors.ocr, errs);
  }

  addArm(arm: string, ocr: readonly AnchoredError[], out: readonly AnchoredError[]): void {
    for (const m of [this.errors, this.fixed, this.introduced]) m[arm] ??= zeroClasses();
    this.lines[arm] = (this.lines[arm] ?? 0) + 1;
    count(this.errors[arm], out);
    const c = compareErrors(ocr, out);
    count(this.fixed[arm], c.fixed);
    count(this.introduced[arm], c.introduced);
  }
}

function count(into: ClassCounts, errs: readonly AnchoredError[]): void {
  for (const e of errs) into[errorClassOf(e.ref, e.hyp)]++;
}

interface Aligned extends ScoredText {
  errors: AnchoredError[];
}

/** Score `hyp` against gold `g` (scoring form) with the counted alignment; a runaway line gets one changed segment. */
function alignText(g: string, hyp: string, refChars: number): Aligned {
  try {
    const a = scorePrepared(g, hyp, true);
    const e = a.score.charEdits;
    return { edits: e, cer: lineCer(e, refChars), diff: diffSegments(g, hyp, a.ops!), errors: anchorOps(g, hyp, a.ops!) };
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const e = scoreDistances(g, hyp, { collapseWhitespace: false }).charEdits;
    return { edits: e, cer: lineCer(e, refChars), diff: [[g, hyp, e]], errors: [] };
  }
}

const lineCer = (edits: number, refChars: number) => (refChars > 0 ? round(edits / refChars) : null);

/** What a line of the view needs from its record (a correction or an inference input). */
export type LineText = Pick<CorrectionRecord, 'dataset' | 'sample_id' | 'gt_text' | 'ocr_text'>;

/** The lines to show: datasets in order, each dataset's records in file order. */
export interface LineSource {
  datasets: readonly string[];
  byDataset: ReadonlyMap<string, ReadonlyArray<{ record: LineText }>>;
}

/** Every line of `source` (the rag arm's lines, or the study baseline's) with every arm. */
export function explorerLines(
  source: LineSource,
  arms: readonly LineArm[],
  opts: LinesOptions,
): { lines: ExplorerLine[]; classes: ErrorClassAccumulator } {
  const classes = new ErrorClassAccumulator();
  const lines: ExplorerLine[] = [];
  for (const ds of source.datasets) {
    const match = opts.sourceMatcher(ds);
    for (const { record } of source.byDataset.get(ds) ?? []) lines.push(explorerLine(record, arms, opts, match, classes));
  }
  return { lines, classes };
}

function explorerLine(
  r: LineText,
  arms: readonly LineArm[],
  opts: LinesOptions,
  match: ((uri: string) => boolean) | null,
  classes: ErrorClassAccumulator,
): ExplorerLine {
  const base = { collapseWhitespace: opts.collapseWhitespace };
  const g = prepareText(r.gt_text, base);
  const refChars = [...g].length;
  const { errors: ocrErrors, ...ocr } = alignText(g, prepareText(r.ocr_text, base), refChars);
  classes.addOcr(ocrErrors);
  const key = lineKey(r.dataset, r.sample_id);
  const armLines: Record<string, ArmLine | null> = {};
  for (const arm of arms) {
    const x = arm.corrections.get(key);
    if (!x) {
      armLines[arm.name] = null;
      continue;
    }
    const failed = failureKind(x.record);
    const text = scoredText(x.record);
    const a = alignText(g, prepareText(text, base), refChars);
    classes.addArm(arm.name, ocrErrors, a.errors);
    const retrieval = retrieved(arm.inputs?.get(key) ?? null, match);
    armLines[arm.name] = {
      edits: a.edits,
      cer: a.cer,
      diff: a.diff,
      failed,
      ...rawAndGuard(x.record, x.raw),
      retrieval,
      ...(opts.provenance ? withProvenance(r.gt_text, retrieval, match) : {}),
      ...replicateAgreement(arm, key, text),
    };
  }
  return { dataset: r.dataset, sample_id: r.sample_id, band: ocrCerBand(ocr.edits, refChars), ref_chars: refChars, ocr, arms: armLines };
}

/** An arm with replicates: do its replicates' texts of the line differ (and then what they are)? */
function replicateAgreement(arm: LineArm, key: string, own: string): Pick<ArmLine, 'replicates_disagree' | 'replicate_texts'> {
  if (!arm.replicates) return {};
  const texts = [own, ...arm.replicates.map((m) => m.get(key) ?? null)];
  const disagree = texts.some((t) => t !== own);
  return disagree ? { replicates_disagree: true, replicate_texts: texts } : { replicates_disagree: false };
}

/** Each sentence's provenance class and whether any holds the gold passage (src/witness/provenance.ts). */
function withProvenance(
  gold: string,
  retrieval: RetrievedSentence[] | null,
  match: ((uri: string) => boolean) | null,
): { retrieval: RetrievedSentence[] | null; gold_in_context: boolean | null } {
  if (!retrieval) return { retrieval, gold_in_context: null };
  const classed = retrieval.map((h): RetrievedSentence => {
    if (h.text === null) return { ...h, provenance: null };
    if (passageSimilarity(gold, h.text) >= SAME_PASSAGE_MIN_SIMILARITY) return { ...h, provenance: 'same_passage' };
    return {
      ...h,
      provenance: match === null || h.source_uri === null ? 'unknown_work' : match(h.source_uri) ? 'same_work' : 'other_work',
    };
  });
  return { retrieval: classed, gold_in_context: classed.some((h) => h.provenance === 'same_passage') };
}

/** The raw model output when it differs from the corrected text (`raw_text` of a guarded arm, else `raw_output`), and the guard's decision. */
function rawAndGuard(r: CorrectionRecord, raw: unknown): { raw: string | null; guard: string | null } {
  const o = (raw ?? {}) as { raw_text?: unknown; guard?: unknown };
  const untouched = typeof o.raw_text === 'string' ? o.raw_text : r.raw_output;
  return { raw: untouched !== r.corrected_text ? untouched : null, guard: typeof o.guard === 'string' ? o.guard : null };
}

/**
 * The sentences of a prompt's retrieval context (src/retrieval/pipeline-prompt.ts `formatContext`): numbered_arabic
 * is a header line then "1. …", "2. …"; plain with citations "[#1] …". The numbers, taken in order, start the
 * sentences — a line without the next number continues the sentence before it (a hit whose context window
 * kept a newline), and lines before "1." are the header. Plain context without numbers is one sentence a line,
 * which can be trusted only when the count matches (`numbered: false`).
 */
export function contextSentences(context: string): { sentences: string[]; numbered: boolean } {
  const lines = context.split('\n');
  const sentences: string[] = [];
  for (const line of lines) {
    const text = afterNumber(line, sentences.length + 1);
    if (text !== null) sentences.push(text);
    else if (sentences.length > 0) sentences[sentences.length - 1] += `\n${line}`;
  }
  if (sentences.length > 0) return { sentences: sentences.map((t) => t.trimEnd()), numbered: true };
  return { sentences: lines.filter((l) => l.trim() !== ''), numbered: false };
}

/** The line's text after the number `n` ("n. " or "[#n] "), or null when it does not start with it. */
function afterNumber(line: string, n: number): string | null {
  for (const prefix of [`${n}. `, `[#${n}] `]) if (line.startsWith(prefix)) return line.slice(prefix.length);
  return null;
}

/** The retrieved sentences of an inference input: score, source and the sentence as the prompt showed it. */
export function retrieved(input: AnalysisInputRecord | null, match: ((uri: string) => boolean) | null): RetrievedSentence[] | null {
  if (!input) return null;
  const scores = input.retrieval_scores ?? [];
  const sources = input.retrieval_sources ?? [];
  const { sentences, numbered } = contextSentences(input.retrieval_context ?? '');
  const n = Math.max(scores.length, sources.length, numbered ? sentences.length : 0);
  const texts = numbered || sentences.length === n ? sentences : []; // unnumbered lines that miscount pair with nothing
  return Array.from({ length: n }, (_, i) => {
    const uri = sources[i]?.source_uri ?? null;
    return { score: scores[i] ?? null, source_uri: uri, text: texts[i] ?? null, from_source: match && uri !== null ? match(uri) : null };
  });
}

/** lines.json: the arms, then every line. */
export function linesDocument(
  lines: ExplorerLine[],
  arms: readonly LineArm[],
  opts: LinesOptions,
  generatedAt: string,
  datasets: readonly string[],
) {
  return {
    meta: {
      generated_at: generatedAt,
      num_lines: lines.length,
      baseline: opts.baseline,
      arms: arms.map((a) => ({ name: a.name, retrieval: a.retrievalMode, upper_bound: a.upperBound })),
      datasets: datasets.map((d) => ({ name: d, source_excluded: opts.sourceExcluded(d) })),
      bands: [...OCR_CER_BANDS],
      diff: 'segments of the counted character alignment (scoring form): a string = same in gold and output; [gold, output, edits] = changed, edits = code-point edits inside; summed edits = the CER numerator',
      delta_cer: `line CER of an arm − line CER of the baseline arm (${opts.baseline}) on the same line`,
    },
    lines,
  };
}

/** error_classes.json: errors by class vs gold for OCR and each arm, and what each arm fixed / introduced. */
export function errorClassesDocument(acc: ErrorClassAccumulator, arms: readonly LineArm[], generatedAt: string) {
  const names = arms.map((a) => a.name).filter((n) => acc.errors[n]);
  return {
    meta: {
      generated_at: generatedAt,
      classes:
        'substitutions within one dot-only letter group (dots_*), diacritics (and tatweel), hamza/alef forms, whitespace, other; first match wins',
      alignment: 'the character alignment CER counts; fixed / introduced compare each arm with the OCR errors of the same line',
      lines: acc.lines,
    },
    classes: [...ERROR_CLASSES],
    errors: Object.fromEntries(['ocr', ...names].map((n) => [n, acc.errors[n]])),
    fixed: Object.fromEntries(names.map((n) => [n, acc.fixed[n]])),
    introduced: Object.fromEntries(names.map((n) => [n, acc.introduced[n]])),
  };
}
