/** The arms analysis's settings resolved from its options. */
import type { AnalyzeArmsOptions } from './types';
import { DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS } from '../stats/bootstrap';
import { DEFAULT_BLOCK_LINES } from '../stats/clusters';
import { DEFAULT_MIN_CLUSTERS } from '../stats/min-clusters';
import { resolveNormalization } from '../../src/text/profiles';
import type { Settings } from './settings-type';

export function settingsOf(options: AnalyzeArmsOptions): Settings {
  return {
    iterations: options.bootstrap?.iterations ?? DEFAULT_BOOTSTRAP.iterations,
    permutations: options.permutations ?? DEFAULT_PERMUTATIONS,
    seed: options.bootstrap?.seed ?? DEFAULT_BOOTSTRAP.seed,
    minClusters: options.minClusters ?? DEFAULT_MIN_CLUSTERS,
    collapseWhitespace: options.collapseWhitespace ?? true,
    clusters: options.clusters ?? { blockLines: DEFAULT_BLOCK_LINES },
    missingLines: options.missingLines ?? 'error',
    profile: resolveNormalization(options.normalization === null ? { secondary: [] } : options.normalization).primary,
    primaryMetric: options.primaryMetric ?? 'cer',
  };
}
