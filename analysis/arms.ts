/**
 * Analysis of all study arms together: every arm under `<results>/arms/` scored per line against
 * the gold text, compared with the baseline arm and with the raw OCR by paired tests, and written to
 * `<results>/study/arms.json` (schema: analysis/arms.schema.json) and `<results>/arms/<arm>/metrics.json`.
 *
 * Scoring is the analysis's own (src/text/distance.ts via `scoreDistances`, the same text preparation and the
 * same failed-line rule as analysis/score.ts): corpus CER = Σ edits / Σ gold characters. Lines are paired
 * by (dataset, sample_id). The primary test is Wilcoxon's signed-rank test on the per-line CER differences
 * (it uses the size of each change, not only its sign); the sign test is reported beside it (`p_sign`).
 * Holm adjusts the vs-baseline p-values across the non-baseline arms, separately within each dataset and for
 * the pooled figures. Deterministic like the rest of the analysis: `generated_at` is the newest input's
 * mtime, arms in code-unit order, seeds derived per (arm, dataset, comparison).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import * as aq from 'arquero';
import { writeJsonAtomic } from '../src/io/jsonl';
import { isFailed } from '../src/llm/records';
import { UserInputError } from '../src/stages/types';
import { prepareText, scoreDistances } from '../src/text/distance';
import { discoverArms, type ArmInfo, type ArmLine, type ArmSkip, type ArmVerbatim, type LoadedArm } from './arms-inputs';
import { DEFAULT_BOOTSTRAP, bootstrapRates, seedFor } from './bootstrap';
import { cmpStr, ratio, round } from './format';
import { holm, lineDifferences, pairedBootstrapDelta, signTest, wilcoxonSignedRank } from './paired';
import type { DatasetExclusion } from './leakage';
import { failureKind } from './score';

const { op } = aq;
type Table = ReturnType<typeof aq.from>;

export const ARMS_SCHEMA_ID = 'openiti-rag/arms/v1';

/** Bands of the raw OCR line CER for the arms analysis: [0, 2 %), [2, 5 %), [5, 10 %), [10, 20 %), [20 %, ∞). */
export const ARM_OCR_BANDS = ['0–2%', '2–5%', '5–10%', '10–20%', '>20%'] as const;
export type ArmOcrBand = (typeof ARM_OCR_BANDS)[number];

/** An empty gold line counts as 0–2 % when the OCR line is empty too, else as > 20 %. */
export function armOcrBand(edits: number, goldChars: number): ArmOcrBand {
  const c = goldChars > 0 ? edits / goldChars : edits > 0 ? Infinity : 0;
  if (c < 0.02) return '0–2%';
  if (c < 0.05) return '2–5%';
  if (c < 0.1) return '5–10%';
  if (c < 0.2) return '10–20%';
  return '>20%';
}

export interface AnalyzeArmsOptions {
  /** The results root (holding `arms/`); outputs go to `<resultsDir>/study/arms.json` and each arm's folder. */
  resultsDir: string;
  /** Arm every other arm is compared with. */
  baseline: string;
  bootstrap?: { iterations?: number; seed?: number };
  /** Collapse inner whitespace runs before scoring (default true, as the main analysis). */
  collapseWhitespace?: boolean;
  /** Subset of dataset keys (default: all). */
  datasets?: string[];
  /** Override `generated_at` (default: mtime of the newest corrections.jsonl, ISO). */
  generatedAt?: string;
  /** Write arms.json and the per-arm metrics.json (default true). */
  write?: boolean;
  /** Per dataset, what the corpus held out of its source (analysis/stage.ts `corpusExclusions`); absent = not known. */
  exclusions?: DatasetExclusion[];
  /** Called after each arm is scored (activities heartbeat with it). */
  onProgress?: (done: number, total: number) => void;
}

/** A paired comparison of an arm with a reference condition (the baseline arm, or the raw OCR). */
export interface PairedComparison {
  n_paired: number;
  /** CER(arm) − CER(reference) on the paired lines; negative = the arm is better. */
  delta_cer: number | null;
  ci: [number, number] | null;
  /** Wilcoxon signed-rank p (primary), two-sided. */
  p: number | null;
  /** Exact sign-test p, two-sided. */
  p_sign: number | null;
  /** Lines where the arm has fewer / as many / more character edits than the reference. */
  better: number;
  same: number;
  worse: number;
}

