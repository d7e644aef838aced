/**
 * The design files (docs/outputs.md): read the inference inputs and both default arms' corrections, take every
 * line's counts and the comparisons' intervals and tests from the arms analysis of the same run
 * (the stage's `StageArms`, ./stage-arms.ts; for a run it does not cover, the analysis of the files' two arms in
 * memory, ./own-arms.ts) through ./pair-counts.ts and ./arms-figures.ts, and write the per-dataset and aggregated files (plus the report). Pure core: no
 * Temporal import; the activity wraps `analyzeDesignFiles` and heartbeats through `onProgress`.
 *
 * Determinism: `generated_at` is the newest input file's mtime (never the wall clock), datasets are
 * processed in code-unit order, lines in file order, numbers rounded to fixed decimals, and every
 * resampling seeded from `analysis.bootstrap_seed` per comparison — so two runs on the same inputs write byte-identical files. Only
 * `phase5.log`, an append-only journal, grows on every run.
 */
import { servedModelsWarning } from '../inputs/served-models';
import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic, writeJsonlAtomic } from '../../src/io/jsonl';
import { resolveNormalization } from '../../src/text/profiles';
import { childLogger } from '../../src/util/log';
import { createProgress } from '../../src/util/progress';
import { DEFAULT_BOOTSTRAP } from '../stats/bootstrap';
import { baselineArm, defaultArms, joiningStudyArms, loadExtraArms } from '../lines/line-arms';
import { DEFAULT_ERAS } from '../score/eras';
import { cmpStr, round } from '../format';
import { sourceHitMatcher } from '../inputs/leakage';
import { loadDesignInputs, type DesignInputs } from '../inputs/design-inputs';
import type { AnalysisInputRecord, Loaded } from '../inputs/records';
import { errorClassesDocument, explorerLines, linesDocument, type LinesOptions } from '../lines/explorer-lines';
import { writeLinesJson } from '../lines/lines-json';
import { fewClustersWarning, reasonsIn } from '../stats/min-clusters';
import { renderReport } from '../report/report';
import { scoreDataset, type ScoredDataset } from './pair-rows';
import { pairCounts } from './pair-counts';
import { pairEdits } from './pair-edits';
import { ownArms, type DesignArms } from './own-arms';
import { stageArms, type StageArms } from './stage-arms';
import { studyArmSources } from '../lines/study-arms';
import { aggregateDocuments, datasetDocuments, type DatasetDocuments, type ResolvedMeta, type SectionContext } from '.';
import type { AnalysisSummary, AnalyzeOptions, DatasetSummary } from '../types';
import { DEFAULT_MAX_FAILED_SHARE } from '../score/failed-share';

const log = childLogger('analyze');

export { DEFAULT_BOOTSTRAP };

function mostFrequent(m: Map<string, number>): string | null {
  let best: string | null = null;
  let bestN = -1;
  for (const k of [...m.keys()].sort(cmpStr)) {
    const n = m.get(k)!;
    if (n > bestN) {
      best = k;
      bestN = n;
    }
  }
  return best;
}

/**
 * Run the analysis; returns a small summary (per dataset CER/WER/Δ and the files written). `stage`: the arms
 * analysis the stage ran first, which the files project where it covers their lines.
 */
