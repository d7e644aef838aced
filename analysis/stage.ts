/**
 * The analyze stage as the pipeline runs it: `run` runs the arms analysis (every arm scored, compared with the
 * baseline and reported in arms.json), then writes the design files of the two default arms from its line counts
 * and figures (`analyzeDesignFiles`) and the one report. Its options come from a config
 * (analysis/stage/options.ts); shared by the activity and `phase5 report` (which runs it without Temporal).
 *
 *   const result = await run(await optionsFrom(config, {}), { onProgress: (done, total) => … });
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UserInputError, type StageHooks } from '../src/stages/shared/types';
import { writtenFiles } from '../src/stages/shared/written-file';
import { analyzeDesignFiles } from './documents/analyze';
import type { ArmPairCounts } from './documents/pair-counts';
import type { AnalyzeOptions } from './types';
import { armsOnlyResult } from './stage/arms-only';
import { armsSummary } from './stage/arms-summary';
import { armPairCounts, stageArmsOf } from './stage/from-arms';
import type { AnalyzeResult } from './stage/result';
import { runArms } from './stage/run-arms';

/** The arms analysis, the design files and the report; fails with the fix when there are no corrections yet. */
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
  const summary = await analyzeDesignFiles(
    { ...options, report, progress, onProgress: hooks.onProgress && ((done, total) => hooks.onProgress!(done, total)) },
    arms ? stageArmsOf(options, arms, pair) : undefined,
  );
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
      zero_shot_cer: d.zero_shot_cer,
      rag_cer: d.rag_cer,
      delta_cer: d.delta_cer,
      ...(d.invalid_reason ? { invalid_reason: d.invalid_reason } : {}),
    })),
    files: summary.files.length,
    warnings: [...summary.warnings, ...(arms?.warnings ?? [])],
    ...(arms ? { arms: armsSummary(options.arms!.resultsDir, arms) } : {}),
  };
}