export interface BandCounts {
  lines: number;
  ocr_cer: number | null;
  cer: number | null;
  improved: number;
  unchanged: number;
  worsened: number;
}

export interface GuardRates {
  /** Lines whose record carries a `guard` value. */
  lines: number;
  kept: number;
  trimmed: number;
  fell_back: number;
  /** Share of the arm's lines per `fell_back:<reason>` reason. */
  by_reason: Record<string, number>;
  counts: Record<string, number>;
}

export interface ArmMetrics {
  lines: number;
  cer: number | null;
  cer_ci: [number, number] | null;
  wer: number | null;
  /** Bootstrap 95 % CI of the WER: lines resampled as for cer_ci (within each dataset when pooled), with a seed of its own. */
  wer_ci: [number, number] | null;
  /** CER of the untouched model output (`raw_text`) where recorded, else of the scored output (= cer). */
  raw_cer: number | null;
  ocr_cer: number | null;
  failures: number;
  guard: GuardRates | null;
  vs_baseline: (PairedComparison & { p_holm: number | null }) | null;
  vs_ocr: PairedComparison;
  improved: number;
  unchanged: number;
  worsened: number;
  by_band: Record<ArmOcrBand, BandCounts>;
  /**
   * Share of the lines whose retrieved context held their own normalised gold line (similarity ≥ 0.9,
   * src/retrieval/verbatim.ts), from the export; null for zero-shot arms and when the export did not record it.
   */
  verbatim_gold_rate: number | null;
}

export interface ArmResult extends ArmMetrics {
  name: string;
  is_baseline: boolean;
  upper_bound: boolean;
  prompt: ArmInfo['prompt'];
  retrieval: ArmInfo['retrieval'];
  model: string | null;
  guard_config: Record<string, unknown> | null;
  datasets: Record<string, ArmMetrics>;
}

export interface ArmsAnalysis {
  schema: typeof ARMS_SCHEMA_ID;
  generated_at: string;
  baseline: string;
  datasets: string[];
  methods: ReturnType<typeof methodsNote>;
  skipped: ArmSkip[];
  warnings: string[];
  /** Leakage control: per dataset, what the corpus held out of its source; null when the caller did not say. */
  exclusions: DatasetExclusion[] | null;
  arms: ArmResult[];
  /** Files written, relative to resultsDir. */
  files: string[];
}

/** One scored line of one arm. */
interface ArmRow {
  dataset: string;
  sample_id: string;
  gold: string;
  ref_chars: number;
  ref_words: number;
  ocr_ce: number;
  ocr_we: number;
  ce: number;
  we: number;
  raw_ce: number;
  guard: string | null;
  failed: boolean;
  band: ArmOcrBand;
}

interface Settings {
  iterations: number;
  seed: number;
  collapseWhitespace: boolean;
}

