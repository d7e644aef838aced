/**
 * Analysis of all study arms together: every arm under `<results>/arms/` scored per line against
 * the gold text, compared with the baseline arm and with the raw OCR by paired tests, and written to
 * `<results>/study/arms.json` (schema: analysis/arms.schema.json) and `<results>/arms/<arm>/metrics.json`.
 *
 * Scoring is the analysis's own (src/text/distance.ts via `scoreDistances`, the same text preparation and the
 * same failed-line rule as analysis/score.ts): corpus CER = Σ edits / Σ gold characters. Every arm is scored
 * on the same lines (analysis/arm-alignment.ts: a missing line is an error, or with `missingLines: 'ocr'` the
 * OCR text, counted). Uncertainty is clustered (analysis/clusters.ts, analysis/block-stats.ts): intervals from a
 * block bootstrap, the primary p from a block permutation test of the printed ΔCER; Wilcoxon and the sign test
 * stay as secondary per-line statistics. The planned contrasts (analysis/contrasts.ts) form one Holm family.
 * Deterministic like the rest of the analysis: `generated_at` is the newest input's mtime, arms in code-unit
 * order, seeds derived per (arm, dataset, comparison).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import * as aq from 'arquero';
import { writeJsonAtomic } from '../src/io/jsonl';
import { isFailed } from '../src/llm/records';
import { UserInputError } from '../src/stages/types';
import { canonicalDescription } from '../src/text/canonical';
import { prepareText, scoreDistances, type ScoringOptions } from '../src/text/distance';
import { alignArms, type AlignedArms, type MissingLines } from './arm-alignment';
import { comparePaired, POOLED, type MacroComparison, type PairedComparison, type Scope, studyScopes } from './arms-compare';
import { findContrast, measureContrasts, type ArmEdits, type ContrastResult } from './arms-contrasts';
import { discoverArms, type ArmInfo, type ArmLine, type ArmSkip, type ArmVerbatim, type LoadedArm } from './arms-inputs';
import { armsWhen, type ArmWhen } from './arms-when';
import { blockRateInterval } from './block-stats';
import { DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS, seedFor } from './bootstrap';
import { clusterMethod, DEFAULT_BLOCK_LINES, type ClusterSpec } from './clusters';
import { plannedContrasts } from './contrasts';
import { armOcrBand, bandCounts, guardRates, totals, type ArmOcrBand, type BandCounts, type GuardRates } from './arm-counts';
import { ratio, round } from './format';
import type { DatasetExclusion } from './leakage';
import { failureKind } from './score';
import { armProfiles } from './profile-arms';
import { unguardedOutput } from '../src/llm/guard';
import { resolveNormalization, type NormalizationConfig, type NormalizationProfile } from '../src/text/profiles';

export { ARM_OCR_BANDS, armOcrBand, type ArmOcrBand, type BandCounts, type GuardRates } from './arm-counts';

export const ARMS_SCHEMA_ID = 'openiti-rag/arms/v1';

/** The arms analysis's statistics settings (config `analysis.*`, `study.contrasts`, `datasets.*.page_pattern`). */
export type ArmsStatsOptions = Pick<AnalyzeArmsOptions, 'clusters' | 'missingLines' | 'contrasts' | 'permutations'>;

export interface AnalyzeArmsOptions {
  /** The results root (holding `arms/`); outputs go to `<resultsDir>/study/arms.json` and each arm's folder. */
  resultsDir: string;
  /** Arm every other arm is compared with. */
  baseline: string;
  bootstrap?: { iterations?: number; seed?: number };
  /** Permutations of the block permutation test (default 10,000). */
  permutations?: number;
  /** How lines cluster (analysis/clusters.ts); default blocks of 25 consecutive lines. */
  clusters?: ClusterSpec;
  /** A line one arm has and another lacks: fail (default) or score it as the OCR text and count it. */
  missingLines?: MissingLines;
  /** Planned contrasts (`study.contrasts`: ΔCER = CER(arm) − CER(vs)); default analysis/contrasts.ts's. */
  contrasts?: ReadonlyArray<{ arm: string; vs: string }>;
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
  /** `analysis.normalization`: the profiles of arms.json's `profiles` list (default nfc + no_diacritics + graphemes). */
  normalization?: NormalizationConfig | null;
  /** Called after each arm is scored (activities heartbeat with it). */
  onProgress?: (done: number, total: number) => void;
}

