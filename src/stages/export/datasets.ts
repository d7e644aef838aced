/** The datasets an export reads: the loader spec a dataset key names, the selection, the samples. */
import { existsSync } from 'node:fs';
import { resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import { loadDataset, type DatasetSpec, type LoadedDataset } from '../../datasets/index';
import { clusterSpecOf, sampled } from '../../datasets/sample';
import { UserInputError, type RunOptions } from '../shared/types';
import { type ExportOptions } from './types';
export function datasetSpec(config: Config, key: string): DatasetSpec {
  const d = config.datasets[key];
  if (!d)
    throw new UserInputError(`unknown dataset "${key}" — the config declares: ${Object.keys(config.datasets).join(', ') || '(none)'}`);
  return d.type === 'paired_dir'
    ? { key, type: 'paired_dir', path: resolvePath(d.path), gtSuffix: d.gt_suffix, ocrSuffix: d.ocr_suffix }
    : { key, type: 'jsonl', path: resolvePath(d.path) };
}

export function selectedDatasets(config: Config, options: Pick<RunOptions, 'datasets'>): string[] {
  const keys = options.datasets?.length ? options.datasets : Object.keys(config.datasets);
  if (keys.length === 0) throw new UserInputError('no datasets: declare some under `datasets:` in the config');
  return keys;
}

/** The dataset; its problems are logged by the plan only (every shard reloads the same files). */
export async function loadSamples(
  config: Config,
  key: string,
  pick: Pick<ExportOptions, 'limit' | 'sample'>,
  logProblems: boolean,
): Promise<LoadedDataset> {
  const spec = datasetSpec(config, key);
  if (!existsSync(spec.path)) throw new UserInputError(`dataset ${key}: ${spec.path} not found`);
  const loaded = await loadDataset(spec, { limit: pick.limit, maxLineChars: config.export.max_line_chars, logProblems });
  return pick.sample ? { ...loaded, samples: sampled(loaded.samples, pick.sample, clusterSpecOf(config), key) } : loaded;
}
