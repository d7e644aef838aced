/**
 * Analysis of all study arms together: every arm under `<results>/arms/` scored per line against
 * the gold text, compared with the baseline arm and with the raw OCR by paired tests, and written to
 * `<results>/study/arms.json` (schema: analysis/arms.schema.json) and `<results>/arms/<arm>/metrics.json`.
 *
 * Scoring is the analysis's own (analysis/score/profile-scores.ts; the design files take these counts and figures:
 * analysis/documents/pair-counts.ts, arms-figures.ts): corpus CER = Σ edits / Σ gold characters. Every arm is scored
 * on the same lines (analysis/study/alignment.ts: a missing line is an error, or with `missingLines: 'ocr'` the
 * OCR text, counted). Uncertainty is clustered (analysis/stats/clusters.ts, analysis/stats/block-stats.ts): intervals from a
 * block bootstrap, the primary p from a block permutation test of the printed ΔCER; Wilcoxon and the sign test
 * stay as secondary per-line statistics. The planned contrasts (analysis/study/planned-contrasts.ts) form one Holm family.
 * Deterministic like the rest of the analysis: `generated_at` is the newest input's mtime, arms in code-unit
 * order, seeds derived per (arm, dataset, comparison).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from '../../src/io/jsonl';
import { UserInputError } from '../../src/stages/shared/types';
import { alignArms, type AlignedArms } from './alignment';
import { scoreArmLine, type ArmRow } from '../score/arm-line';
import { armResult } from './arm-result';
import { studyScopes, type PairedMemo, type Scope } from './compare';
import { findContrast, measureContrasts, type ArmEdits, type ContrastResult } from './measure-contrasts';
import { discoverArms, type ArmSkip, type LoadedArm } from '../inputs/arm-inputs';
import { methodsNote } from './methods-note';
import { designFigures, type RagBands } from './design-figures';
import { designEdits } from './design-edits';
import { settingsOf } from './settings';
import { ARMS_SCHEMA_ID, type AnalyzeArmsOptions, type ArmResult, type ArmsAnalysis, type ArmsLineCounts } from './types';
import { armsWhen, armTopScores, lineTop1, type ArmWhen } from './when';
import { clusterMethod } from '../stats/clusters';
import { fewClustersWarning, reasonsIn } from '../stats/min-clusters';
import { plannedContrasts } from './planned-contrasts';
import { armProfiles } from './profiles';
import { scoreProfiles, type ScoredLines } from '../score/profile-scores';
import { armLineCounts } from '../score/line-counts';
import { meanRows, replicateName, replicatesAsArms } from './replicates';
import { lockedContrasts, planCheck } from '../plan/check';
import { servedModelsWarning } from '../inputs/served-models';
import { resolveNormalization } from '../../src/text/profiles';
import { writeTidyLines } from '../tidy';
import { probeLineScores } from '../probe/line-scores';
import { DEFAULT_MAX_FAILED_SHARE, failedLines, failedShareReason } from '../score/failed-share';

export type { BandCounts, GuardRates } from './counts';
export type { PairedComparison } from './compare';
export {
  ARMS_SCHEMA_ID,
  type AnalyzeArmsOptions,
  type ArmMetrics,
  type ArmResult,
  type ArmsAnalysis,
  type ArmsLineCounts,
  type ArmsStatsOptions,
} from './types';

/** Score, compare and (by default) write every arm under `<resultsDir>/arms/`. */
export async function analyzeArms(options: AnalyzeArmsOptions): Promise<ArmsAnalysis> {
  const resultsDir = path.resolve(options.resultsDir);
  const { arms, skipped } = options.loaded ?? (await discoverArms(resultsDir, options.datasets, options.defaultArms));
  const base = arms.find((a) => a.info.name === options.baseline);
  if (!base) throw missingBaseline(options.baseline, resultsDir, arms, skipped);
  const settings = settingsOf(options);
  const warnings = [...skipped.map((s) => `arm ${s.arm} skipped: ${s.reason}`), ...inputWarnings(arms)];
  const aligned = alignArms([...arms, ...arms.flatMap(replicatesAsArms)], base, settings.missingLines);
  const norm = resolveNormalization(options.normalization === null ? { secondary: [] } : options.normalization);
  const profileList = [settings.profile, ...norm.secondary];
  const scored = scoreProfiles(aligned.lines, profileList, settings.collapseWhitespace);
  const { scores } = scored;
  options.onLineCounts?.(lineCountsOf(aligned, scores, profileList, settings.collapseWhitespace));
  const { rows, replicateRows } = scoreArms(arms, aligned, settings, scored, options.onProgress);
  const datasets = [...aligned.ranges.keys()];
  const { scopes, clusterNote } = studyScopes(datasets, aligned.ranges, aligned.sampleIds, settings.clusters);
  const baseRows = rows.get(base.info.name)!;
  warnGoldMismatch(arms, rows, baseRows, base, warnings);
  fillWarnings(aligned, warnings);
  const probe = await probeLineScores(resultsDir);
  const ragTopScores = await defaultRagScores(options, resultsDir);
  const when = await armsWhen({
    arms,
    probe,
    ...(ragTopScores !== undefined ? { ragTopScores } : {}),
    lines: aligned.lines,
    rows,
    baseline: base.info.name,
    scopes,
    settings,
    resultsDir,
    datasets: aligned.datasets,
    sampleIds: aligned.sampleIds,
  });
  const compared: PairedMemo = new Map();
  const results = arms.map((a) =>
    armResult(
      a,
      rows.get(a.info.name)!,
      a === base ? null : baseRows,
      scopes,
      settings,
      when.get(a.info.name)!,
      replicateRows.get(a.info.name),
      options.prices?.[a.info.name] ?? null,
      compared,
    ),
  );
  const contrasts = armContrasts(options, arms, base, rows, scopes, settings, compared);
  holmFromContrasts(results, contrasts, base.info.name);
  warnings.push(...markFailedShare(results, aligned, options.maxFailedShare ?? DEFAULT_MAX_FAILED_SHARE));
  warnings.push(...[fewClustersWarning('study/arms.json', reasonsIn([results, contrasts]))].filter((w) => w !== null));
  const profiles = armProfiles(arms, base, profileList, scores, aligned);
  const analysis: ArmsAnalysis = {
    schema: ARMS_SCHEMA_ID,
    generated_at: options.generatedAt ?? new Date(Math.floor(Math.max(...arms.map((a) => a.mtimeMs)))).toISOString(),
    baseline: base.info.name,
    primary_metric: settings.primaryMetric,
    datasets,
    methods: methodsNote(settings),
    clusters: Object.fromEntries(datasets.map((ds) => [ds, { method: clusterMethod(settings.clusters, ds), clusters: clusterNote[ds] }])),
    contrasts,
    skipped,
    warnings,
    exclusions: options.exclusions ?? null,
    arms: results,
    profiles,
    ...planLockField(options, resultsDir, results, contrasts, profiles),
    files: [],
    ...defaultArmFigures(options, rows, base.info.name, scopes, settings, ragBands(aligned, ragTopScores, when), aligned),
  };
  if (options.write !== false) {
    analysis.files = writeArms(resultsDir, analysis, options.defaultArms === undefined);
    const tidy = { arms, aligned, rows, replicateRows, scopes, profiles: profileList, scores, probe };
    analysis.files.push(...(await writeTidyLines(resultsDir, tidy, analysis.generated_at)));
  }
  return analysis;
}