export async function analyzeDesignFiles(opts: AnalyzeOptions, stage?: StageArms): Promise<AnalysisSummary> {
  const ragDir = path.resolve(opts.ragDir);
  const inputs = await loadDesignInputs({ ragDir, baselineDir: opts.baselineDir ?? null, datasets: opts.datasets, log });
  const warnings = [...inputs.warnings];
  for (const [arm, file] of [
    ['rag', inputs.rag],
    ['zero_shot', inputs.zeroShot],
  ] as const) {
    const served =
      file &&
      servedModelsWarning(
        arm,
        [...file.byDataset.values()].flat().map((x) => x.record),
      );
    if (served) warnings.push(served);
  }
  const settings = resolveSettings(opts);
  const arms = await designArms(inputs, opts, settings, ragDir, stage);
  const scored = scoreDatasets(inputs, opts, settings, arms, warnings);
  const ctx: SectionContext = {
    arms,
    generatedAt: opts.generatedAt ?? inputs.newestInputIso,
    meta: resolveMeta(scored, opts, warnings),
    ...settings,
    topConfusions: opts.topConfusions ?? 20,
    maxFailedShare: opts.maxFailedShare ?? DEFAULT_MAX_FAILED_SHARE,
  };
  const out = new OutputWriter(ragDir);
  const docs = writeDatasetDocuments(out, scored, inputs, ctx, opts.datasetInfo, warnings);
  const agg = writeAggregates(out, scored, docs, ctx);
  const few = fewClustersWarning(
    'comparison_vs_phase2.json / comparison.json',
    reasonsIn([...docs.map((d) => d.digest.bootstrap), agg.boot]),
  );
  if (few) warnings.push(few);
  if (opts.lines !== false) await writeLineDocuments(out, inputs, opts, stage, ctx.generatedAt, warnings);
  else for (const f of LINE_DOCUMENTS) removeStale(path.join(ragDir, f));
  const summary: AnalysisSummary = {
    generated_at: ctx.generatedAt,
    rag_dir: ragDir,
    datasets: docs.map((d) => datasetSummary(d.digest)),
    overall: overallSummary(agg),
    files: [],
    warnings,
  };
  if (opts.report !== false) await writeReport(out, opts);
  summary.files = [...new Set(out.files)].sort(cmpStr);
  if (opts.logFile !== false) appendJournal(opts.logFile ?? path.join(ragDir, 'phase5.log'), summary, settings.errorAnalysis);
  log.info({ datasets: summary.datasets.length, samples: agg.all.n, delta_cer: summary.overall.delta_cer }, 'analysis written');
  return summary;
}

const REPORT_FILES = ['report.md', 'report.html', 'charts', 'report-lines'];

/**
 * The report, in `opts.reportDir` (default ragDir); its files listed relative to ragDir. A report written
 * elsewhere replaces an earlier run's copy in ragDir, so a results dir holds one report.
 */
async function writeReport(out: OutputWriter, opts: AnalyzeOptions): Promise<void> {
  const reportDir = path.resolve(opts.reportDir ?? out.dir);
  const r = await renderReport(out.dir, typeof opts.report === 'object' ? opts.report : {}, reportDir);
  out.files.push(...r.files.map((f) => path.relative(out.dir, path.join(reportDir, f))));
  if (reportDir !== out.dir) for (const f of REPORT_FILES) removeStale(path.join(out.dir, f));
}

/** The scoring settings, with their defaults. */
function resolveSettings(opts: AnalyzeOptions) {
  return {
    bootstrap: {
      iterations: opts.bootstrap?.iterations ?? DEFAULT_BOOTSTRAP.iterations,
      seed: opts.bootstrap?.seed ?? DEFAULT_BOOTSTRAP.seed,
      ...(opts.bootstrap?.permutations !== undefined ? { permutations: opts.bootstrap.permutations } : {}),
      ...(opts.bootstrap?.clusters ? { clusters: opts.bootstrap.clusters } : {}),
      ...(opts.bootstrap?.minClusters !== undefined ? { minClusters: opts.bootstrap.minClusters } : {}),
    },
    ...profileSettings(opts.normalization),
    collapseWhitespace: opts.collapseWhitespace ?? true,
    eras: opts.eras ?? DEFAULT_ERAS,
    errorAnalysis: opts.errorAnalysis ?? true,
  };
}

type Settings = ReturnType<typeof resolveSettings>;

/** The profiles (`null` = the primary `nfc` alone) and the first secondary one, behind the `normalized` blocks. */
function profileSettings(n: AnalyzeOptions['normalization']) {
  const profiles = resolveNormalization(n === null ? { secondary: [] } : n);
  return { profiles, normalization: profiles.secondary[0] ?? null };
}