export type { PairedComparison } from './arms-compare';

export interface ArmMetrics {
  lines: number;
  cer: number | null;
  cer_ci: [number, number] | null;
  wer: number | null;
  /** Bootstrap 95 % CI of the WER: lines resampled as for cer_ci (within each dataset when pooled), with a seed of its own. */
  wer_ci: [number, number] | null;
  /** CER before the guard: `raw_text` cleaned (quotes, labels) but neither trimmed nor checked, where recorded; else = cer. */
  raw_cer: number | null;
  ocr_cer: number | null;
  failures: number;
  guard: GuardRates | null;
  /** Lines the arm lacked, scored as the OCR text (missing_lines: ocr); 0 otherwise. */
  filled_lines: number;
  /** p_holm: from the planned contrast of this arm vs the baseline (null when it is not one, or out of the family). */
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
  /** Mean over datasets of each dataset's figure, with block-bootstrap CIs; null with one dataset. */
  macro: { cer: number | null; cer_ci: [number, number] | null; vs_baseline: (MacroComparison & { p_holm: number | null }) | null; vs_ocr: MacroComparison | null } | null;
  /** Guard effect, ΔCER by retrieval-score band and error classes (analysis/arms-when.ts). */
  when: ArmWhen;
}

export interface ArmsAnalysis {
  schema: typeof ARMS_SCHEMA_ID;
  generated_at: string;
  baseline: string;
  datasets: string[];
  methods: ReturnType<typeof methodsNote>;
  /** Per dataset: how its lines cluster and how many clusters there are. */
  clusters: Record<string, { method: string; clusters: number }>;
  /** The planned contrasts, one Holm family (analysis/arms-contrasts.ts). */
  contrasts: ContrastResult[];
  skipped: ArmSkip[];
  warnings: string[];
  /** Leakage control: per dataset, what the corpus held out of its source; null when the caller did not say. */
  exclusions: DatasetExclusion[] | null;
  arms: ArmResult[];
  /** Per normalisation profile, every arm's CER and ΔCER (analysis/profile-arms.ts). */
  profiles: ReturnType<typeof armProfiles>;
  /** Files written, relative to resultsDir. */
  files: string[];
  /** ΔCER by gold passage in context and hit class (analysis/provenance.ts), attached by the analyze stage. */
  provenance?: import('./provenance').ProvenanceAnalysis;
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
  filled: boolean;
  band: ArmOcrBand;
}

interface Settings {
  iterations: number;
  permutations: number;
  seed: number;
  collapseWhitespace: boolean;
  clusters: ClusterSpec;
  missingLines: MissingLines;
  /** The primary normalisation profile: every figure is scored under it. */
  profile: NormalizationProfile;
}

