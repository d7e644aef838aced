/**
 * The per-dataset output documents (metrics.json, comparison_vs_phase2.json, error_changes.json,
 * retrieval_analysis.json) and the aggregated ones, built from the scored lines with Arquero.
 *
 * Sets of lines:
 * - metrics.json uses every Phase 5 line of the dataset;
 * - comparisons (comparison_vs_phase2.json, ΔCER by bucket / half / band) use the lines that have both a
 *   Phase 5 and a Phase 2 line (all lines when no baseline exists at all; Phase 2 figures are then null).
 */
import * as aq from 'arquero';
import { seedFor } from './bootstrap';
import { clusteredRates, type ClusteredResult as BootstrapResult, type Resampling } from './comparison-stats';
import { EDIT_TYPES, ERROR_CATEGORIES, ErrorChangeAccumulator, type ChangeCounts } from './error-changes';
import { OCR_CER_BANDS, SCORE_BUCKETS, UNKNOWN_ERA, ratio, round, spearman, type Era } from './format';
import type { ArabicNormalization } from '../src/text/arabic';
import type { ScoredDataset, ScoredLine } from './score';
import type { DatasetInfo } from './types';

const { op } = aq;
type Table = ReturnType<typeof aq.from>;

/** Study meta after defaults were resolved from the records. */
export interface ResolvedMeta {
  model: string | null;
  embedding_model: string | null;
  top_k: number | null;
  corpus_size: number | null;
  prompt_version: string | null;
}

export interface SectionContext {
  generatedAt: string;
  meta: ResolvedMeta;
  bootstrap: { iterations: number; seed: number } & Resampling;
  normalization: ArabicNormalization | null;
  collapseWhitespace: boolean;
  topConfusions: number;
  eras: readonly Era[];
  errorAnalysis: boolean;
  /** A comparison in which a condition has a larger share of failed lines is marked not valid. */
  maxFailedShare: number;
}

/** Present only when a comparison is not valid, so the documents of a study without failures keep their bytes. */
export type Validity = { valid: false; invalid_reason: string } | null;

/**
 * Failed lines (records with an error) score as the raw OCR text, so a condition with many of them makes its
 * CER — and ΔCER — a statement about the outage, not the method: more than `maxFailedShare` → not valid.
 */
export function comparisonValidity(cmp: Sums, hasBaseline: boolean, maxFailedShare: number): Validity {
  const over: string[] = [];
  const check = (label: string, failed: number) => {
    if (cmp.n > 0 && failed / cmp.n > maxFailedShare) over.push(`${label}: ${failed} of ${cmp.n} lines failed (${pct(failed / cmp.n)})`);
  };
  check('Phase 5 (RAG)', cmp.p5_fail_error);
  if (hasBaseline) check('Phase 2 (zero-shot)', cmp.p2_fail_error);
  if (over.length === 0) return null;
  return {
    valid: false,
    invalid_reason: `${over.join('; ')}, over infer.max_failed_share ${pct(maxFailedShare)}; failed lines score as the raw OCR, so no ΔCER is reported — rerun \`phase5 infer --retry-failed\``,
  };
}

/** The aggregate is not valid when its pooled lines are not, or when any dataset's comparison is not. */
function aggregateValidity(pooled: Validity, docs: DatasetDocuments[]): Validity {
  if (pooled) return pooled;
  const bad = docs.filter((d) => d.digest.validity);
  if (bad.length === 0) return null;
  return { valid: false, invalid_reason: bad.map((d) => `${d.digest.dataset} not valid — ${d.digest.validity!.invalid_reason}`).join(' | ') };
}

// ---------------------------------------------------------------------------------------------
// Table and sums
// ---------------------------------------------------------------------------------------------

/** The per-line table with the derived 0/1 and per-line rate columns used by every rollup. */
export function samplesTable(rows: Array<ScoredLine & { dataset?: string; stratum?: number }>): Table {
  // String expressions (not arrow functions): Arquero parses function source, and transpilers rewrite it.
  return aq.from(rows).derive({
    paired: 'd => d.has_p2 ? 1 : 0',
    p5_help: 'd => d.p5_ce < d.ocr_ce ? 1 : 0',
    p5_harm: 'd => d.p5_ce > d.ocr_ce ? 1 : 0',
    p2_help: 'd => d.has_p2 && d.p2_ce < d.ocr_ce ? 1 : 0',
    p2_harm: 'd => d.has_p2 && d.p2_ce > d.ocr_ce ? 1 : 0',
    p5_better: 'd => d.has_p2 && d.p5_ce < d.p2_ce ? 1 : 0',
    p5_worse: 'd => d.has_p2 && d.p5_ce > d.p2_ce ? 1 : 0',
    p5_fail_n: 'd => d.p5_failed ? 1 : 0',
    p2_fail_n: 'd => d.p2_failed ? 1 : 0',
    p5_fail_error: "d => d.p5_failure === 'error' ? 1 : 0",
    p5_fail_empty: "d => d.p5_failure === 'empty_output' ? 1 : 0",
    p2_fail_error: "d => d.p2_failure === 'error' ? 1 : 0",
    p2_fail_empty: "d => d.p2_failure === 'empty_output' ? 1 : 0",
    fallback_n: "d => d.prompt_type === 'zero_shot_fallback' ? 1 : 0",
    empty_ref: 'd => d.ref_chars === 0 ? 1 : 0',
    gold_mismatch_n: 'd => d.gold_mismatch ? 1 : 0',
    no_input_n: 'd => d.has_input ? 0 : 1',
    ocr_line_cer: 'd => d.ref_chars > 0 ? d.ocr_ce / d.ref_chars : null',
    p5_line_cer: 'd => d.ref_chars > 0 ? d.p5_ce / d.ref_chars : null',
    p2_line_cer: 'd => d.has_p2 && d.ref_chars > 0 ? d.p2_ce / d.ref_chars : null',
    ocr_line_wer: 'd => d.ref_words > 0 ? d.ocr_we / d.ref_words : null',
    p5_line_wer: 'd => d.ref_words > 0 ? d.p5_we / d.ref_words : null',
    p2_line_wer: 'd => d.has_p2 && d.ref_words > 0 ? d.p2_we / d.ref_words : null',
  });
}

