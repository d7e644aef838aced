/**
 * The analyze stage as the pipeline runs it: the options a config implies, and `run`, which scores both
 * conditions and writes metrics, comparisons and the report (`analyzeStudy`). Shared by the activity and
 * `phase5 report` (which runs it without Temporal).
 *
 *   const result = await run(await optionsFrom(config, {}), { onProgress: (done, total) => … });
 */
import { readPlanLock } from '../src/plan/plan-lock';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { resolvePath } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { armConfig } from '../src/config/study';
import { readJson } from '../src/io/jsonl';
import { readMetadata } from '../src/openiti/metadata';
import type { SourceWorkExclusion } from '../src/openiti/source-works';
import {
  corpusSettings,
  resolveSourceExclusions,
  stagePaths,
  type CorpusRecord,
  type OpenitiCorpusSettings,
} from '../src/stages/build/build';
import { UserInputError, type RunOptions, type StageHooks } from '../src/stages/shared/types';
import { studyLayout } from '../src/stages/study/layout';
import { defaultArmDir } from '../src/stages/study/arms';
import { writtenFiles, type WrittenFile } from '../src/stages/shared/written-file';
import type { StagePaths } from '../src/stages/build/retriever';
import { analyzeStudy } from './documents/analyze';
import { analyzeArms, type ArmsAnalysis, type ArmsLineCounts, type ArmsStatsOptions } from './study/arms';
import { fewClustersWarning, reasonsIn } from './stats/min-clusters';
import { analyzeProvenance } from './study/provenance';
import type { ArmUsage } from './study/usage';
import { armsRoot } from './inputs/arm-inputs';
import { studyArmSources, writeArmsLineDocuments } from './lines/study-arms';
import { renderArmsReport } from './report/report';
import { datasetExclusions, sourceStatus, type DatasetExclusion, type ExclusionRule } from './inputs/leakage';
import type { AnalysisSummary, AnalyzeOptions, ArmsRunOptions, DatasetInfo } from './types';
import type { ArmPairCounts } from './documents/pair-counts';

/** The analysis options a config and the CLI options imply. */
export async function optionsFrom(config: Config, cli: RunOptions): Promise<AnalyzeOptions> {
  const { dirs, paths } = studyLayout(config, cli);
  return {
    // The default arms' folders; a study's arms are read from <results>/arms/ (study/ holds no corrections of its own).
    ragDir: config.study ? path.join(dirs.root, 'study') : defaultArmDir(dirs, 'rag'),
    baselineDir: cli.baselineDir ? resolvePath(cli.baselineDir) : defaultArmDir(dirs, 'zero_shot'),
    reportDir: studyReportDir(dirs.root),
    datasets: cli.datasets,
    errorAnalysis: config.analysis.analyze_errors && !cli.noErrorAnalysis,
    meta: {
      model: configuredModel(config),
      embedding_model: config.rag.embedding_model,
      top_k: config.retrieval.top_k,
      corpus_size: await corpusSize(paths),
    },
    datasetInfo: await datasetLeakage(config, cli),
    bootstrap: {
      iterations: config.analysis.bootstrap_iterations,
      seed: config.analysis.bootstrap_seed,
      permutations: config.analysis.permutations,
      minClusters: config.analysis.min_clusters,
      clusters: armsStats(config).clusters,
    },
    normalization: { ...config.analysis.normalization },
    collapseWhitespace: config.analysis.collapse_whitespace,
    eras: config.corpus.eras.map((e) => ({ name: e.name, from: e.from, to: e.to })),
    maxFailedShare: config.infer.max_failed_share,
    ...(await armsOptions(config, cli, dirs.root)),
  };
}

/**
 * The arms analysis runs when the config has a `study:` block, when `<results>/arms/` holds a study arm (an
 * arm.json), and for the default arms `rag` and `zero_shot` once both are corrected (their folders hold no
 * arm.json: analysis/inputs/default-arms.ts); the baseline is `study.baseline` (default `zero_shot`). Absent
 * otherwise (no arms to compare).
 */