/**
 * For the default arms, the design files' figures and line edits arms.json leaves out (./design-figures.ts,
 * ./design-edits.ts): rag against the baseline zero_shot, or rag alone (its own baseline: no ΔWER).
 */
function defaultArmFigures(
  options: AnalyzeArmsOptions,
  rows: Map<string, ArmRow[]>,
  baseline: string,
  scopes: Scope[],
  settings: ReturnType<typeof settingsOf>,
  bands: RagBands,
  aligned: AlignedArms,
): Pick<ArmsAnalysis, 'design_figures' | 'design_edits'> {
  const rag = rows.get('rag');
  if (!options.defaultArms || !rag || (baseline !== 'zero_shot' && baseline !== 'rag')) return {};
  const alone = baseline === 'rag';
  const prep = { collapseWhitespace: settings.collapseWhitespace, profile: settings.profile };
  return {
    design_figures: designFigures(rag, alone ? null : rows.get(baseline)!, scopes, settings, bands),
    design_edits: designEdits(aligned, !alone, prep),
  };
}

/** The rag arm's score bands so far: each aligned line's top-1 score and its pooled bands in arms.json. */
function ragBands(aligned: AlignedArms, scores: ReadonlyMap<string, number> | null | undefined, when: Map<string, ArmWhen>): RagBands {
  return { top1: lineTop1(aligned, scores), pooled: when.get('rag')?.by_score_band ?? null };
}

/** The rag arm's top-1 scores in a default study (given, or read from its inference input); undefined otherwise. */
async function defaultRagScores(options: AnalyzeArmsOptions, resultsDir: string): Promise<ReadonlyMap<string, number> | null | undefined> {
  if (!options.defaultArms) return undefined;
  return options.ragTopScores !== undefined ? options.ragTopScores : armTopScores(resultsDir, 'rag');
}