/** Project every dataset's lines (progress shown per line) from the counts and edits of the arms analyses. */
function scoreDatasets(
  inputs: DesignInputs,
  opts: AnalyzeOptions,
  settings: Settings,
  arms: DesignArms,
  warnings: string[],
): ScoredDataset[] {
  const total = inputs.datasets.reduce((a, d) => a + inputs.rag.byDataset.get(d)!.length, 0);
  const progress = createProgress({ label: 'analyze', total, mode: opts.progress });
  let done = 0;
  const tick = () => {
    done++;
    progress.tick();
    if (opts.onProgress && (done % 256 === 0 || done === total)) opts.onProgress(done, total);
  };
  const scored: ScoredDataset[] = [];
  try {
    for (const ds of inputs.datasets) {
      const info = opts.datasetInfo?.[ds];
      const p2 = inputs.zeroShot?.byDataset.get(ds);
      const inp = inputs.inferenceInput?.byDataset.get(ds);
      if (inputs.zeroShot && !p2) warnings.push(`${ds}: no zero_shot lines for this dataset; comparison figures are null`);
      const scoreOptions = {
        collapseWhitespace: settings.collapseWhitespace,
        profiles: settings.profiles,
        errorAnalysis: settings.errorAnalysis,
        topK: opts.meta?.top_k,
        eras: settings.eras,
        isSourceBook: sourceHitMatcher(info),
      };
      const rag = inputs.rag.byDataset.get(ds)!;
      const zeroShotById = bySampleId(p2);
      const records = rag.map((x) => x.record);
      const zeroShotOf = (id: string) => zeroShotById?.get(id)?.record ?? null;
      const lines = pairCounts(ds, records, zeroShotOf, arms.counts);
      const edits = pairEdits(ds, records, zeroShotOf, arms);
      scored.push(scoreDataset(ds, rag, zeroShotById, bySampleId<AnalysisInputRecord>(inp), lines, edits, scoreOptions, tick));
    }
  } finally {
    progress.stop();
  }
  return scored;
}

/** The arms analyses the files project: the stage's where it covers their lines, else their own (in memory). */
async function designArms(
  inputs: DesignInputs,
  opts: AnalyzeOptions,
  settings: Settings,
  ragDir: string,
  stage: StageArms | undefined,
): Promise<DesignArms> {
  const names = [settings.profiles.primary, ...settings.profiles.secondary].map((p) => p.name);
  const fromStage = stageArms(stage, inputs, names, settings.collapseWhitespace);
  if (fromStage) {
    log.info('counts and figures taken from the arms analysis of the run');
    return fromStage;
  }
  const { collapseWhitespace, bootstrap } = settings;
  return ownArms(inputs, ragDir, { bootstrap, collapseWhitespace, normalization: opts.normalization, maxFailedShare: opts.maxFailedShare });
}

function bySampleId<T extends { sample_id: string }>(l: Array<Loaded<T>> | undefined): Map<string, Loaded<T>> | null {
  return l ? new Map(l.map((x) => [x.record.sample_id, x])) : null;
}

/** Study meta: the caller's values, else the most frequent model / prompt version among the records. */
function resolveMeta(scored: ScoredDataset[], opts: AnalyzeOptions, warnings: string[]): ResolvedMeta {
  const models = new Map<string, number>();
  const versions = new Map<string, number>();
  for (const s of scored) {
    for (const [k, v] of s.models) models.set(k, (models.get(k) ?? 0) + v);
    for (const [k, v] of s.promptVersions) versions.set(k, (versions.get(k) ?? 0) + v);
  }
  if (models.size > 1) warnings.push(`rag corrections come from ${models.size} models: ${[...models.keys()].sort(cmpStr).join(', ')}`);
  return {
    model: opts.meta?.model ?? mostFrequent(models),
    embedding_model: opts.meta?.embedding_model ?? null,
    top_k: opts.meta?.top_k ?? null,
    corpus_size: opts.meta?.corpus_size ?? null,
    prompt_version: opts.meta?.prompt_version ?? mostFrequent(versions),
  };
}

/** Writes JSON documents under ragDir and remembers their relative paths. */
class OutputWriter {
  readonly files: string[] = [];
  constructor(readonly dir: string) {}

  json(rel: string, value: unknown): void {
    writeJsonAtomic(path.join(this.dir, rel), value);
    this.files.push(rel);
  }

  /** One-line JSON of a {meta, lines} document (lines.json: large, read by programs), written a line at a time. */
  linesJson(rel: string, value: { meta: unknown; lines: readonly unknown[] }): void {
    writeLinesJson(path.join(this.dir, rel), value);
    this.files.push(rel);
  }