async function armsOptions(config: Config, cli: RunOptions, root: string): Promise<Pick<AnalyzeOptions, 'arms'>> {
  const study = config.study;
  const defaults = !study && !hasStudyArm(root);
  if (defaults && !hasDefaultArms(root)) return {};
  return {
    arms: {
      resultsDir: root,
      baseline: study?.baseline ?? 'zero_shot',
      ...(defaults ? { defaultArms: { topK: config.retrieval.top_k, model: configuredModel(config) } } : {}),
      exclusions: await corpusExclusions(config, cli),
      ...armsStats(config),
      ...planLockOption(config),
    },
  };
}

/** Both default arms corrected: `<results>/arms/{rag,zero_shot}/corrections.jsonl`. */
function hasDefaultArms(root: string): boolean {
  return ['rag', 'zero_shot'].every((arm) => existsSync(path.join(armsRoot(root), arm, 'corrections.jsonl')));
}

/** The configured model's name, as the design document's files record it. */
function configuredModel(config: Config): string {
  return config.infer.backend !== 'local' ? config.infer.openai.model : path.basename(config.infer.local.model_path, '.gguf');
}

function hasStudyArm(root: string): boolean {
  const dir = armsRoot(root);
  return existsSync(dir) && readdirSync(dir).some((arm) => existsSync(path.join(dir, arm, 'arm.json')));
}

/** The frozen plan of the results dir (`phase5 plan --freeze`), when there is one. */
function planLockOption(config: Config): Pick<ArmsRunOptions, 'planLock'> {
  const lock = readPlanLock(config);
  return lock ? { planLock: lock } : {};
}

/** Clusters, permutations, missing-line rule and planned contrasts of the arms analysis, from the config. */
function armsStats(config: Config): ArmsStatsOptions {
  const pagePatterns = Object.fromEntries(Object.entries(config.datasets).map(([k, d]) => [k, d.page_pattern]));
  return {
    clusters: { blockLines: config.analysis.block_lines, pagePatterns },
    missingLines: config.analysis.missing_lines,
    permutations: config.analysis.permutations,
    minClusters: config.analysis.min_clusters,
    primaryMetric: config.analysis.primary_metric,
    ...(config.study?.contrasts ? { contrasts: config.study.contrasts } : {}),
    ...armPrices(config),
  };
}

/** Per arm, its `infer.price` (an arm's `infer` override may set its own); absent when no arm has one. */
function armPrices(config: Config): Pick<ArmsStatsOptions, 'prices'> {
  const prices: Record<string, { input: number; output: number }> = {};
  if (config.study) {
    for (const spec of config.study.arms) {
      const price = armConfig(config, spec).infer.price;
      if (price) prices[spec.name] = price;
    }
  } else if (config.infer.price) for (const c of config.infer.arms) prices[c] = config.infer.price;
  return Object.keys(prices).length ? { prices } : {};
}

/** Per dataset (config order, `--datasets` applied): what the corpus held out of its source (for the Arms section). */
export async function corpusExclusions(config: Config, cli: RunOptions): Promise<DatasetExclusion[]> {
  const keep = cli.datasets?.length ? new Set(cli.datasets) : null;
  const datasets = Object.entries(config.datasets)
    .filter(([key]) => !keep || keep.has(key))
    .map(([dataset, d]) => ({ dataset, ...(d.source_pattern ? { source_pattern: d.source_pattern } : {}) }));
  const settings = corpusSettings(config);
  // A generic corpus (corpus.source) applies neither exclude patterns nor exclusion by work.
  if ('generic' in settings) return datasetExclusions(datasets, [], null);
  const byWork = settings.datasetSources ? await heldByWork(config, cli, settings) : null;
  return datasetExclusions(datasets, settings.exclude, byWork, await metadataVersions(settings));
}

/** The metadata's versions, for the build's exclusion rule; null when the file cannot be read. */
async function metadataVersions(settings: OpenitiCorpusSettings): Promise<ExclusionRule['rows']> {
  if (!existsSync(settings.metadataPath)) return null;
  return (await readMetadata(settings.metadataPath).catch(() => null))?.rows ?? null;
}