/** The planned contrasts measured; an arm vs the baseline is its `vs_baseline` comparison, taken from `compared`. */
function armContrasts(
  options: AnalyzeArmsOptions,
  arms: LoadedArm[],
  base: LoadedArm,
  rows: Map<string, ArmRow[]>,
  scopes: Scope[],
  settings: ReturnType<typeof settingsOf>,
  compared: PairedMemo,
): ContrastResult[] {
  const specs = plannedContrasts(
    arms.map((a) => a.info),
    base.info.name,
    options.contrasts,
  );
  const edits = new Map(arms.map((a): [string, ArmEdits] => [a.info.name, armEdits(rows.get(a.info.name)!, a.info.upper_bound)]));
  const confirmatory = options.planLock ? { confirmatory: lockedContrasts(options.planLock.lock) } : {};
  const metric = settings.primaryMetric;
  return measureContrasts(specs, edits, scopes, settings, { baseline: base.info.name, memo: compared, metric, ...confirmatory });
}

/** Every arm's line counts, built when asked for (the design document's files take rag's and zero_shot's). */
function lineCountsOf(
  aligned: AlignedArms,
  scores: ScoredLines['scores'],
  profiles: ReadonlyArray<{ name: string }>,
  collapseWhitespace: boolean,
): ArmsLineCounts {
  return {
    profiles: profiles.map((p) => p.name),
    collapseWhitespace,
    of: (arm) => {
      const lines = aligned.lines.get(arm);
      return lines ? armLineCounts(lines, aligned.datasets, aligned.sampleIds, scores.get(arm)!) : null;
    },
  };
}

/** What the inputs make worth a warning: duplicate lines, missing replicates, lines answered by several served models. */
function inputWarnings(arms: LoadedArm[]): string[] {
  const warnings: string[] = [];
  for (const a of arms) if (a.duplicates > 0) warnings.push(`arm ${a.info.name}: ${a.duplicates} duplicate sample_id line(s) skipped`);
  warnings.push(...missingReplicateWarnings(arms));
  for (const a of arms) {
    const records = [a, ...replicatesAsArms(a)].flatMap((x) => [...x.byDataset.values()].flat().map((l) => l.record));
    const served = servedModelsWarning(a.info.name, records);
    if (served) warnings.push(served);
  }
  return warnings;
}

/** Every arm's scored lines (with replicates: the mean of their scores, and each replicate's apart). */
function scoreArms(
  arms: LoadedArm[],
  aligned: AlignedArms,
  settings: ReturnType<typeof settingsOf>,
  { scores, golds }: ScoredLines,
  onProgress: AnalyzeArmsOptions['onProgress'],
): { rows: Map<string, ArmRow[]>; replicateRows: Map<string, ArmRow[][]> } {
  const prep = { collapseWhitespace: settings.collapseWhitespace, profile: settings.profile };
  const scored = (name: string): ArmRow[] => {
    const c = scores.get(name)![0];
    const gold = golds.get(name)!;
    return aligned.lines.get(name)!.map((l, i) => {
      const ocr = { charEdits: c.ocrCe[i], refChars: c.refChars[i], wordEdits: c.ocrWe[i], refWords: c.refWords[i] };
      const out = { charEdits: c.ce[i], refChars: c.refChars[i], wordEdits: c.we[i], refWords: c.refWords[i] };
      const mer = { ct: c.ct[i], wt: c.wt[i], ocr_ct: c.ocrCt[i], ocr_wt: c.ocrWt[i] };
      return { ...scoreArmLine(l, prep, { ocr, out, gold: gold[i] }), filled: l.filled, ...mer };
    });
  };
  const rows = new Map<string, ArmRow[]>();
  const replicateRows = new Map<string, ArmRow[][]>();
  for (const a of arms) {
    const each = [scored(a.info.name), ...a.replicates.map((r) => scored(replicateName(a.info.name, r.replicate)))];
    rows.set(a.info.name, meanRows(each));
    if (each.length > 1) replicateRows.set(a.info.name, each);
    onProgress?.(rows.size, arms.length);
  }
  return { rows, replicateRows };
}

/** arms.json `plan_lock`: the frozen plan against these results, only when there is one (analysis/plan/check.ts). */
function planLockField(
  options: AnalyzeArmsOptions,
  resultsDir: string,
  results: ArmResult[],
  contrasts: ContrastResult[],
  profiles: { profile: string }[],
): Pick<ArmsAnalysis, 'plan_lock'> {
  if (!options.planLock) return {};
  const names = results.map((r) => r.name);
  return {
    plan_lock: planCheck(
      options.planLock,
      resultsDir,
      names,
      contrasts,
      profiles.map((p) => p.profile),
    ),
  };
}

function armEdits(rows: ArmRow[], upperBound: boolean): ArmEdits {
  const f = (k: 'ref_chars' | 'ce' | 'ct') => Float64Array.from(rows, (r) => r[k]);
  return { ref: f('ref_chars'), ce: f('ce'), ct: f('ct'), upperBound };
}

