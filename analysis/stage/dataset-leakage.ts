import type { Config } from '../../src/config/schema';
import { corpusSettings } from '../../src/stages/build/build';
import type { RunOptions } from '../../src/stages/shared/types';
import { sourceStatus, type ExclusionRule } from '../inputs/leakage';
import type { DatasetInfo } from '../types';
import { heldByWork, metadataVersions } from './held-out';

/**
 * Per dataset: was its source book held out of the corpus, and which works are its (for the report's leakage
 * line and its count of hits from the source work) — by the build's own rule (analysis/inputs/leakage.ts).
 */
export async function datasetLeakage(config: Config, cli: RunOptions): Promise<Record<string, DatasetInfo>> {
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