/** What exclusion by work held out: the build record's list, else resolved from the metadata as the build does. */
async function heldByWork(config: Config, cli: RunOptions, settings: OpenitiCorpusSettings): Promise<SourceWorkExclusion[] | 'unknown'> {
  const record = `${stagePaths(config, cli).corpus}.build.json`;
  if (existsSync(record)) {
    const rec = await readJson<CorpusRecord>(record);
    if (rec.excludedSources) return rec.excludedSources;
  }
  return (await resolveSourceExclusions(settings).catch(() => null)) ?? 'unknown';
}

/** Sentences in the corpus the index was built from, when its build record is there. */
async function corpusSize(paths: StagePaths): Promise<number | undefined> {
  const record = `${paths.corpus}.build.json`;
  if (!existsSync(record)) return undefined;
  return (await readJson<{ summary: { totalWritten: number } }>(record)).summary.totalWritten;
}

/**
 * Per dataset: was its source book held out of the corpus, and which works are its (for the report's leakage
 * line and its count of hits from the source work) — by the build's own rule (analysis/inputs/leakage.ts).
 */
async function datasetLeakage(config: Config, cli: RunOptions): Promise<Record<string, DatasetInfo>> {
  const settings = corpusSettings(config);
  const generic = 'generic' in settings;
  const byWork = !generic && settings.datasetSources ? await heldByWork(config, cli, settings) : null;
  const rule: ExclusionRule = {
    exclude: generic ? [] : settings.exclude,
    held: Array.isArray(byWork) ? byWork : null,
    rows: generic ? null : await metadataVersions(settings),
  };
  const info: Record<string, DatasetInfo> = {};
  for (const [key, d] of Object.entries(config.datasets)) {
    const st = sourceStatus(d.source_pattern, rule);
    // Exclusion by work that nothing recorded: the build holds out `<work>.*` of every work the pattern names.
    const excluded = st?.status === 'excluded' || (byWork === 'unknown' && Boolean(d.source_pattern));
    info[key] = { excluded, sourcePattern: d.source_pattern, ...(st ? { sourceWorks: st.works } : {}) };
  }
  return info;
}

/** The one report of a results dir (docs/report.md): `<results>/study/`, beside arms.json. */
export function studyReportDir(resultsDir: string): string {
  return path.join(resultsDir, 'study');
}

/** The small result that crosses Temporal. */
export interface AnalyzeResult {
  ragDir: string;
  report: string;
  /** Every file the analysis wrote, with its sha256: an attach to this run checks them (src/stages/shared/written-file.ts). */
  written: WrittenFile[];
  overall: AnalysisSummary['overall'];
  /** `invalid_reason` only on a dataset whose comparison is not valid (too many failed lines): show no ΔCER for it. */
  datasets: {
    dataset: string;
    n: number;
    ocr_cer: number | null;
    phase2_cer: number | null;
    phase5_cer: number | null;
    delta_cer: number | null;
    invalid_reason?: string;
  }[];
  files: number;
  warnings: string[];
  /** Present when the study arms were analyzed (`<results>/study/arms.json`). */
  arms?: ArmsSummary;
}

/** The arms at a glance (pooled over datasets); the full figures are in `file`. */
export interface ArmsSummary {
  file: string;
  baseline: string;
  skipped: number;
  arms: ArmsSummaryRow[];
}

/** One arm pooled over datasets: `ci` is the paired-bootstrap CI of `delta_cer` (vs the baseline; null on it). */
export interface ArmsSummaryRow {
  name: string;
  upper_bound: boolean;
  lines: number;
  cer: number | null;
  cer_ci: [number, number] | null;
  raw_cer: number | null;
  delta_cer: number | null;
  ci: [number, number] | null;
  p_holm: number | null;
  /** Share of the arm's lines the guard replaced with the OCR text; null when no record carries `guard`. */
  guard_fell_back:
    number | null; /** Passes over the lines (1 without replicates) and the between-replicate SD of the CER (null with one). */
  replicates: number;
  cer_sd: number | null;
  /** arms.json's `usage`: over every record of every replicate. */
  usage: Pick<ArmUsage, 'records' | 'prompt_tokens' | 'completion_tokens' | 'latency_ms' | 'cost'>;
}

