import type { Config } from '../../src/config/schema';
import { armConfig } from '../../src/config/study';
import type { ArmsStatsOptions } from '../study/arms';

/** Clusters, permutations, missing-line rule and planned contrasts of the arms analysis, from the config. */
export function armsStats(config: Config): ArmsStatsOptions {
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
