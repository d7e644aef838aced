/**
 * Analyze stage (CPU queue): metrics, comparison with the zero-shot baseline, retrieval and error analysis,
 * report. A thin adapter over analysis/ (which `phase5 report` also uses without Temporal).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { analyzeStudy, globToRegExp, type AnalyzeOptions, type DatasetInfo } from '../analysis';
import { resolvePath, resultDirs } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { readJson } from '../src/io/jsonl';
import type { StageInput } from '../workflows/types';
import { stagePaths } from './build';
import { asActivity, heartbeater, UserInputError } from './support';

/** Whether a dataset's source book was held out by an `exclude` pattern (patterns compared both ways). */
export function sourceExcluded(exclude: readonly string[], sourcePattern: string | undefined): boolean {
  if (!sourcePattern) return false;
  const literal = (g: string) => g.replace(/[*?]/g, '');
  return exclude.some((ex) => globToRegExp(ex).test(literal(sourcePattern)) || globToRegExp(sourcePattern).test(literal(ex)));
}

/** The analysis options a config implies (shared by the activity and `phase5 report`). */
export async function analyzeOptions(config: Config, options: StageInput['options']): Promise<AnalyzeOptions> {
  const dirs = resultDirs(config);
  const paths = stagePaths(config, options);
  let corpusSize: number | undefined;
  const record = `${paths.corpus}.build.json`;
  if (existsSync(record)) corpusSize = (await readJson<{ summary: { totalWritten: number } }>(record)).summary.totalWritten;
  const datasetInfo: Record<string, DatasetInfo> = {};
  for (const [key, d] of Object.entries(config.datasets)) {
    datasetInfo[key] = { excluded: sourceExcluded(config.phase5.corpus.exclude, d.source_pattern), sourcePattern: d.source_pattern };
  }
  return {
    phase5Dir: dirs.phase5,
    phase2Dir: options.phase2Dir ? resolvePath(options.phase2Dir) : dirs.phase2,
    datasets: options.datasets,
    errorAnalysis: config.phase5.analyze_errors && !options.noErrorAnalysis,
    meta: {
      model: config.infer.backend === 'openai' ? config.infer.openai.model : path.basename(config.infer.local.model_path, '.gguf'),
      embedding_model: config.rag.embedding_model,
      top_k: config.phase5.retrieval.top_k,
      corpus_size: corpusSize,
    },
    datasetInfo,
    bootstrap: { iterations: config.analysis.bootstrap_iterations, seed: config.analysis.bootstrap_seed },
    normalization: { ...config.analysis.normalization },
    collapseWhitespace: config.analysis.collapse_whitespace,
    eras: config.phase5.corpus.eras.map((e) => ({ name: e.name, from: e.from, to: e.to })),
  };
}

export async function analyzeResults(input: StageInput) {
  return asActivity(async () => {
    const opts = await analyzeOptions(input.config, input.options);
    const corrections = path.join(opts.phase5Dir, 'corrections.jsonl');
    if (!existsSync(corrections)) throw new UserInputError(`no ${corrections} — run \`phase5 infer\` (or \`phase5 infer --import FILE\`) first`);
    const hb = heartbeater('analyze', 0, 0, 'lines');
    const summary = await analyzeStudy({
      ...opts,
      progress: 'log',
      onProgress: (done, total) => {
        hb.setTotal(total);
        hb.beat(done);
      },
    }).finally(() => hb.stop());
    return {
      phase5Dir: summary.phase5_dir,
      report: path.join(summary.phase5_dir, 'report.html'),
      overall: summary.overall,
      datasets: summary.datasets.map((d) => ({ dataset: d.dataset, n: d.num_samples, ocr_cer: d.ocr_cer, phase2_cer: d.phase2_cer, phase5_cer: d.phase5_cer, delta_cer: d.delta_cer })),
      files: summary.files.length,
      warnings: summary.warnings,
    };
  });
}