/** Score, compare and report (and the study arms, when there are any); fails with the fix when there are no corrections yet. */
export async function run(
  options: AnalyzeOptions,
  hooks: StageHooks = {},
  progress: AnalyzeOptions['progress'] = 'log',
): Promise<AnalyzeResult> {
  const corrections = path.join(options.ragDir, 'corrections.jsonl');
  let pair: ArmPairCounts | null = null;
  const arms = options.arms ? await runArms(options, options.arms, hooks, (c) => (pair = armPairCounts(options, c))) : null;
  if (!existsSync(corrections)) {
    if (arms) return armsOnlyResult(options, arms);
    throw new UserInputError(`no ${corrections} — run \`phase5 infer\` (or \`phase5 infer --import FILE\`) first`);
  }
  const report =
    options.report === false ? false : { ...(typeof options.report === 'object' ? options.report : {}), ...(arms ? { arms } : {}) };
  const summary = await analyzeStudy({
    ...options,
    // The default arms are the Lines view's rag and zero_shot already; study arms join them.
    ...(arms && !options.arms?.defaultArms ? studyLineArms(options, arms) : {}),
    ...fromArms(pair, arms),
    report,
    progress,
    onProgress: hooks.onProgress && ((done, total) => hooks.onProgress!(done, total)),
  });
  const armFiles = arms ? arms.files.map((f) => path.join(options.arms!.resultsDir, f)) : [];
  return {
    ragDir: summary.rag_dir,
    report: path.join(options.reportDir ?? summary.rag_dir, 'report.html'),
    written: await writtenFiles([...summary.files.map((f) => path.join(summary.rag_dir, f)), ...armFiles]),
    overall: summary.overall,
    datasets: summary.datasets.map((d) => ({
      dataset: d.dataset,
      n: d.num_samples,
      ocr_cer: d.ocr_cer,
      phase2_cer: d.phase2_cer,
      phase5_cer: d.phase5_cer,
      delta_cer: d.delta_cer,
      ...(d.invalid_reason ? { invalid_reason: d.invalid_reason } : {}),
    })),
    files: summary.files.length,
    warnings: [...summary.warnings, ...(arms?.warnings ?? [])],
    ...(arms ? { arms: armsSummary(options.arms!.resultsDir, arms) } : {}),
  };
}

async function runArms(
  options: AnalyzeOptions,
  arms: NonNullable<AnalyzeOptions['arms']>,
  hooks: StageHooks,
  onLineCounts?: (c: ArmsLineCounts) => void,
): Promise<ArmsAnalysis> {
  const analysis = await analyzeArmsOnly(options, arms, hooks, onLineCounts);
  const sources = Object.fromEntries((arms.exclusions ?? []).map((e) => [e.dataset, e.source_pattern ?? undefined]));
  analysis.provenance = await analyzeProvenance({
    resultsDir: arms.resultsDir,
    baseline: arms.baseline,
    sources,
    bootstrap: options.bootstrap,
    datasets: options.datasets,
    ...(arms.defaultArms ? { defaultArms: arms.defaultArms } : {}),
  });
  const few = fewClustersWarning('study/provenance.json', reasonsIn(analysis.provenance));
  if (few) analysis.warnings.push(few);
  return analysis;
}

async function analyzeArmsOnly(
  options: AnalyzeOptions,
  arms: NonNullable<AnalyzeOptions['arms']>,
  hooks: StageHooks,
  onLineCounts?: (c: ArmsLineCounts) => void,
): Promise<ArmsAnalysis> {
  // `arms` is the arms analysis's own options object, passed whole: a field added to it (the frozen plan) arrives.
  return analyzeArms({
    ...arms,
    bootstrap: options.bootstrap,
    collapseWhitespace: options.collapseWhitespace,
    normalization: options.normalization,
    datasets: options.datasets,
    ...(options.maxFailedShare !== undefined ? { maxFailedShare: options.maxFailedShare } : {}),
    ...(onLineCounts ? { onLineCounts } : {}),
    onProgress: hooks.onProgress && ((done, total) => hooks.onProgress!(done, total)),
  });
}

/**
 * The arms analysis's line counts of rag and zero_shot, when it ran over the very arms the design document's files
 * read: the default arms (no `study:`), rag in ragDir and zero_shot, the baseline, in baselineDir.
 */