const SUM_COLS = [
  'ref_chars', 'ref_words', 'ocr_ce', 'ocr_we', 'p5_ce', 'p5_we', 'p2_ce', 'p2_we',
  'ocr_cs', 'ocr_cd', 'ocr_ci', 'p5_cs', 'p5_cd', 'p5_ci', 'p2_cs', 'p2_cd', 'p2_ci',
  'n_ref_chars', 'n_ref_words', 'n_ocr_ce', 'n_ocr_we', 'n_p5_ce', 'n_p5_we', 'n_p2_ce', 'n_p2_we',
  'paired', 'p5_help', 'p5_harm', 'p2_help', 'p2_harm', 'p5_better', 'p5_worse',
  'p5_fail_n', 'p2_fail_n', 'p5_fail_error', 'p5_fail_empty', 'p2_fail_error', 'p2_fail_empty',
  'fallback_n', 'empty_ref', 'gold_mismatch_n', 'no_input_n',
] as const;
const MEAN_COLS = ['ocr_line_cer', 'p5_line_cer', 'p2_line_cer', 'ocr_line_wer', 'p5_line_wer', 'p2_line_wer', 'top1', 'top3_mean', 'topk_mean'] as const;

type SumCol = (typeof SUM_COLS)[number];
type MeanCol = (typeof MEAN_COLS)[number];
export type Sums = Record<SumCol, number> & Record<MeanCol, number | null> & { n: number; median_top1: number | null };

const ROLLUP: Record<string, unknown> = {
  n: op.count(),
  ...Object.fromEntries(SUM_COLS.map((c) => [c, op.sum(c)])),
  ...Object.fromEntries(MEAN_COLS.map((c) => [c, op.mean(c)])),
  median_top1: op.median('top1'),
};

function cleanSums(o: Record<string, unknown>): Sums {
  const out: Record<string, number | null> = { n: Number(o.n ?? 0) };
  for (const c of SUM_COLS) out[c] = typeof o[c] === 'number' && Number.isFinite(o[c]) ? (o[c] as number) : 0;
  for (const c of [...MEAN_COLS, 'median_top1']) out[c] = typeof o[c] === 'number' && Number.isFinite(o[c]) ? (o[c] as number) : null;
  return out as Sums;
}

/** Sums over a whole table. */
export function sums(t: Table): Sums {
  return cleanSums(t.rollup(ROLLUP as never).objects()[0] as Record<string, unknown>);
}

/** Sums per value of `key`, for the given labels in the given order (missing labels get empty sums). */
export function sumsBy(t: Table, key: string, labels: readonly string[]): Array<[string, Sums]> {
  const got = new Map<string, Sums>();
  for (const o of t.groupby(key).rollup(ROLLUP as never).objects() as Array<Record<string, unknown>>) {
    got.set(String(o[key]), cleanSums(o));
  }
  return labels.map((l) => [l, got.get(l) ?? cleanSums({ n: 0 })]);
}

// ---------------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------------

type Cond = 'ocr' | 'p5' | 'p2';

/** Full rate block of one condition (metrics.json `corrected` / `ocr_baseline`). */
export function conditionBlock(s: Sums, c: Cond) {
  return {
    cer: round(ratio(s[`${c}_ce`], s.ref_chars)),
    wer: round(ratio(s[`${c}_we`], s.ref_words)),
    cer_mean_per_line: round(s[`${c}_line_cer`]),
    wer_mean_per_line: round(s[`${c}_line_wer`]),
    char_edits: s[`${c}_ce`],
    ref_chars: s.ref_chars,
    word_edits: s[`${c}_we`],
    ref_words: s.ref_words,
    substitutions: s[`${c}_cs`],
    deletions: s[`${c}_cd`],
    insertions: s[`${c}_ci`],
  };
}

function cerWer(s: Sums, c: Cond) {
  return { cer: round(ratio(s[`${c}_ce`], s.ref_chars)), wer: round(ratio(s[`${c}_we`], s.ref_words)) };
}

function normCerWer(s: Sums, c: Cond) {
  return { cer: round(ratio(s[`n_${c}_ce`], s.n_ref_chars)), wer: round(ratio(s[`n_${c}_we`], s.n_ref_words)) };
}