/** Score, compare and (by default) write every arm under `<resultsDir>/arms/`. */
export async function analyzeArms(options: AnalyzeArmsOptions): Promise<ArmsAnalysis> {
  const resultsDir = path.resolve(options.resultsDir);
  const { arms, skipped } = await discoverArms(resultsDir, options.datasets);
  const base = arms.find((a) => a.info.name === options.baseline);
  if (!base) throw missingBaseline(options.baseline, resultsDir, arms, skipped);
  const settings = settingsOf(options);
  const warnings = skipped.map((s) => `arm ${s.arm} skipped: ${s.reason}`);
  for (const a of arms) if (a.duplicates > 0) warnings.push(`arm ${a.info.name}: ${a.duplicates} duplicate sample_id line(s) skipped`);
  const aligned = alignArms(arms, base, settings.missingLines);
  const rows = new Map<string, ArmRow[]>();
  for (const a of arms) {
    rows.set(a.info.name, aligned.lines.get(a.info.name)!.map((l) => ({ ...scoreArmLine(l, { collapseWhitespace: settings.collapseWhitespace, profile: settings.profile }), filled: l.filled })));
    options.onProgress?.(rows.size, arms.length);
  }
  const datasets = [...aligned.ranges.keys()];
  const { scopes, clusterNote } = studyScopes(datasets, aligned.ranges, aligned.sampleIds, settings.clusters);
  const baseRows = rows.get(base.info.name)!;
  warnGoldMismatch(arms, rows, baseRows, base, warnings);
  fillWarnings(aligned, warnings);
  const when = await armsWhen({ arms, lines: aligned.lines, rows, baseline: base.info.name, scopes, settings, resultsDir, datasets: aligned.datasets, sampleIds: aligned.sampleIds });
  const results = arms.map((a) => armResult(a, rows.get(a.info.name)!, a === base ? null : baseRows, scopes, settings, when.get(a.info.name)!));
  const contrasts = measureContrasts(
    plannedContrasts(arms.map((a) => a.info), base.info.name, options.contrasts),
    new Map(arms.map((a): [string, ArmEdits] => [a.info.name, armEdits(rows.get(a.info.name)!, a.info.upper_bound)])),
    scopes,
    settings,
  );
  holmFromContrasts(results, contrasts, base.info.name);
  const analysis: ArmsAnalysis = {
    schema: ARMS_SCHEMA_ID,
    generated_at: options.generatedAt ?? new Date(Math.floor(Math.max(...arms.map((a) => a.mtimeMs)))).toISOString(),
    baseline: base.info.name,
    datasets,
    methods: methodsNote(settings),
    clusters: Object.fromEntries(datasets.map((ds) => [ds, { method: clusterMethod(settings.clusters, ds), clusters: clusterNote[ds] }])),
    contrasts,
    skipped,
    warnings,
    exclusions: options.exclusions ?? null,
    arms: results,
    profiles: armProfiles(arms, base, settings.collapseWhitespace, options.normalization),
    files: [],
  };
  if (options.write !== false) analysis.files = writeArms(resultsDir, analysis);
  return analysis;
}

function settingsOf(options: AnalyzeArmsOptions): Settings {
  return {
    iterations: options.bootstrap?.iterations ?? DEFAULT_BOOTSTRAP.iterations,
    permutations: options.permutations ?? DEFAULT_PERMUTATIONS,
    seed: options.bootstrap?.seed ?? DEFAULT_BOOTSTRAP.seed,
    collapseWhitespace: options.collapseWhitespace ?? true,
    clusters: options.clusters ?? { blockLines: DEFAULT_BLOCK_LINES },
    missingLines: options.missingLines ?? 'error',
    profile: resolveNormalization(options.normalization === null ? { secondary: [] } : options.normalization).primary,
  };
}

function armEdits(rows: ArmRow[], upperBound: boolean): ArmEdits {
  return { ref: Float64Array.from(rows, (r) => r.ref_chars), ce: Float64Array.from(rows, (r) => r.ce), upperBound };
}

/** Lines scored as the OCR text because an arm lacked them: one warning per arm (the report shows them too). */
function fillWarnings(aligned: AlignedArms, warnings: string[]): void {
  for (const [arm, counts] of aligned.filled) {
    const parts = Object.entries(counts).map(([ds, n]) => `${n} of ${ds}`);
    if (parts.length) warnings.push(`arm ${arm}: ${parts.join(', ')} line(s) missing, scored as the OCR text (missing_lines: ocr)`);
  }
}

/** Lines whose gold text differs from the baseline's: each arm is scored against its own. */
function warnGoldMismatch(arms: LoadedArm[], rows: Map<string, ArmRow[]>, baseRows: ArmRow[], base: LoadedArm, warnings: string[]): void {
  for (const a of arms) {
    if (a === base) continue;
    const mine = rows.get(a.info.name)!;
    const mismatch = mine.filter((r, i) => r.gold !== baseRows[i].gold).length;
    if (mismatch > 0) warnings.push(`arm ${a.info.name}: ${mismatch} line(s) have a different gold text than the baseline's; each arm is scored against its own`);
  }
}