/** Score, compare and (by default) write every arm under `<resultsDir>/arms/`. */
export async function analyzeArms(options: AnalyzeArmsOptions): Promise<ArmsAnalysis> {
  const resultsDir = path.resolve(options.resultsDir);
  const { arms, skipped } = await discoverArms(resultsDir, options.datasets);
  const base = arms.find((a) => a.info.name === options.baseline);
  if (!base) throw missingBaseline(options.baseline, resultsDir, arms, skipped);
  const settings: Settings = {
    iterations: options.bootstrap?.iterations ?? DEFAULT_BOOTSTRAP.iterations,
    seed: options.bootstrap?.seed ?? DEFAULT_BOOTSTRAP.seed,
    collapseWhitespace: options.collapseWhitespace ?? true,
  };
  const warnings = skipped.map((s) => `arm ${s.arm} skipped: ${s.reason}`);
  for (const a of arms) if (a.duplicates > 0) warnings.push(`arm ${a.info.name}: ${a.duplicates} duplicate sample_id line(s) skipped`);
  const rows = new Map<string, ArmRow[]>();
  for (const a of arms) {
    rows.set(a.info.name, scoreArm(a, settings));
    options.onProgress?.(rows.size, arms.length);
  }
  const datasets = [...new Set([...rows.values()].flatMap((r) => r.map((x) => x.dataset)))].sort(cmpStr);
  const baseRows = rows.get(base.info.name)!;
  const results = arms.map((a) => armResult(a, rows.get(a.info.name)!, a === base ? null : baseRows, datasets, settings, warnings));
  applyHolm(results, datasets);
  const analysis: ArmsAnalysis = {
    schema: ARMS_SCHEMA_ID,
    generated_at: options.generatedAt ?? new Date(Math.floor(Math.max(...arms.map((a) => a.mtimeMs)))).toISOString(),
    baseline: base.info.name,
    datasets,
    methods: methodsNote(settings),
    skipped,
    warnings,
    exclusions: options.exclusions ?? null,
    arms: results,
    files: [],
  };
  if (options.write !== false) analysis.files = writeArms(resultsDir, analysis);
  return analysis;
}

