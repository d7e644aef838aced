/**
 * The analysis options a config and the CLI options imply, as one typed object (`AnalyzeOptions`).
 *
 *   const options = await optionsFrom(config, {});
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolvePath } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { StagePaths } from '../../src/stages/build/retriever';
import type { RunOptions } from '../../src/stages/shared/types';
import { defaultArmDir } from '../../src/stages/study/arms';
import { studyLayout } from '../../src/stages/study/layout';
import { readJson } from '../../src/io/jsonl';
import type { AnalyzeOptions } from '../types';
import { armsOptions } from './arms-options';
import { armsStats } from './arms-stats';
import { configuredModel } from './configured-model';
import { datasetLeakage } from './dataset-leakage';
import { studyReportDir } from './report-dir';

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

/** Sentences in the corpus the index was built from, when its build record is there. */
async function corpusSize(paths: StagePaths): Promise<number | undefined> {
  const record = `${paths.corpus}.build.json`;
  if (!existsSync(record)) return undefined;
  return (await readJson<{ summary: { totalWritten: number } }>(record)).summary.totalWritten;
}