function armPairCounts(options: AnalyzeOptions, counts: ArmsLineCounts): ArmPairCounts | null {
  const a = options.arms;
  if (!a?.defaultArms || a.baseline !== 'zero_shot' || !options.baselineDir) return null;
  const armDir = (name: string) => path.resolve(a.resultsDir, 'arms', name);
  if (path.resolve(options.ragDir) !== armDir('rag') || path.resolve(options.baselineDir) !== armDir('zero_shot')) return null;
  const rag = counts.of('rag');
  const zeroShot = counts.of('zero_shot');
  return rag && zeroShot ? { profiles: counts.profiles, collapseWhitespace: counts.collapseWhitespace, rag, zeroShot } : null;
}

/** What the design document's files take from the arms analysis of the same run (analysis/documents/pair-counts.ts, arms-figures.ts). */
function fromArms(counts: ArmPairCounts | null, analysis: ArmsAnalysis | null): Pick<AnalyzeOptions, 'fromArms'> {
  return counts && analysis ? { fromArms: { counts, analysis } } : {};
}

/** The study arms join rag and zero_shot in the Lines view, with ΔCER against the study's baseline arm. */
function studyLineArms(options: AnalyzeOptions, arms: ArmsAnalysis): Pick<AnalyzeOptions, 'studyArms' | 'baselineArm'> {
  return { studyArms: studyArmSources(options.arms!.resultsDir, arms), baselineArm: options.baselineArm ?? arms.baseline };
}

/** A study whose results hold arms but no Phase 5 corrections of their own: the arms report (with the arms' Lines view) in `<results>/study/`. */
async function armsOnlyResult(options: AnalyzeOptions, arms: ArmsAnalysis): Promise<AnalyzeResult> {
  const studyDir = studyReportDir(options.arms!.resultsDir);
  const lineFiles = await writeArmsLineDocuments({
    resultsDir: options.arms!.resultsDir,
    arms,
    collapseWhitespace: options.collapseWhitespace,
    datasetInfo: options.datasetInfo,
    lines: options.lines,
  });
  const report =
    options.report === false ? null : await renderArmsReport(studyDir, arms, typeof options.report === 'object' ? options.report : {});
  const base = arms.arms.find((a) => a.is_baseline)!;
  const root = options.arms!.resultsDir;
  const written = await writtenFiles([
    ...arms.files.map((f) => path.join(root, f)),
    ...[...lineFiles, ...(report?.files ?? [])].map((f) => path.join(studyDir, f)),
  ]);
  return {
    ragDir: options.ragDir,
    report: path.join(studyDir, 'report.html'),
    written,
    overall: {
      num_samples: base.lines,
      n_paired: 0,
      ocr_cer: base.ocr_cer,
      phase2_cer: null,
      phase5_cer: null,
      delta_cer: null,
      delta_cer_ci95: null,
      delta_cer_reason: null,
      interpretation: `No Phase 5 corrections of their own; ${arms.arms.length} study arm(s) compared with ${arms.baseline} in ${path.join(studyDir, 'arms.json')}.`,
    },
    datasets: [],
    files: arms.files.length + lineFiles.length + (report?.files.length ?? 0),
    warnings: arms.warnings,
    arms: armsSummary(options.arms!.resultsDir, arms),
  };
}

function armsSummary(resultsDir: string, a: ArmsAnalysis): ArmsSummary {
  return {
    file: path.join(resultsDir, 'study', 'arms.json'),
    baseline: a.baseline,
    skipped: a.skipped.length,
    arms: a.arms.map((r) => ({
      name: r.name,
      upper_bound: r.upper_bound,
      lines: r.lines,
      cer: r.cer,
      cer_ci: r.cer_ci,
      raw_cer: r.raw_cer,
      delta_cer: r.vs_baseline?.delta_cer ?? null,
      ci: r.vs_baseline?.ci ?? null,
      p_holm: r.vs_baseline?.p_holm ?? null,
      guard_fell_back: r.guard?.fell_back ?? null,
      replicates: r.replicates?.n ?? 1,
      cer_sd: r.replicates?.cer_sd ?? null,
      usage: {
        records: r.usage.records,
        prompt_tokens: r.usage.prompt_tokens,
        completion_tokens: r.usage.completion_tokens,
        latency_ms: r.usage.latency_ms,
        cost: r.usage.cost,
      },
    })),
  };
}
