/**
 * The rows of the design document's files: per line of one dataset, the rag correction, the zero_shot
 * correction and the raw OCR against the gold line, plus what the line's retrieval looked like. Plain
 * rows that become an Arquero table (./sums.ts).
 *
 * Every CER/WER count, under every profile, is the arms analysis's scorer's (./pair-counts.ts, given per line), and
 * every character alignment its too (./pair-edits.ts, analysis/study/design-edits.ts): each text's substitutions /
 * deletions / insertions (metrics.json), and with error analysis the fixed and introduced errors (error_changes.json).
 * Nothing is scored or aligned here; the alignment is of the same prepared texts as the counts, so its S + D + I is
 * the line's character edits.
 *
 * Failed corrections (an `error`, or an empty output for a non-empty OCR line) are scored as identity:
 * corrected = OCR text. They are counted, never dropped.
 */
import type { CorrectionRecord } from '../../src/llm/records';
import { ERROR_CATEGORIES, ErrorChangeAccumulator } from '../score/error-changes';
import type { LineEdits } from '../study/design-edits';
import { eraOf, parseDate, type Era } from '../score/eras';
import { ocrCerBand, scoreBucket } from '../score/bands';
import type { AnalysisInputRecord, Loaded } from '../inputs/records';
import { prepareText, type DistanceScore } from '../../src/text/distance';
import type { NormalizationProfile, NormalizationSettings } from '../../src/text/profiles';
import { addLine, profileTallies, type ProfileTally } from './profiles-block';
import type { PairCounts } from './pair-counts';
import { failureKind, type FailureKind } from '../score/failed-line';

export interface ScoredLine {
  /** Position in the rag arm's file (stable order). */
  idx: number;
  sample_id: string;
  prompt_type: string;
  ref_chars: number;
  ref_words: number;
  ocr_ce: number;
  ocr_we: number;
  rag_ce: number;
  rag_we: number;
  /** Character substitutions / deletions / insertions of each alignment. */
  ocr_cs: number;
  ocr_cd: number;
  ocr_ci: number;
  rag_cs: number;
  rag_cd: number;
  rag_ci: number;
  base_cs: number;
  base_cd: number;
  base_ci: number;
  rag_failed: boolean;
  rag_failure: FailureKind | null;
  has_base: boolean;
  /** 0 when there is no zero_shot line (filter on has_base). */
  base_ce: number;
  base_we: number;
  base_failed: boolean;
  base_failure: FailureKind | null;
  /** Counts under the first secondary profile (the `normalized` blocks); 0 without a secondary profile. */
  n_ref_chars: number;
  n_ref_words: number;
  n_ocr_ce: number;
  n_ocr_we: number;
  n_rag_ce: number;
  n_rag_we: number;
  n_base_ce: number;
  n_base_we: number;
  ocr_band: string;
  has_input: boolean;
  has_retrieval: boolean;
  top1: number | null;
  top3_mean: number | null;
  topk_mean: number | null;
  bucket: string | null;
  top1_source: string | null;
  top1_era: string | null;
  /** Top-1 / any retrieved source matches the dataset's source pattern (null: no pattern or no retrieval). */
  leak_top1: boolean | null;
  leak_any: boolean | null;
  /** Gold text differs between the rag and zero_shot (or inference input) records of this sample. */
  gold_mismatch: boolean;
}

/** A line's edits: rag's from the analysis of its lines, zero_shot's from the pair's (null without a zero_shot line). */
export interface LineEditsOf {
  rag: LineEdits;
  pair: LineEdits | null;
}

export interface ScoreOptions {
  collapseWhitespace: boolean;
  /** Every figure is scored under `primary`; the secondary profiles are tallied beside (./profiles-block.ts). */
  profiles: NormalizationSettings;
  errorAnalysis: boolean;
  /** top_k for the "top-k" mean score; defaults to all scores of the line. */
  topK?: number;
  eras: readonly Era[];
  isSourceBook: ((uri: string) => boolean) | null;
}

