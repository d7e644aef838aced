/**
 * Clusters of lines for the resampling (block bootstrap and block permutation, analysis/stats/block-stats.ts). They
 * are defined in the core (src/datasets/clusters.ts) because a random pilot (`--sample`) draws whole clusters
 * before any analysis runs.
 */
export { clusterIds, clusterMethod, DEFAULT_BLOCK_LINES, type ClusterSpec } from '../../src/datasets/clusters';