  /** Write the document, or remove an earlier run's copy when this run has none. */
  jsonOrRemove(rel: string, value: unknown | null): void {
    if (value) this.json(rel, value);
    else removeStale(path.join(this.dir, rel));
  }
}

/** The four documents of every dataset plus its copy of the rag corrections; warns about odd inputs. */
function writeDatasetDocuments(
  out: OutputWriter,
  scored: ScoredDataset[],
  inputs: DesignInputs,
  ctx: SectionContext,
  datasetInfo: AnalyzeOptions['datasetInfo'],
  warnings: string[],
): DatasetDocuments[] {
  const docs: DatasetDocuments[] = [];
  for (const s of scored) {
    const ds = s.dataset;
    const d = datasetDocuments(s, ctx, datasetInfo?.[ds]);
    docs.push(d);
    mkdirSync(path.join(out.dir, ds), { recursive: true });
    writeJsonlAtomic(
      path.join(out.dir, ds, 'corrections.jsonl'),
      inputs.rag.byDataset.get(ds)!.map((x) => x.raw),
    );
    out.files.push(`${ds}/corrections.jsonl`);
    out.json(`${ds}/metrics.json`, d.metrics);
    out.json(`${ds}/comparison_vs_phase2.json`, d.comparison);
    out.json(`${ds}/retrieval_analysis.json`, d.retrieval);
    out.jsonOrRemove(`${ds}/error_changes.json`, d.errorChanges);
    const dg = d.digest;
    if (dg.all.gold_mismatch_n > 0)
      warnings.push(
        `${ds}: ${dg.all.gold_mismatch_n} sample(s) have a different gold text in zero_shot or inference_input; each correction is scored against its own record's gold (arms.json's rule), the OCR text against rag's`,
      );
    if (dg.all.no_input_n > 0 && inputs.inferenceInput)
      warnings.push(`${ds}: ${dg.all.no_input_n} sample(s) missing from inference_input.jsonl`);
  }
  return docs;
}

function writeAggregates(out: OutputWriter, scored: ScoredDataset[], docs: DatasetDocuments[], ctx: SectionContext) {
  const agg = aggregateDocuments(scored, docs, ctx);
  out.json('metrics.json', agg.metrics);
  out.json('comparison.json', agg.comparison);
  out.jsonOrRemove('error_changes.json', agg.errorChanges);
  return agg;
}

const LINE_DOCUMENTS = ['lines.json', 'error_classes.json'];

/**
 * lines.json (every line, every arm, the diffs) and error_classes.json, for the report's Lines view: rag and
 * zero_shot, the arms `opts.lines` names, and a study's own arms (ΔCER against its baseline arm unless one is named).
 */
async function writeLineDocuments(
  out: OutputWriter,
  inputs: DesignInputs,
  opts: AnalyzeOptions,
  stage: StageArms | undefined,
  generatedAt: string,
  warnings: string[],
) {
  const view = typeof opts.lines === 'object' ? opts.lines : {};
  const study = stage?.studyArms ? studyArmSources(stage.resultsDir, stage.analysis) : [];
  const base = defaultArms(inputs);
  const extra = [...(view.arms ?? []), ...joiningStudyArms(study, base, warnings)];
  const arms = [
    ...base,
    ...(await loadExtraArms(
      extra,
      inputs.datasets,
      base.map((a) => a.name),
    )),
  ];
  const info = opts.datasetInfo ?? {};
  const lineOpts: LinesOptions = {
    collapseWhitespace: opts.collapseWhitespace ?? true,
    baseline: baselineArm(arms, view.baseline ?? (study.length ? stage!.analysis.baseline : undefined)),
    sourceMatcher: (ds) => sourceHitMatcher(info[ds]),
    sourceExcluded: (ds) => info[ds]?.excluded ?? null,
    ...(study.length ? { provenance: true } : {}),
  };
  const { lines, classes } = explorerLines({ datasets: inputs.datasets, byDataset: inputs.rag.byDataset }, arms, lineOpts);
  out.linesJson('lines.json', linesDocument(lines, arms, lineOpts, generatedAt, inputs.datasets));
  out.json('error_classes.json', errorClassesDocument(classes, arms, generatedAt));
}