function missingBaseline(baseline: string, resultsDir: string, arms: LoadedArm[], skipped: ArmSkip[]): UserInputError {
  const found = arms.map((a) => a.info.name);
  const skip = skipped.find((s) => s.arm === baseline);
  const why = skip ? `it was skipped (${skip.reason})` : `found: ${found.length ? found.join(', ') : 'no arms'}`;
  return new UserInputError(`baseline arm "${baseline}" not found under ${path.join(resultsDir, 'arms')} — ${why}; set study.baseline to one of the arms or run its inference first`);
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

function scoreArm(arm: LoadedArm, s: Settings): ArmRow[] {
  const rows: ArmRow[] = [];
  const prep = { collapseWhitespace: s.collapseWhitespace };
  for (const ds of [...arm.byDataset.keys()].sort(cmpStr)) {
    for (const line of arm.byDataset.get(ds)!) rows.push(scoreArmLine(line, prep));
  }
  return rows;
}

/** A failed correction scores as the OCR text (analysis/score.ts's rule); so does a failed raw output. */
function scoreArmLine({ record: r, rawText, guard }: ArmLine, prep: { collapseWhitespace: boolean }): ArmRow {
  const failed = failureKind(r) !== null;
  const hyp = failed ? r.ocr_text : r.corrected_text;
  const ocr = scoreDistances(r.gt_text, r.ocr_text, prep);
  const out = hyp === r.ocr_text ? ocr : scoreDistances(r.gt_text, hyp, prep);
  let rawCe = out.charEdits;
  if (rawText !== null && rawText !== r.corrected_text) {
    const rawFailed = isFailed(r) || (rawText.trim() === '' && r.ocr_text.trim() !== '');
    rawCe = rawFailed ? ocr.charEdits : scoreDistances(r.gt_text, rawText, prep).charEdits;
  }
  return {
    dataset: r.dataset,
    sample_id: r.sample_id,
    gold: prepareText(r.gt_text, prep),
    ref_chars: ocr.refChars,
    ref_words: ocr.refWords,
    ocr_ce: ocr.charEdits,
    ocr_we: ocr.wordEdits,
    ce: out.charEdits,
    we: out.wordEdits,
    raw_ce: rawCe,
    guard,
    failed,
    band: armOcrBand(ocr.charEdits, ocr.refChars),
  };
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

function armResult(arm: LoadedArm, rows: ArmRow[], baseRows: ArmRow[] | null, datasets: string[], s: Settings, warnings: string[]): ArmResult {
  const name = arm.info.name;
  const pairs = baseRows ? pairWithBaseline(rows, baseRows, name, warnings) : null;
  const perDataset: Record<string, ArmMetrics> = {};
  for (const ds of datasets) {
    const sub = rows.filter((r) => r.dataset === ds);
    if (sub.length === 0) continue;
    perDataset[ds] = { ...armMetrics(sub, pairs && pairs.filter(([a]) => a.dataset === ds), s, `${name}:${ds}`), verbatim_gold_rate: verbatimRate(arm.verbatim, [ds], false) };
  }
  const strata = Int32Array.from(rows, (r) => datasets.indexOf(r.dataset));
  const overall = { ...armMetrics(rows, pairs, s, `${name}:*overall*`, strata), verbatim_gold_rate: verbatimRate(arm.verbatim, Object.keys(perDataset), true) };
  return {
    name,
    is_baseline: baseRows === null,
    upper_bound: arm.info.upper_bound,
    prompt: arm.info.prompt,
    retrieval: arm.info.retrieval,
    model: arm.info.model,
    guard_config: arm.info.guard,
    ...overall,
    datasets: perDataset,
  };
}

/**
 * The verbatim-gold rate over `datasets` from the export's per-dataset counts (so a `--datasets` subset gets
 * its own rate); without them, arm.json's pooled rate for the pooled figures and null per dataset.
 */
function verbatimRate(v: ArmVerbatim, datasets: string[], pooled: boolean): number | null {
  if (!v.byDataset) return pooled ? round(v.rate) : null;
  let lines = 0, hits = 0;
  for (const ds of datasets) {
    lines += v.byDataset[ds]?.lines ?? 0;
    hits += v.byDataset[ds]?.hits ?? 0;
  }
  return round(ratio(hits, lines));
}

/** [arm line, baseline line] for every sample both arms have; counts gold texts that differ. */
function pairWithBaseline(rows: ArmRow[], baseRows: ArmRow[], arm: string, warnings: string[]): Array<[ArmRow, ArmRow]> {
  const byKey = new Map(baseRows.map((r) => [`${r.dataset}\u0000${r.sample_id}`, r]));
  const pairs: Array<[ArmRow, ArmRow]> = [];
  let mismatch = 0;
  for (const r of rows) {
    const b = byKey.get(`${r.dataset}\u0000${r.sample_id}`);
    if (!b) continue;
    if (b.gold !== r.gold) mismatch++;
    pairs.push([r, b]);
  }
  if (rows.length > pairs.length) warnings.push(`arm ${arm}: ${rows.length - pairs.length} line(s) have no baseline line; left out of vs_baseline`);
  if (mismatch > 0) warnings.push(`arm ${arm}: ${mismatch} line(s) have a different gold text than the baseline's; each arm is scored against its own`);
  return pairs;
}

/** Every figure of one arm on one set of lines (a dataset, or all of them with `strata`). */
function armMetrics(rows: ArmRow[], pairs: Array<[ArmRow, ArmRow]> | null, s: Settings, key: string, strata?: Int32Array): Omit<ArmMetrics, 'verbatim_gold_rate'> {
  const t = aq.from(rows.map(({ gold: _gold, ...r }) => r)).derive({
    improved: 'd => d.ce < d.ocr_ce ? 1 : 0',
    worsened: 'd => d.ce > d.ocr_ce ? 1 : 0',
    failed_n: 'd => d.failed ? 1 : 0',
  });
  const sum = totals(t);
  const boot = { iterations: s.iterations, strata };
  const ci = bootstrapRates(rows.map((r) => r.ref_chars), { arm: rows.map((r) => r.ce) }, {}, { ...boot, seed: seedFor(s.seed, `arms:${key}`) }).rates.arm.ci95;
  const werCi = bootstrapRates(rows.map((r) => r.ref_words), { arm: rows.map((r) => r.we) }, {}, { ...boot, seed: seedFor(s.seed, `arms:${key}:wer`) }).rates.arm.ci95;
  const ocrPairs = rows.map((r) => [r, { ...r, ce: r.ocr_ce }] as [ArmRow, ArmRow]);
  return {
    lines: sum.n,
    cer: round(ratio(sum.ce, sum.ref_chars)),
    cer_ci: roundPair(ci),
    wer: round(ratio(sum.we, sum.ref_words)),
    wer_ci: roundPair(werCi),
    raw_cer: round(ratio(sum.raw_ce, sum.ref_chars)),
    ocr_cer: round(ratio(sum.ocr_ce, sum.ref_chars)),
    failures: sum.failed_n,
    guard: guardRates(t, sum.n),
    vs_baseline: pairs ? { ...compare(pairs, s, `${key}:vs:baseline`, strata && pairStrata(pairs, rows, strata)), p_holm: null } : null,
    vs_ocr: compare(ocrPairs, s, `${key}:vs:ocr`, strata),
    improved: sum.improved,
    unchanged: sum.n - sum.improved - sum.worsened,
    worsened: sum.worsened,
    by_band: bandCounts(t),
  };
}

type Totals = Record<'n' | 'ref_chars' | 'ref_words' | 'ce' | 'we' | 'raw_ce' | 'ocr_ce' | 'improved' | 'worsened' | 'failed_n', number>;

const TOTALS = {
  n: op.count(),
  ...Object.fromEntries(['ref_chars', 'ref_words', 'ce', 'we', 'raw_ce', 'ocr_ce', 'improved', 'worsened', 'failed_n'].map((c) => [c, op.sum(c)])),
};

function totals(t: Table): Totals {
  const o = t.numRows() > 0 ? (t.rollup(TOTALS as never).objects()[0] as Record<string, number>) : {};
  return Object.fromEntries(Object.keys(TOTALS).map((k) => [k, Number(o[k] ?? 0)])) as Totals;
}

/** Improved / unchanged / worsened lines (vs the raw OCR line) per OCR-CER band, every band present. */
function bandCounts(t: Table): Record<ArmOcrBand, BandCounts> {
  const got = new Map<string, Totals>();
  for (const o of t.groupby('band').rollup(TOTALS as never).objects() as Array<Record<string, number | string>>) {
    got.set(String(o.band), Object.fromEntries(Object.keys(TOTALS).map((k) => [k, Number(o[k] ?? 0)])) as Totals);
  }
  const out = {} as Record<ArmOcrBand, BandCounts>;
  for (const band of ARM_OCR_BANDS) {
    const g = got.get(band);
    out[band] = g
      ? { lines: g.n, ocr_cer: round(ratio(g.ocr_ce, g.ref_chars)), cer: round(ratio(g.ce, g.ref_chars)), improved: g.improved, unchanged: g.n - g.improved - g.worsened, worsened: g.worsened }
      : { lines: 0, ocr_cer: null, cer: null, improved: 0, unchanged: 0, worsened: 0 };
  }
  return out;
}

/** Shares of the lines per guard outcome; null when no line of the arm carries a `guard` value. */
function guardRates(t: Table, n: number): GuardRates | null {
  const g = t.filter('d => d.guard != null');
  if (g.numRows() === 0) return null;
  const counts: Record<string, number> = {};
  for (const o of g.groupby('guard').count().orderby('guard').objects() as Array<{ guard: string; count: number }>) counts[o.guard] = o.count;
  const share = (x: number) => round(ratio(x, n)) ?? 0;
  const byReason: Record<string, number> = {};
  let fell = 0;
  for (const [k, c] of Object.entries(counts)) {
    if (!k.startsWith('fell_back:')) continue;
    fell += c;
    byReason[k.slice('fell_back:'.length)] = share(c);
  }
  return { lines: g.numRows(), kept: share(counts.kept ?? 0), trimmed: share(counts.trimmed ?? 0), fell_back: share(fell), by_reason: byReason, counts };
}

/** Bootstrap strata of the paired lines (the arm line's dataset stratum). */
function pairStrata(pairs: Array<[ArmRow, ArmRow]>, rows: ArmRow[], strata: Int32Array): Int32Array {
  const of = new Map(rows.map((r, i) => [r, strata[i]]));
  return Int32Array.from(pairs, ([a]) => of.get(a)!);
}

/** ΔCER with its paired-bootstrap CI, and the Wilcoxon and sign tests on the per-line CER differences. */
function compare(pairs: Array<[ArmRow, ArmRow]>, s: Settings, key: string, strata?: ArrayLike<number>): PairedComparison {
  const gold = pairs.map(([a]) => a.ref_chars);
  const ref = pairs.map(([, b]) => b.ce);
  const arm = pairs.map(([a]) => a.ce);
  const boot = pairedBootstrapDelta(gold, ref, arm, { iterations: s.iterations, seed: seedFor(s.seed, `arms:${key}`), strata });
  const d = lineDifferences(gold, ref, arm);
  let better = 0, worse = 0;
  for (let i = 0; i < pairs.length; i++) {
    if (arm[i] < ref[i]) better++;
    else if (arm[i] > ref[i]) worse++;
  }
  return {
    n_paired: pairs.length,
    delta_cer: round(boot.delta),
    ci: roundPair(boot.ci95),
    p: pValue(wilcoxonSignedRank(d).p),
    p_sign: pValue(signTest(d).p),
    better,
    same: pairs.length - better - worse,
    worse,
  };
}

/**
 * Holm across the non-baseline method arms, within each dataset and for the pooled figures. Upper-bound arms
 * (oracle: the gold line as the query) are no hypothesis about a method: they stay out of the family, so adding
 * one never weakens the real arms' adjusted p, and their own p_holm is null.
 */
function applyHolm(results: ArmResult[], datasets: string[]): void {
  const methods = results.filter((r) => !r.upper_bound);
  const scopes: Array<(r: ArmResult) => ArmMetrics | undefined> = [(r) => r, ...datasets.map((ds) => (r: ArmResult) => r.datasets[ds])];
  for (const scope of scopes) {
    const family = methods.map(scope).filter((m): m is ArmMetrics => !!m?.vs_baseline);
    const adjusted = holm(family.map((m) => m.vs_baseline!.p));
    family.forEach((m, i) => (m.vs_baseline!.p_holm = pValue(adjusted[i])));
  }
}

/** p-values keep 6 significant digits (fixed decimals would turn small ones into 0). */
function pValue(p: number | null): number | null {
  return p === null || !Number.isFinite(p) ? null : Number(p.toPrecision(6));
}

function roundPair(ci: [number, number] | null): [number, number] | null {
  return ci ? [round(ci[0])!, round(ci[1])!] : null;
}

function methodsNote(s: Settings) {
  return {
    cer: 'Levenshtein distance over code points, Σ edits / Σ gold characters; failed corrections score as the OCR text',
    text_preparation: s.collapseWhitespace ? 'trimmed; whitespace runs collapsed to one space' : 'trimmed only',
    bootstrap: { iterations: s.iterations, seed: s.seed, method: 'paired percentile bootstrap over lines (95 %); the pooled figures resample within each dataset' },
    test: 'Wilcoxon signed-rank on per-line CER differences (zeros dropped, tie + continuity corrected normal approximation) = p; exact sign test (ties dropped) = p_sign',
    holm: 'vs_baseline.p adjusted across the non-baseline arms (Holm), separately per dataset and for the pooled figures; upper-bound (gold_query) arms are left out of the family and get p_holm null',
    bands: 'OCR line CER bands 0–2 %, 2–5 %, 5–10 %, 10–20 %, > 20 %; improved / unchanged / worsened = fewer / as many / more character edits than the OCR line',
    raw_cer: 'CER of raw_text (the model output before trimming and the guard) where recorded, else of the scored output',
  };
}

/** arms.json and each arm's metrics.json; returns the paths written, relative to resultsDir. */
function writeArms(resultsDir: string, a: ArmsAnalysis): string[] {
  const files = ['study/arms.json', ...a.arms.map((r) => `arms/${r.name}/metrics.json`)];
  mkdirSync(path.join(resultsDir, 'study'), { recursive: true });
  writeJsonAtomic(path.join(resultsDir, 'study', 'arms.json'), { ...a, files: undefined });
  for (const r of a.arms) {
    writeJsonAtomic(path.join(resultsDir, 'arms', r.name, 'metrics.json'), {
      meta: { schema: `${ARMS_SCHEMA_ID}/arm`, arm: r.name, baseline: a.baseline, generated_at: a.generated_at, datasets: Object.keys(r.datasets), methods: a.methods },
      ...r,
    });
  }
  return files;
}