export interface ScoredDataset extends DatasetTallies {
  dataset: string;
  rows: ScoredLine[];
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** What scoring a dataset accumulates besides the rows. */
interface DatasetTallies {
  /** Character error changes (OCR → correction), null when error analysis is off. */
  ragChanges: ErrorChangeAccumulator | null;
  zeroShotChanges: ErrorChangeAccumulator | null;
  /** Per line: [fixed, introduced] per ERROR_CATEGORIES entry for the rag arm (null when error analysis is off). */
  ragLineCategories: Int32Array[] | null;
  models: Map<string, number>;
  promptVersions: Map<string, number>;
  /** Summed counts per normalisation profile, the primary first. */
  profiles: ProfileTally[];
}

export function scoreDataset(
  dataset: string,
  rag: Array<Loaded<CorrectionRecord>>,
  zeroShot: Map<string, Loaded<CorrectionRecord>> | null,
  inputs: Map<string, Loaded<AnalysisInputRecord>> | null,
  counts: readonly PairCounts[],
  edits: readonly LineEditsOf[],
  opts: ScoreOptions,
  onLine?: () => void,
): ScoredDataset {
  const tallies: DatasetTallies = {
    ragChanges: opts.errorAnalysis ? new ErrorChangeAccumulator() : null,
    zeroShotChanges: opts.errorAnalysis && zeroShot ? new ErrorChangeAccumulator() : null,
    ragLineCategories: opts.errorAnalysis ? [] : null,
    models: new Map<string, number>(),
    promptVersions: new Map<string, number>(),
    profiles: profileTallies(opts.profiles),
  };
  const rows: ScoredLine[] = [];
  rag.forEach(({ record: r }, idx) => {
    tallies.models.set(r.model, (tallies.models.get(r.model) ?? 0) + 1);
    tallies.promptVersions.set(r.prompt_version, (tallies.promptVersions.get(r.prompt_version) ?? 0) + 1);
    const line = lineInputs(r, zeroShot?.get(r.sample_id)?.record ?? null, inputs?.get(r.sample_id)?.record ?? null);
    rows.push(scoreLine(idx, line, counts[idx], edits[idx], opts, tallies));
    onLine?.();
  });
  return { dataset, rows, ...tallies };
}

/** One rag line with what the other inputs say about it. */
interface LineInputs {
  r: CorrectionRecord;
  ragFailure: FailureKind | null;
  zeroShotRec: CorrectionRecord | null;
  zeroShotFailure: FailureKind | null;
  input: AnalysisInputRecord | null;
}

function lineInputs(r: CorrectionRecord, zeroShotRec: CorrectionRecord | null, input: AnalysisInputRecord | null): LineInputs {
  const ragFailure = failureKind(r);
  const zeroShotFailure = zeroShotRec ? failureKind(zeroShotRec) : null;
  return {
    r,
    ragFailure,
    zeroShotRec,
    zeroShotFailure,
    input,
  };
}

/**
 * Add the line's error changes (the arms analysis's, ../study/design-edits.ts) to the accumulators and its
 * per-category counts to ragLineCategories.
 */
function recordErrorChanges(e: LineEditsOf, tallies: DatasetTallies): void {
  const { ragChanges, zeroShotChanges, ragLineCategories } = tallies;
  if (!ragChanges || !ragLineCategories) return;
  const cats = new Int32Array(ERROR_CATEGORIES.length * 2);
  const c5 = e.rag.ragChanges;
  ragChanges.add(c5);
  for (const x of c5.fixed) cats[CATEGORY_INDEX.get(x.category)! * 2]++;
  for (const x of c5.introduced) cats[CATEGORY_INDEX.get(x.category)! * 2 + 1]++;
  const c2 = e.pair?.zeroShotChanges;
  if (zeroShotChanges && c2) zeroShotChanges.add(c2);
  ragLineCategories.push(cats);
}

/** How every primary figure prepares its texts: the canonical form under the primary profile. */
interface Base {
  collapseWhitespace: boolean;
  profile: NormalizationProfile;
}

const CATEGORY_INDEX = new Map<string, number>(ERROR_CATEGORIES.map((c, i) => [c, i]));

/** Project one line: its counts (`c`) and edits (`e`), error changes, and its row. */
function scoreLine(idx: number, l: LineInputs, c: PairCounts, e: LineEditsOf, opts: ScoreOptions, tallies: DatasetTallies): ScoredLine {
  const { r, ragFailure, zeroShotRec, zeroShotFailure, input } = l;
  const base: Base = { collapseWhitespace: opts.collapseWhitespace, profile: opts.profiles.primary };
  const g = prepareText(r.gt_text, base);
  const goldMismatch =
    (zeroShotRec !== null && prepareText(zeroShotRec.gt_text, base) !== g) || (input !== null && prepareText(input.gt_text, base) !== g);
  recordErrorChanges(e, tallies);
  const ocr = c.rag.ocr[0];
  const ragOut = c.rag.out[0];
  const zeroShotOut = c.zeroShot?.out[0] ?? null;
  const [oc, pc, qc] = [e.rag.ocr, e.rag.rag, zeroShotRec ? e.pair?.zeroShot : undefined];
  return {
    idx,
    sample_id: r.sample_id,
    prompt_type: r.prompt_type,
    ref_chars: ocr.refChars,
    ref_words: ocr.refWords,
    ocr_ce: ocr.charEdits,
    ocr_we: ocr.wordEdits,
    rag_ce: ragOut.charEdits,
    rag_we: ragOut.wordEdits,
    ocr_cs: oc.substitutions,
    ocr_cd: oc.deletions,
    ocr_ci: oc.insertions,
    rag_cs: pc.substitutions,
    rag_cd: pc.deletions,
    rag_ci: pc.insertions,
    base_cs: qc?.substitutions ?? 0,
    base_cd: qc?.deletions ?? 0,
    base_ci: qc?.insertions ?? 0,
    rag_failed: ragFailure !== null,
    rag_failure: ragFailure,
    has_base: zeroShotOut !== null,
    base_ce: zeroShotOut?.charEdits ?? 0,
    base_we: zeroShotOut?.wordEdits ?? 0,
    base_failed: zeroShotFailure !== null,
    base_failure: zeroShotFailure,
    ...profileColumns(c, tallies),
    ocr_band: ocrCerBand(ocr.charEdits, ocr.refChars),
    has_input: input !== null,
    ...retrievalColumns(input, opts),
    gold_mismatch: goldMismatch,
  };
}

/** The line's counts added to every profile's tally; those of the first secondary profile become the n_* columns. */
function profileColumns(c: PairCounts, tallies: DatasetTallies) {
  const at = (k: number) => ({ ocr: c.rag.ocr[k], rag: c.rag.out[k], zeroShot: c.zeroShot?.out[k] ?? null });
  tallies.profiles.forEach((t, k) => addLine(t.counts, at(k)));
  const first: { ocr: DistanceScore; rag: DistanceScore; zeroShot: DistanceScore | null } | null =
    tallies.profiles.length > 1 ? at(1) : null;
  return {
    n_ref_chars: first?.ocr.refChars ?? 0,
    n_ref_words: first?.ocr.refWords ?? 0,
    n_ocr_ce: first?.ocr.charEdits ?? 0,
    n_ocr_we: first?.ocr.wordEdits ?? 0,
    n_rag_ce: first?.rag.charEdits ?? 0,
    n_rag_we: first?.rag.wordEdits ?? 0,
    n_base_ce: first?.zeroShot?.charEdits ?? 0,
    n_base_we: first?.zeroShot?.wordEdits ?? 0,
  };
}

/** What the line's retrieval looked like: scores, top-1 source and era, and source-book matches. */
function retrievalColumns(input: AnalysisInputRecord | null, opts: ScoreOptions) {
  const scores = input?.retrieval_scores ?? [];
  const sources = input?.retrieval_sources ?? [];
  const hasRetrieval = scores.length > 0;
  const top1 = hasRetrieval ? scores[0] : null;
  const k = opts.topK ?? scores.length;
  const topSource = hasRetrieval && sources.length > 0 ? sources[0] : null;
  const match = opts.isSourceBook;
  return {
    has_retrieval: hasRetrieval,
    top1,
    top3_mean: hasRetrieval ? mean(scores.slice(0, 3)) : null,
    topk_mean: hasRetrieval ? mean(scores.slice(0, Math.max(1, k))) : null,
    bucket: top1 !== null ? scoreBucket(top1) : null,
    top1_source: topSource?.source_uri ?? null,
    top1_era: hasRetrieval ? eraOf(parseDate(topSource?.date), opts.eras) : null,
    leak_top1: match && hasRetrieval ? (topSource ? match(topSource.source_uri) : false) : null,
    leak_any: match && hasRetrieval ? sources.some((s) => match(s.source_uri)) : null,
  };
}