function datasetSummary(g: DatasetDocuments['digest']): DatasetSummary {
  const p2 = g.hasBaseline ? g.cmp.base_ce / Math.max(1, g.cmp.ref_chars) : null;
  const p2w = g.hasBaseline ? g.cmp.base_we / Math.max(1, g.cmp.ref_words) : null;
  const p5 = g.cmp.ref_chars > 0 ? g.cmp.rag_ce / g.cmp.ref_chars : null;
  const p5w = g.cmp.ref_words > 0 ? g.cmp.rag_we / g.cmp.ref_words : null;
  return {
    dataset: g.dataset,
    num_samples: g.all.n,
    n_paired: g.cmp.paired,
    ocr_cer: round(g.cmp.ref_chars > 0 ? g.cmp.ocr_ce / g.cmp.ref_chars : null),
    ocr_wer: round(g.cmp.ref_words > 0 ? g.cmp.ocr_we / g.cmp.ref_words : null),
    zero_shot_cer: round(p2),
    zero_shot_wer: round(p2w),
    rag_cer: round(p5),
    rag_wer: round(p5w),
    delta_cer: round(p2 !== null && p5 !== null ? p5 - p2 : null),
    delta_wer: round(p2w !== null && p5w !== null ? p5w - p2w : null),
    delta_cer_ci95: g.bootstrap.delta_cer?.ci95 ?? null,
    delta_cer_reason: g.bootstrap.delta_cer?.reason ?? null,
    significant: g.bootstrap.delta_cer?.significant ?? null,
    failures_rag: g.all.rag_fail_n,
    failures_zero_shot: g.all.base_fail_n,
    help_rate: round(g.all.n > 0 ? g.all.rag_help / g.all.n : null),
    harm_rate: round(g.all.n > 0 ? g.all.rag_harm / g.all.n : null),
    avg_top1_score: g.avgTop1,
    leakage: g.leakage.statement,
    interpretation: g.interpretation,
    ...g.validity,
  };
}

function overallSummary(agg: ReturnType<typeof aggregateDocuments>): AnalysisSummary['overall'] {
  const c = agg.cmp;
  const op2 = agg.hasBaseline && c.ref_chars > 0 ? c.base_ce / c.ref_chars : null;
  const op5 = c.ref_chars > 0 ? c.rag_ce / c.ref_chars : null;
  return {
    num_samples: agg.all.n,
    n_paired: c.paired,
    ocr_cer: round(c.ref_chars > 0 ? c.ocr_ce / c.ref_chars : null),
    zero_shot_cer: round(op2),
    rag_cer: round(op5),
    delta_cer: round(op2 !== null && op5 !== null ? op5 - op2 : null),
    delta_cer_ci95: agg.boot.delta_cer?.ci95 ?? null,
    delta_cer_reason: agg.boot.delta_cer?.reason ?? null,
    interpretation: agg.interpretation,
    ...agg.validity,
  };
}

/** An output of an earlier run that this run does not produce would contradict the new figures. */
function removeStale(file: string): void {
  if (!existsSync(file)) return;
  rmSync(file, { recursive: true });
  log.info({ file }, 'removed stale output of an earlier run');
}

function appendJournal(file: string, s: AnalysisSummary, errorAnalysis: boolean): void {
  const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));
  const lines = [
    `${new Date().toISOString()} analyze: ${s.datasets.length} dataset(s), ${s.overall.num_samples} samples, inputs as of ${s.generated_at}${errorAnalysis ? '' : ' (error analysis off)'}`,
    ...s.datasets.map(
      (d) =>
        `  ${d.dataset}: n=${d.num_samples} paired=${d.n_paired} CER ocr=${fmt(d.ocr_cer)} phase2=${fmt(d.zero_shot_cer)} phase5=${fmt(d.rag_cer)} ` +
        (d.valid === false
          ? 'ΔCER=not valid'
          : `ΔCER=${fmt(d.delta_cer)}${d.delta_cer_ci95 ? ` [${fmt(d.delta_cer_ci95[0])}, ${fmt(d.delta_cer_ci95[1])}]` : ''}`) +
        ` failures=${d.failures_rag}; ${d.leakage}`,
    ),
    `  overall: ${s.overall.interpretation}`,
    ...s.warnings.map((w) => `  warning: ${w}`),
  ];
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, lines.join('\n') + '\n');
}
