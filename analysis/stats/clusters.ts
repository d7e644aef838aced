/**
 * Clusters of lines for the resampling (block bootstrap and block permutation, analysis/stats/block-stats.ts). They
 * are defined in the core (src/datasets/clusters.ts) because a random pilot (`--sample`) draws whole clusters
 * before any analysis runs.
 */
export { clusterIds, clusterMethod, DEFAULT_BLOCK_LINES, type ClusterSpec } from '../../src/datasets/clusters';

/** How a comparison's lines cluster and how many permutations its test runs (config `analysis.*`). */
export interface Resampling {
  clusters?: import('../../src/datasets/clusters').ClusterSpec;
  permutations?: number;
  /** Fewest clusters for an interval, p and detectable effect (`analysis.min_clusters`; analysis/stats/min-clusters.ts). */
  minClusters?: number;
}