/** CER-by-group figures: Phase 2 / Phase 5 on the comparison set, improvement = Phase 2 − Phase 5. */
function groupStats(s: Sums, hasBaseline: boolean) {
  const p5 = ratio(s.p5_ce, s.ref_chars);
  const p2 = hasBaseline ? ratio(s.p2_ce, s.ref_chars) : null;
  const ocr = ratio(s.ocr_ce, s.ref_chars);
  return {
    n_samples: s.n,
    mean_top1_score: round(s.top1),
    ocr_cer: round(ocr),
    phase2_cer: round(p2),
    phase5_cer: round(p5),
    delta_cer: round(p2 !== null && p5 !== null ? p5 - p2 : null),
    cer_improvement: round(p2 !== null && p5 !== null ? p2 - p5 : null),
    cer_improvement_vs_ocr: round(ocr !== null && p5 !== null ? ocr - p5 : null),
    phase5_help_rate: round(ratio(s.p5_help, s.n)),
    phase5_harm_rate: round(ratio(s.p5_harm, s.n)),
    phase2_help_rate: hasBaseline ? round(ratio(s.p2_help, s.n)) : null,
    phase2_harm_rate: hasBaseline ? round(ratio(s.p2_harm, s.n)) : null,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signed = (x: number, d = 4) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(d)}`;

/** One sentence in the spec's style ("CER reduced by 20.2% vs Phase 2.") with the bootstrap interval. */
export function interpretation(p2: number | null, p5: number | null, ci: [number, number] | null, significant: boolean | null): string {
  if (p2 === null || p5 === null) return 'No Phase 2 baseline for these samples, so no comparison was made.';
  const ciText = ci
    ? ` (ΔCER ${signed(p5 - p2)}, 95% CI [${signed(ci[0])}, ${signed(ci[1])}]${significant ? '' : ', not significant'})`
    : '';
  if (p2 === 0) return p5 === 0 ? `CER is 0 in both conditions${ciText}.` : `CER rose from 0 to ${pct(p5)} vs Phase 2${ciText}.`;
  const rel = ((p5 - p2) / p2) * 100;
  if (Math.abs(rel) < 0.05) return `CER unchanged vs Phase 2${ciText}.`;
  return `CER ${rel < 0 ? 'reduced' : 'increased'} by ${Math.abs(rel).toFixed(1)}% vs Phase 2${ciText}.`;
}

function deltaBlock(base: { cer: number | null; wer: number | null }, cur: { cer: number | null; wer: number | null }) {
  const abs = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  const rel = (a: number | null, b: number | null) => (a === null || b === null || a === 0 ? null : ((b - a) / a) * 100);
  return {
    cer_absolute: round(abs(base.cer, cur.cer)),
    wer_absolute: round(abs(base.wer, cur.wer)),
    cer_relative_pct: round(rel(base.cer, cur.cer), 2),
    wer_relative_pct: round(rel(base.wer, cur.wer), 2),
  };
}

function ciOf(b: BootstrapResult, name: string): [number, number] | null {
  const c = b.rates[name]?.ci95;
  return c ? [round(c[0])!, round(c[1])!] : null;
}

function deltaCi(b: BootstrapResult, name: string) {
  const d = b.deltas[name];
  return {
    estimate: round(d.estimate),
    ci95: d.ci95 ? ([round(d.ci95[0])!, round(d.ci95[1])!] as [number, number]) : null,
    p_value: round(d.p_value, 4),
    significant: d.significant,
    se: round(d.se),
    mde: round(d.mde),
  };
}

/** Bootstrap CER and WER of OCR / Phase 2 / Phase 5 on the comparison set (same resamples for both). */
function bootstrapBlock(t: Table, hasBaseline: boolean, iterations: number, seed: number, strata?: ArrayLike<number>, resampling: Resampling & { datasets?: readonly string[] } = {}) {
  const arr = (c: string) => t.array(c) as ArrayLike<number>;
  const run = (ref: string, suffix: 'ce' | 'we') => {
    const series: Record<string, ArrayLike<number>> = { ocr: arr(`ocr_${suffix}`), phase5: arr(`p5_${suffix}`) };
    const deltas: Record<string, [string, string]> = { phase5_vs_ocr: ['ocr', 'phase5'] };
    if (hasBaseline) {
      series.phase2 = arr(`p2_${suffix}`);
      deltas.phase5_vs_phase2 = ['phase2', 'phase5'];
      deltas.phase2_vs_ocr = ['ocr', 'phase2'];
    }
    return clusteredRates(arr(ref), series, deltas, { iterations, seed, strata, sampleIds: t.array('sample_id') as ArrayLike<string>, ...resampling });
  };
  const c = run('ref_chars', 'ce');
  const w = run('ref_words', 'we');
  return {
    method: 'paired percentile block bootstrap over clusters of lines (docs/statistics.md); p_value = block permutation test of the delta; mde = detectable |delta| at 80 % power',
    clusters: c.clusters,
    iterations: c.iterations,
    seed: c.seed,
    stratified_by_dataset: strata !== undefined,
    delta_cer: hasBaseline ? deltaCi(c, 'phase5_vs_phase2') : null,
    delta_wer: hasBaseline ? deltaCi(w, 'phase5_vs_phase2') : null,
    delta_cer_phase5_vs_ocr: deltaCi(c, 'phase5_vs_ocr'),
    delta_cer_phase2_vs_ocr: hasBaseline ? deltaCi(c, 'phase2_vs_ocr') : null,
    cer_ci95: { ocr: ciOf(c, 'ocr'), phase2: hasBaseline ? ciOf(c, 'phase2') : null, phase5: ciOf(c, 'phase5') },
    wer_ci95: { ocr: ciOf(w, 'ocr'), phase2: hasBaseline ? ciOf(w, 'phase2') : null, phase5: ciOf(w, 'phase5') },
  };
}

function changesBlock(acc: ErrorChangeAccumulator, top: number) {
  const withRates = (c: ChangeCounts) => ({
    ...c,
    net_error_change: c.corrected_errors - c.ocr_errors,
    fix_rate: round(ratio(c.fixed, c.ocr_errors)),
  });
  return {
    lines: acc.lines,
    lines_with_ocr_errors: acc.linesWithOcrErrors,
    totals: withRates(acc.totals),
    by_edit_type: Object.fromEntries(EDIT_TYPES.map((t) => [t, withRates(acc.byType[t])])),
    by_category: Object.fromEntries(ERROR_CATEGORIES.map((c) => [c, withRates(acc.byCategory[c])])),
    top_confusions: {
      fixed: acc.topConfusions('fixed', top),
      introduced: acc.topConfusions('introduced', top),
      unchanged: acc.topConfusions('unchanged', top),
    },
  };
}

/** The `meta` of metrics.json: per dataset (`dataset` right after `phase`) or for all of them (`datasets` last). */
function metricsMeta(ctx: SectionContext, numSamples: number, scope: { dataset: string } | { datasets: string[] }) {
  return {
    phase: 'phase5',
    ...('dataset' in scope ? { dataset: scope.dataset } : {}),
    model: ctx.meta.model,
    prompt_type: 'rag',
    prompt_version: ctx.meta.prompt_version,
    embedding_model: ctx.meta.embedding_model,
    top_k: ctx.meta.top_k,
    corpus_size: ctx.meta.corpus_size,
    generated_at: ctx.generatedAt,
    num_samples: numSamples,
    ...('datasets' in scope ? { datasets: scope.datasets } : {}),
  };
}

const FAILED_SCORED_AS = 'identity (corrected = OCR text)';

/** Phase 5 failures of metrics.json. */
function failuresBlock(all: Sums) {
  return { total: all.p5_fail_n, error: all.p5_fail_error, empty_output: all.p5_fail_empty, rate: round(ratio(all.p5_fail_n, all.n)), scored_as: FAILED_SCORED_AS };
}

/**
 * The comparison headline (both conditions, Δ, the sentence, OCR for reference, the bootstrap), shared by
 * comparison_vs_phase2.json and the aggregate comparison.json.
 */
function comparisonHeadline(cmp: Sums, hasBaseline: boolean, boot: ReturnType<typeof bootstrapBlock>, validity: Validity) {
  const p2cw = hasBaseline ? cerWer(cmp, 'p2') : null;
  const p5cw = cerWer(cmp, 'p5');
  return {
    ...validity,
    phase2_baseline: p2cw,
    phase5_corrected: p5cw,
    delta: p2cw ? deltaBlock(p2cw, p5cw) : null,
    interpretation: validity
      ? `Not valid: ${validity.invalid_reason}.`
      : interpretation(p2cw?.cer ?? null, p5cw.cer, boot.delta_cer?.ci95 ?? null, boot.delta_cer?.significant ?? null),
    ocr_baseline: cerWer(cmp, 'ocr'),
    bootstrap: boot,
  };
}

/** Phase 5 vs Phase 2 per line on the comparison set; per dataset also ties and the definition. */
function pairedLineEffects(cmp: Sums, hasBaseline: boolean, perDataset: boolean) {
  return {
    phase5_better_than_phase2: hasBaseline ? cmp.p5_better : null,
    phase5_worse_than_phase2: hasBaseline ? cmp.p5_worse : null,
    ...(perDataset ? { tied: hasBaseline ? cmp.n - cmp.p5_better - cmp.p5_worse : null } : {}),
    phase5_help_rate: round(ratio(cmp.p5_help, cmp.n)),
    phase5_harm_rate: round(ratio(cmp.p5_harm, cmp.n)),
    phase2_help_rate: hasBaseline ? round(ratio(cmp.p2_help, cmp.n)) : null,
    phase2_harm_rate: hasBaseline ? round(ratio(cmp.p2_harm, cmp.n)) : null,
    ...(perDataset ? { definition: 'help/harm: per line, fewer/more character edits than the raw OCR line' } : {}),
  };
}

/** CER-by-group figures per raw-OCR CER band of the comparison set. */
function byOcrCerBand(cmpT: Table, hasBaseline: boolean) {
  return Object.fromEntries(sumsBy(cmpT, 'ocr_band', OCR_CER_BANDS).map(([b, s]) => [b, groupStats(s, hasBaseline)]));
}

function normalizationLabel(n: ArabicNormalization): string {
  const parts: string[] = [];
  if (n.remove_diacritics) parts.push('diacritics removed');
  if (n.remove_tatweel) parts.push('tatweel removed');
  if (n.unify_alef) parts.push('أ إ آ ٱ → ا');
  if (n.unify_yaa) parts.push('ى → ي');
  if (n.unify_taa_marbuta) parts.push('ة → ه');
  return `SECONDARY metrics after Arabic normalisation (${parts.join('; ') || 'no rule enabled'}); the primary figures are unnormalised`;
}

// ---------------------------------------------------------------------------------------------
// Per-dataset documents
// ---------------------------------------------------------------------------------------------

export interface DatasetDocuments {
  metrics: Record<string, unknown>;
  comparison: Record<string, unknown>;
  errorChanges: Record<string, unknown> | null;
  retrieval: Record<string, unknown>;
  /** Everything the summary and the aggregate need. */
  digest: DatasetDigest;
}

export interface DatasetDigest {
  dataset: string;
  all: Sums;
  cmp: Sums;
  hasBaseline: boolean;
  bootstrap: ReturnType<typeof bootstrapBlock>;
  interpretation: string;
  leakage: ReturnType<typeof leakageBlock>;
  avgTop1: number | null;
  validity: Validity;
}

export function leakageBlock(info: DatasetInfo | undefined, withRetrieval: number, top1Matches: number | null, anyMatches: number | null) {
  const excluded = info ? info.excluded : null;
  const pattern = info?.sourcePattern ?? null;
  let statement: string;
  if (!info) {
    statement = 'No source-book information configured for this dataset; leakage not checked.';
  } else if (pattern === null) {
    statement = `Source book ${excluded ? 'excluded from' : 'NOT excluded from'} the corpus per config; no source pattern known, so retrieved sources were not checked.`;
  } else if (withRetrieval === 0) {
    statement = `Source book ${excluded ? 'excluded from' : 'NOT excluded from'} the corpus per config; no retrievals to check against ${pattern}.`;
  } else if (excluded) {
    statement =
      top1Matches === 0 && anyMatches === 0
        ? `Source book excluded from the corpus; none of ${withRetrieval} retrievals came from it (pattern ${pattern}).`
        : `Source book excluded from the corpus per config, yet ${top1Matches}/${withRetrieval} top-1 hits (${anyMatches} within top-k) match ${pattern}: check the exclusion.`;
  } else {
    statement =
      top1Matches === 0 && anyMatches === 0
        ? `Source book NOT excluded from the corpus, but none of ${withRetrieval} retrievals came from it (pattern ${pattern}).`
        : `LEAKAGE: source book NOT excluded from the corpus; ${top1Matches}/${withRetrieval} top-1 hits (${pct((top1Matches ?? 0) / withRetrieval)}; ${anyMatches} within top-k) come from it (pattern ${pattern}), so results for this dataset may be inflated.`;
  }
  return {
    source_excluded_by_config: excluded,
    source_pattern: pattern,
    samples_with_retrieval: withRetrieval,
    top1_source_matches: top1Matches,
    topk_source_matches: anyMatches,
    top1_match_rate: top1Matches === null ? null : round(ratio(top1Matches, withRetrieval)),
    statement,
  };
}

const HIST_WIDTH = 0.025;

function scoreHistogram(scores: number[]) {
  const counts = new Map<number, number>();
  for (const s of scores) {
    const b = Math.floor(s / HIST_WIDTH + 1e-9);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  const keys = [...counts.keys()].sort((a, b) => a - b);
  const bins: Array<{ from: number; to: number; count: number }> = [];
  if (keys.length > 0) {
    for (let b = keys[0]; b <= keys[keys.length - 1]; b++) {
      bins.push({ from: round(b * HIST_WIDTH, 6)!, to: round((b + 1) * HIST_WIDTH, 6)!, count: counts.get(b) ?? 0 });
    }
  }
  return { bin_width: HIST_WIDTH, of: 'top-1 score', bins };
}

/** The per-line table, its sums, and the comparison set (lines with a Phase 2 line; all lines without any). */
interface Rollup {
  t: Table;
  all: Sums;
  hasBaseline: boolean;
  cmpT: Table;
  cmp: Sums;
}

function rollup(rows: Array<ScoredLine & { dataset?: string; stratum?: number }>): Rollup {
  const t = samplesTable(rows);
  const all = sums(t);
  const hasBaseline = all.paired > 0;
  const cmpT = hasBaseline ? t.filter('d => d.has_p2') : t;
  const cmp = hasBaseline ? sums(cmpT) : all;
  return { t, all, hasBaseline, cmpT, cmp };
}

export function datasetDocuments(scored: ScoredDataset, ctx: SectionContext, info: DatasetInfo | undefined): DatasetDocuments {
  const ds = scored.dataset;
  const r = rollup(scored.rows);
  const boot = bootstrapBlock(r.cmpT, r.hasBaseline, ctx.bootstrap.iterations, seedFor(ctx.bootstrap.seed, ds), undefined, { ...ctx.bootstrap, datasets: [ds] });
  const validity = comparisonValidity(r.cmp, r.hasBaseline, ctx.maxFailedShare);
  const comparison = comparisonDocument(ds, r, boot, validity, ctx);
  const retrieval = retrievalDocument(scored, r, ctx, info);
  return {
    metrics: metricsDocument(scored, r, ctx),
    comparison,
    errorChanges: scored.p5Changes
      ? errorChangesDocument({ dataset: ds }, r.all.n, scored.alignmentSkipped, scored.p5Changes, scored.p2Changes, ctx)
      : null,
    retrieval,
    digest: {
      dataset: ds,
      all: r.all,
      cmp: r.cmp,
      hasBaseline: r.hasBaseline,
      bootstrap: boot,
      interpretation: comparison.interpretation,
      leakage: retrieval.leakage,
      avgTop1: retrieval.retrieval_stats.avg_top1_score,
      validity,
    },
  };
}

/** metrics.json (spec §10.1 + counts): every Phase 5 line of the dataset. */
function metricsDocument(scored: ScoredDataset, { t, all }: Rollup, ctx: SectionContext) {
  return {
    meta: metricsMeta(ctx, all.n, { dataset: scored.dataset }),
    corrected: conditionBlock(all, 'p5'),
    ocr_baseline: conditionBlock(all, 'ocr'),
    line_effects: {
      helped: all.p5_help,
      harmed: all.p5_harm,
      unchanged: all.n - all.p5_help - all.p5_harm,
      help_rate: round(ratio(all.p5_help, all.n)),
      harm_rate: round(ratio(all.p5_harm, all.n)),
      definition: 'per line, Phase 5 character edits vs the raw OCR line: fewer = helped, more = harmed',
    },
    counts: {
      samples: all.n,
      by_prompt_type: { rag: all.n - all.fallback_n, zero_shot_fallback: all.fallback_n },
      with_retrieval: t.filter('d => d.has_retrieval').numRows(),
      without_inference_input: all.no_input_n,
      empty_reference: all.empty_ref,
      gold_mismatch_with_other_inputs: all.gold_mismatch_n,
      alignment_skipped: scored.alignmentSkipped,
    },
    failures: failuresBlock(all),
    normalized: ctx.normalization
      ? { label: normalizationLabel(ctx.normalization), settings: ctx.normalization, corrected: normCerWer(all, 'p5'), ocr_baseline: normCerWer(all, 'ocr') }
      : null,
    scoring: scoringNote(ctx),
  };
}

/** comparison_vs_phase2.json (spec §10.3 + extras): the lines with both conditions. */
function comparisonDocument(ds: string, { all, cmp, cmpT, hasBaseline }: Rollup, boot: ReturnType<typeof bootstrapBlock>, validity: Validity, ctx: SectionContext) {
  const headline = comparisonHeadline(cmp, hasBaseline, boot, validity);
  return {
    meta: {
      comparison: 'phase5_vs_phase2',
      dataset: ds,
      generated_at: ctx.generatedAt,
      n_paired: cmp.paired,
      phase5_samples: all.n,
      phase5_without_phase2: all.n - all.paired,
    },
    ...headline,
    failures: {
      phase5: cmp.p5_fail_n,
      phase2: hasBaseline ? cmp.p2_fail_n : null,
      phase2_error: hasBaseline ? cmp.p2_fail_error : null,
      phase2_empty_output: hasBaseline ? cmp.p2_fail_empty : null,
      scored_as: FAILED_SCORED_AS,
    },
    line_effects: pairedLineEffects(cmp, hasBaseline, true),
    by_ocr_cer_band: byOcrCerBand(cmpT, hasBaseline),
    normalized: ctx.normalization ? normalizedComparison(ctx.normalization, cmp, hasBaseline) : null,
  };
}

function normalizedComparison(n: ArabicNormalization, cmp: Sums, hasBaseline: boolean) {
  const a = hasBaseline ? normCerWer(cmp, 'p2') : null;
  const b = normCerWer(cmp, 'p5');
  return { label: normalizationLabel(n), phase2_baseline: a, phase5_corrected: b, delta: a ? deltaBlock(a, b) : null };
}

/** retrieval_analysis.json (spec §10.2 + extras). */
function retrievalDocument(scored: ScoredDataset, { t, all, cmpT, hasBaseline }: Rollup, ctx: SectionContext, info: DatasetInfo | undefined) {
  const rAll = t.filter('d => d.has_retrieval');
  // Comparison lines with retrieval, ordered by top-1 score so halves and quartiles are slices.
  const rCmp = cmpT.filter('d => d.has_retrieval').orderby('top1', 'idx');
  const eraLabels = [...ctx.eras.map((e) => e.name), UNKNOWN_ERA];
  const eraCounts = Object.fromEntries(sumsBy(rAll, 'top1_era', eraLabels).map(([e, s]) => [e, s.n]));
  const nRetr = rAll.numRows();
  return {
    meta: {
      dataset: scored.dataset,
      top_k: ctx.meta.top_k,
      embedding_model: ctx.meta.embedding_model,
      generated_at: ctx.generatedAt,
      num_samples: all.n,
      samples_without_inference_input: all.no_input_n,
    },
    retrieval_stats: retrievalStats(rAll, all),
    retrieval_by_error_type: retrievalByScore(scored, rCmp, hasBaseline),
    corpus_date_distribution: Object.fromEntries(ctx.eras.map((e) => [e.name, round(ratio(eraCounts[e.name], nRetr), 4) ?? 0])),
    corpus_date_counts: eraCounts,
    score_histogram: scoreHistogram(Array.from(rAll.array('top1') as ArrayLike<number>)),
    leakage: sourceLeakage(rAll, info),
  };
}

function retrievalStats(rAll: Table, all: Sums) {
  const rs = sums(rAll);
  const nRetr = rAll.numRows();
  return {
    samples_with_any_retrieval: nRetr,
    samples_zero_results: all.n - nRetr,
    avg_top1_score: round(rs.top1),
    avg_top3_score: round(rs.top3_mean),
    avg_topk_score: round(rs.topk_mean),
    median_top1_score: round(rs.median_top1),
    score_distribution: Object.fromEntries(sumsBy(rAll, 'bucket', SCORE_BUCKETS).map(([b, s]) => [b, s.n])),
  };
}

/** CER improvement by top-1 score: halves, quartiles, buckets and the rank correlation (rCmp sorted by score). */
function retrievalByScore(scored: ScoredDataset, rCmp: Table, hasBaseline: boolean) {
  const nR = rCmp.numRows();
  const half = Math.floor(nR / 2);
  const quarter = Math.floor(nR / 4);
  const part = (from: number, to: number) => {
    const sub = rCmp.slice(from, to);
    return { ...groupStats(sums(sub), hasBaseline), by_error_category: categoryChanges(scored, sub) };
  };
  return {
    note: 'Correlation between retrieval score and per-sample CER improvement',
    split: {
      by: 'top-1 retrieval score',
      set: hasBaseline ? 'samples with retrieval and a Phase 2 line' : 'samples with retrieval (no Phase 2 baseline)',
      n_samples: nR,
      median_top1_score: round(sums(rCmp).median_top1),
      improvement: 'cer_improvement = Phase 2 CER − Phase 5 CER on the group (positive = RAG helped); delta_cer = −cer_improvement',
    },
    high_score_samples: part(nR - half, nR),
    low_score_samples: part(0, half),
    top_quartile: part(nR - quarter, nR),
    bottom_quartile: part(0, quarter),
    by_score_bucket: Object.fromEntries(sumsBy(rCmp, 'bucket', SCORE_BUCKETS).map(([b, s]) => [b, groupStats(s, hasBaseline)])),
    correlation: scoreCorrelation(rCmp, hasBaseline),
  };
}

/** Phase 5 fixed / introduced errors per category over a subset of lines (null without error analysis). */
function categoryChanges(scored: ScoredDataset, sub: Table) {
  if (!scored.p5LineCategories) return null;
  const tot = new Int32Array(ERROR_CATEGORIES.length * 2);
  for (const i of Array.from(sub.array('idx') as ArrayLike<number>)) {
    const c = scored.p5LineCategories[i];
    for (let k = 0; k < tot.length; k++) tot[k] += c[k];
  }
  return Object.fromEntries(
    ERROR_CATEGORIES.map((c, k) => [c, { fixed: tot[2 * k], introduced: tot[2 * k + 1], net_fixed: tot[2 * k] - tot[2 * k + 1] }]),
  );
}

/** Spearman of the top-1 score vs the per-line CER improvement (over Phase 2, or over raw OCR without it). */
function scoreCorrelation(rCmp: Table, hasBaseline: boolean) {
  const corrRows = rCmp.filter('d => d.ref_chars > 0');
  const xs = Array.from(corrRows.array('top1') as ArrayLike<number>);
  const imp = hasBaseline
    ? (corrRows.derive({ v: 'd => (d.p2_ce - d.p5_ce) / d.ref_chars' }).array('v') as ArrayLike<number>)
    : (corrRows.derive({ v: 'd => (d.ocr_ce - d.p5_ce) / d.ref_chars' }).array('v') as ArrayLike<number>);
  return {
    of: hasBaseline ? 'top-1 score vs per-line CER improvement over Phase 2' : 'top-1 score vs per-line CER improvement over raw OCR',
    n: xs.length,
    spearman: round(spearman(xs, Array.from(imp)), 4),
  };
}

/** How many retrievals came from the dataset's own source book (counted only when its pattern is known). */
function sourceLeakage(rAll: Table, info: DatasetInfo | undefined) {
  const leakTop1 = info?.sourcePattern ? rAll.filter('d => d.leak_top1').numRows() : null;
  const leakAny = info?.sourcePattern ? rAll.filter('d => d.leak_any').numRows() : null;
  return leakageBlock(info, rAll.numRows(), leakTop1, leakAny);
}

function errorChangesDocument(
  head: Record<string, unknown>,
  n: number,
  skipped: number,
  p5: ErrorChangeAccumulator,
  p2: ErrorChangeAccumulator | null,
  ctx: SectionContext,
) {
  return {
    meta: {
      ...head,
      generated_at: ctx.generatedAt,
      num_samples: n,
      alignment:
        'character Levenshtein alignment of OCR→gold and corrected→gold (scoring form); errors anchored on gold positions and compared per line as multisets',
      kinds: 'fixed = OCR error absent after correction; introduced = error only after correction; unchanged = in both',
      confusion_fields: 'ref = gold character, hyp = output character ("" = none)',
      failed_lines: 'scored as identity (corrected = OCR text), so they contribute unchanged errors only',
      alignment_skipped: skipped,
    },
    phase5: changesBlock(p5, ctx.topConfusions),
    phase2: p2 ? changesBlock(p2, ctx.topConfusions) : null,
  };
}

export function scoringNote(ctx: Pick<SectionContext, 'collapseWhitespace'>) {
  return {
    cer: 'Levenshtein distance over Unicode code points, summed over lines / summed gold characters',
    wer: 'Levenshtein distance over whitespace tokens, summed over lines / summed gold words',
    text_preparation: ctx.collapseWhitespace ? 'trimmed; whitespace runs collapsed to one space' : 'trimmed only',
    mean_per_line: 'mean of per-line rates over lines with a non-empty gold text',
    failed_lines: 'corrections with an error or an empty output are scored as identity (corrected = OCR text) and counted under failures',
  };
}

// ---------------------------------------------------------------------------------------------
// Aggregates
// ---------------------------------------------------------------------------------------------

export function aggregateDocuments(
  scoredAll: ScoredDataset[],
  docs: DatasetDocuments[],
  ctx: SectionContext,
) {
  // Lines of all datasets; each dataset is a bootstrap stratum.
  const r = rollup(scoredAll.flatMap((s, k) => s.rows.map((row) => ({ ...row, dataset: s.dataset, stratum: k }))));
  const { all, cmp, cmpT, hasBaseline } = r;
  const boot = bootstrapBlock(cmpT, hasBaseline, ctx.bootstrap.iterations, seedFor(ctx.bootstrap.seed, '*overall*'), cmpT.array('stratum') as ArrayLike<number>, { ...ctx.bootstrap, datasets: scoredAll.map((s) => s.dataset) });
  const names = docs.map((d) => d.digest.dataset);
  const validity = aggregateValidity(comparisonValidity(cmp, hasBaseline, ctx.maxFailedShare), docs);
  const comparison = aggregateComparison(r, boot, validity, docs, names, ctx);
  return {
    metrics: aggregateMetrics(all, docs, names, ctx),
    comparison,
    errorChanges: aggregateErrorChanges(scoredAll, names, all.n, ctx),
    all,
    cmp,
    hasBaseline,
    boot,
    validity,
    interpretation: comparison.overall.interpretation,
  };
}

/** The aggregate metrics.json: all lines pooled, plus a short line per dataset. */
function aggregateMetrics(all: Sums, docs: DatasetDocuments[], names: string[], ctx: SectionContext) {
  return {
    meta: metricsMeta(ctx, all.n, { datasets: names }),
    overall: {
      corrected: conditionBlock(all, 'p5'),
      ocr_baseline: conditionBlock(all, 'ocr'),
      failures: failuresBlock(all),
      line_effects: { help_rate: round(ratio(all.p5_help, all.n)), harm_rate: round(ratio(all.p5_harm, all.n)) },
      normalized: ctx.normalization ? { corrected: normCerWer(all, 'p5'), ocr_baseline: normCerWer(all, 'ocr') } : null,
    },
    datasets: Object.fromEntries(docs.map((d) => [d.digest.dataset, datasetMetricsLine(d.digest)])),
    normalization: ctx.normalization ? { label: normalizationLabel(ctx.normalization), settings: ctx.normalization } : null,
    scoring: scoringNote(ctx),
  };
}

function datasetMetricsLine(g: DatasetDigest) {
  const s = g.all;
  return {
    num_samples: s.n,
    corrected: cerWer(s, 'p5'),
    ocr_baseline: cerWer(s, 'ocr'),
    failures: s.p5_fail_n,
    help_rate: round(ratio(s.p5_help, s.n)),
    harm_rate: round(ratio(s.p5_harm, s.n)),
    avg_top1_score: g.avgTop1,
    leakage: g.leakage.statement,
  };
}

/** The aggregate comparison.json: micro-averaged over datasets, plus each dataset's headline. */
function aggregateComparison(r: Rollup, boot: ReturnType<typeof bootstrapBlock>, validity: Validity, docs: DatasetDocuments[], names: string[], ctx: SectionContext) {
  return {
    meta: {
      comparison: 'phase5_vs_phase2',
      generated_at: ctx.generatedAt,
      datasets: names,
      n_paired: r.cmp.paired,
      aggregation: 'micro: summed edits over summed gold length across datasets; bootstrap resamples lines within each dataset',
    },
    overall: {
      ...comparisonHeadline(r.cmp, r.hasBaseline, boot, validity),
      line_effects: pairedLineEffects(r.cmp, r.hasBaseline, false),
      by_ocr_cer_band: byOcrCerBand(r.cmpT, r.hasBaseline),
    },
    datasets: Object.fromEntries(docs.map((d) => [d.digest.dataset, datasetComparisonLine(d)])),
  };
}

function datasetComparisonLine(d: DatasetDocuments) {
  const c = d.comparison as { phase2_baseline: unknown; phase5_corrected: unknown; delta: unknown; interpretation: string; meta: { n_paired: number } };
  return {
    ...d.digest.validity,
    n_paired: c.meta.n_paired,
    phase2_baseline: c.phase2_baseline,
    phase5_corrected: c.phase5_corrected,
    delta: c.delta,
    delta_cer_ci95: d.digest.bootstrap.delta_cer?.ci95 ?? null,
    significant: d.digest.bootstrap.delta_cer?.significant ?? null,
    interpretation: c.interpretation,
  };
}

/** All-datasets error changes (beyond the spec's per-dataset files): merged accumulators. */
function aggregateErrorChanges(scoredAll: ScoredDataset[], names: string[], n: number, ctx: SectionContext): Record<string, unknown> | null {
  if (!ctx.errorAnalysis || !scoredAll.every((s) => s.p5Changes)) return null;
  const p5 = new ErrorChangeAccumulator();
  const withP2 = scoredAll.filter((s) => s.p2Changes);
  const p2 = withP2.length > 0 ? new ErrorChangeAccumulator() : null;
  for (const s of scoredAll) p5.merge(s.p5Changes!);
  for (const s of withP2) p2!.merge(s.p2Changes!);
  const skipped = scoredAll.reduce((a, s) => a + s.alignmentSkipped, 0);
  return errorChangesDocument({ datasets: names }, n, skipped, p5, p2, ctx);
}