/** An arm whose arm.json asks for more replicates than have corrections: its figures average the ones there are. */
function missingReplicateWarnings(arms: readonly LoadedArm[]): string[] {
  const missing = arms
    .filter((a) => a.info.replicates > 1 + a.replicates.length)
    .map(
      (a) =>
        `arm ${a.info.name}: ${1 + a.replicates.length} of ${a.info.replicates} replicates have corrections; its figures are the mean of those (run its inference to finish the others)`,
    );
  const extra = arms
    .filter((a) => a.extraReplicates.length > 0)
    .map(
      (a) =>
        `arm ${a.info.name}: ${a.extraReplicates.map((r) => `replicates/${r}`).join(', ')} left out: arm.json asks for ${a.info.replicates} replicate(s)`,
    );
  return [...missing, ...extra];
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
    if (mismatch > 0)
      warnings.push(
        `arm ${a.info.name}: ${mismatch} line(s) have a different gold text than the baseline's; each arm is scored against its own`,
      );
  }
}

/**
 * The failed-share rule on every arm, pooled and per dataset (`invalid_reason`, only where it fails); one
 * warning per arm. Replicate 0's records decide, as its lines are the arm's own.
 */
function markFailedShare(results: ArmResult[], aligned: AlignedArms, maxFailedShare: number): string[] {
  const warnings: string[] = [];
  for (const r of results) {
    const lines = aligned.lines.get(r.name)!;
    const reasonOf = (from: number, to: number) =>
      failedShareReason([{ label: `arm ${r.name}`, failed: failedLines(lines.slice(from, to)), lines: to - from }], maxFailedShare);
    const pooled = reasonOf(0, lines.length);
    if (pooled) {
      r.invalid_reason = pooled;
      warnings.push(pooled);
    }
    for (const [ds, [from, to]] of aligned.ranges) {
      const reason = reasonOf(from, to);
      if (reason && r.datasets[ds]) r.datasets[ds].invalid_reason = reason;
    }
  }
  return warnings;
}

/**
 * vs_baseline.p_holm of each arm and scope = that of the planned contrast arm vs baseline (null when not planned,
 * or when the contrast is ΔcMER: vs_baseline is ΔCER, and its p is no member of that family).
 */
function holmFromContrasts(results: ArmResult[], contrasts: ContrastResult[], baseline: string): void {
  for (const r of results) {
    if (!r.vs_baseline) continue;
    const found = findContrast(contrasts, r.name, baseline);
    const c = found?.metric === 'cmer' ? undefined : found;
    r.vs_baseline.p_holm = c?.p_holm ?? null;
    for (const [ds, m] of Object.entries(r.datasets)) if (m.vs_baseline) m.vs_baseline.p_holm = c?.datasets[ds]?.p_holm ?? null;
    if (r.macro?.vs_baseline) r.macro.vs_baseline.p_holm = c?.macro?.p_holm ?? null;
  }
}

function missingBaseline(baseline: string, resultsDir: string, arms: LoadedArm[], skipped: ArmSkip[]): UserInputError {
  const found = arms.map((a) => a.info.name);
  const skip = skipped.find((s) => s.arm === baseline);
  const why = skip ? `it was skipped (${skip.reason})` : `found: ${found.length ? found.join(', ') : 'no arms'}`;
  return new UserInputError(
    `baseline arm "${baseline}" not found under ${path.join(resultsDir, 'arms')} — ${why}; set study.baseline to one of the arms or run its inference first`,
  );
}

/** arms.json and each arm's metrics.json; returns the paths written, relative to resultsDir. */
/** study/arms.json, and each arm's metrics.json when `armMetrics` (the default arms' folders hold the design document's). */
function writeArms(resultsDir: string, a: ArmsAnalysis, armMetrics: boolean): string[] {
  const files = ['study/arms.json', ...(armMetrics ? a.arms.map((r) => `arms/${r.name}/metrics.json`) : [])];
  mkdirSync(path.join(resultsDir, 'study'), { recursive: true });
  writeJsonAtomic(path.join(resultsDir, 'study', 'arms.json'), {
    ...a,
    files: undefined,
    design_figures: undefined,
    design_edits: undefined,
  });
  for (const r of armMetrics ? a.arms : []) {
    writeJsonAtomic(path.join(resultsDir, 'arms', r.name, 'metrics.json'), {
      meta: {
        schema: `${ARMS_SCHEMA_ID}/arm`,
        arm: r.name,
        baseline: a.baseline,
        generated_at: a.generated_at,
        datasets: Object.keys(r.datasets),
        methods: a.methods,
      },
      ...r,
    });
  }
  return files;
}
