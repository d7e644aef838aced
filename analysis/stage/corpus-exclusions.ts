import type { Config } from '../../src/config/schema';
import { corpusSettings } from '../../src/stages/build/build';
import type { RunOptions } from '../../src/stages/shared/types';
import { datasetExclusions, type DatasetExclusion } from '../inputs/leakage';
import { heldByWork, metadataVersions } from './held-out';

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