/** vs_baseline.p_holm of each arm and scope = that of the planned contrast arm vs baseline (null when not planned). */
function holmFromContrasts(results: ArmResult[], contrasts: ContrastResult[], baseline: string): void {
  for (const r of results) {
    if (!r.vs_baseline) continue;
    const c = findContrast(contrasts, r.name, baseline);
    r.vs_baseline.p_holm = c?.p_holm ?? null;
    for (const [ds, m] of Object.entries(r.datasets)) if (m.vs_baseline) m.vs_baseline.p_holm = c?.datasets[ds]?.p_holm ?? null;
    if (r.macro?.vs_baseline) r.macro.vs_baseline.p_holm = c?.macro?.p_holm ?? null;
  }
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

/** A failed correction scores as the OCR text (analysis/score.ts's rule); so does a failed raw output. */
function scoreArmLine({ record: r, rawText, guard }: ArmLine, prep: ScoringOptions): Omit<ArmRow, 'filled'> {
  const failed = failureKind(r) !== null;
  const hyp = failed ? r.ocr_text : r.corrected_text;
  const ocr = scoreDistances(r.gt_text, r.ocr_text, prep);
  const out = hyp === r.ocr_text ? ocr : scoreDistances(r.gt_text, hyp, prep);
  let rawCe = out.charEdits;
  if (rawText !== null && rawText !== r.corrected_text) {
    const unguarded = unguardedOutput(rawText, r.ocr_text);
    const rawFailed = isFailed(r) || (unguarded.trim() === '' && r.ocr_text.trim() !== '');
    rawCe = rawFailed ? ocr.charEdits : scoreDistances(r.gt_text, unguarded, prep).charEdits;
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

function armResult(arm: LoadedArm, rows: ArmRow[], baseRows: ArmRow[] | null, scopes: Scope[], s: Settings, when: ArmWhen): ArmResult {
  const name = arm.info.name;
  const perDataset: Record<string, ArmMetrics> = {};
  let overall: ArmMetrics | null = null;
  let macro: ArmResult['macro'] = null;
  for (const scope of scopes) {
    const pooled = scope.key === POOLED;
    const key = pooled ? `${name}:*overall*` : `${name}:${scope.key}`;
    const { metrics, macro: m } = armMetrics(rows, baseRows, scope, s, key);
    const verbatim = verbatimRate(arm.verbatim, pooled ? Object.keys(perDataset) : [scope.key], pooled);
    if (pooled) {
      overall = { ...metrics, verbatim_gold_rate: verbatim };
      macro = m;
    } else perDataset[scope.key] = { ...metrics, verbatim_gold_rate: verbatim };
  }
  return {
    name,
    is_baseline: baseRows === null,
    upper_bound: arm.info.upper_bound,
    prompt: arm.info.prompt,
    retrieval: arm.info.retrieval,
    model: arm.info.model,
    guard_config: arm.info.guard,
    ...overall!,
    datasets: perDataset,
    macro,
    when,
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

/** Every figure of one arm on one scope's lines (a dataset, or all of them: then with the macro average). */
function armMetrics(all: ArmRow[], allBase: ArmRow[] | null, scope: Scope, s: Settings, key: string): { metrics: Omit<ArmMetrics, 'verbatim_gold_rate'>; macro: ArmResult['macro'] } {
  const rows = all.slice(scope.from, scope.to);
  const t = aq.from(rows.map(({ gold: _gold, ...r }) => r)).derive({
    improved: 'd => d.ce < d.ocr_ce ? 1 : 0',
    worsened: 'd => d.ce > d.ocr_ce ? 1 : 0',
    failed_n: 'd => d.failed ? 1 : 0',
  });
  const sum = totals(t);
  const col = (c: keyof ArmRow) => Float64Array.from(all, (r) => r[c] as number);
  const [ref, ce, ocr] = [col('ref_chars'), col('ce'), col('ocr_ce')];
  const sl = (x: Float64Array) => x.subarray(scope.from, scope.to);
  const cer = blockRateInterval(sl(ref), sl(ce), scope.design, s.iterations, seedFor(s.seed, `arms:${key}`));
  const wer = blockRateInterval(rows.map((r) => r.ref_words), rows.map((r) => r.we), scope.design, s.iterations, seedFor(s.seed, `arms:${key}:wer`));
  const { macro: vbMacro, ...vsBaseline } = allBase ? comparePaired(ref, Float64Array.from(allBase, (r) => r.ce), ce, scope, s, `${key}:vs:baseline`) : { macro: null };
  const { macro: ocrMacro, ...vsOcr } = comparePaired(ref, ocr, ce, scope, s, `${key}:vs:ocr`);
  const metrics = {
    lines: sum.n,
    cer: round(ratio(sum.ce, sum.ref_chars)),
    cer_ci: roundPair(cer.ci95),
    wer: round(ratio(sum.we, sum.ref_words)),
    wer_ci: roundPair(wer.ci95),
    raw_cer: round(ratio(sum.raw_ce, sum.ref_chars)),
    ocr_cer: round(ratio(sum.ocr_ce, sum.ref_chars)),
    failures: sum.failed_n,
    guard: guardRates(t, sum.n),
    filled_lines: rows.filter((r) => r.filled).length,
    vs_baseline: allBase ? { ...(vsBaseline as PairedComparison), p_holm: null } : null,
    vs_ocr: vsOcr,
    improved: sum.improved,
    unchanged: sum.n - sum.improved - sum.worsened,
    worsened: sum.worsened,
    by_band: bandCounts(t),
  };
  const macro = cer.macro ? { cer: round(cer.macro.estimate), cer_ci: roundPair(cer.macro.ci95), vs_baseline: vbMacro ? { ...vbMacro, p_holm: null } : null, vs_ocr: ocrMacro } : null;
  return { metrics, macro };
}

function roundPair(ci: [number, number] | null): [number, number] | null {
  return ci ? [round(ci[0])!, round(ci[1])!] : null;
}

function methodsNote(s: Settings) {
  return {
    cer: 'Levenshtein distance over code points, Σ edits / Σ gold characters; failed corrections score as the OCR text',
    text_preparation: canonicalDescription(s.collapseWhitespace),
    lines: s.missingLines === 'ocr'
      ? 'every arm on the same lines; a line an arm lacks is scored as its OCR text and counted (filled_lines)'
      : 'every arm on the same lines; an arm lacking a line fails the analysis',
    clusters: `lines resampled in clusters: a dataset's page (page_pattern on sample_id) or else blocks of ${s.clusters.blockLines} consecutive lines (baseline order)`,
    bootstrap: {
      iterations: s.iterations,
      seed: s.seed,
      method: 'paired percentile block bootstrap over clusters (95 %); pooled figures resample the clusters within each dataset; macro = mean over datasets of each dataset\'s figure',
    },
    permutations: s.permutations,
    test: 'p = block permutation test of the printed ΔCER (each cluster\'s two outputs swapped with probability ½; p = (1 + #|T*| ≥ |T|) / (1 + permutations)); secondary per-line statistics: p_wilcoxon = Wilcoxon signed-rank on per-line CER differences, p_sign = exact sign test',
    mde: 'minimum detectable |ΔCER| at 80 % power, two-sided α = 0.05: (z0.975 + z0.80) · SE ≈ 2.80 · SE, SE from the block bootstrap',
    holm: 'one family: every planned contrast (contrasts) on every scope (each dataset, pooled, macro); contrasts with an upper-bound (gold_query) arm stay out and get p_holm null; vs_baseline.p_holm is its contrast\'s',
    bands: 'OCR line CER bands 0–2 %, 2–5 %, 5–10 %, 10–20 %, > 20 %; improved / unchanged / worsened = fewer / as many / more character edits than the OCR line',
    raw_cer: 'CER before the guard: raw_text cleaned (think blocks, fences, labels, wrapping quotes; src/llm/clean.ts) but neither trimmed nor checked, where recorded; else of the scored output',
    guard_effect: 'CER(guarded output) − CER(raw model output after cleaning, unguarded) on the same lines, block bootstrap CI and permutation p',
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
