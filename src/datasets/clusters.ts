/**
 * Clusters of lines for the resampling (block bootstrap and block permutation, analysis/stats/block-stats.ts).
 * Consecutive lines of one page share layout, font damage and OCR quality, so they are not independent
 * draws: the uncertainty is measured by resampling whole clusters.
 *
 * A dataset declares its cluster: `datasets.<key>.page_pattern` (a regular expression on the sample_id; its
 * first capture group, or the whole match, names the page) puts consecutive lines of one page in one
 * cluster; without it, runs of `analysis.block_lines` consecutive lines (default 25) are the clusters.
 * "Consecutive" is the order of the lines in the baseline arm's corrections (the export order), which is the
 * dataset loader's order — so a pilot (./sample.ts) draws the same clusters the analysis resamples.
 */

/** Lines per cluster when a dataset names no page (config `analysis.block_lines`). */
export const DEFAULT_BLOCK_LINES = 25;

export interface ClusterSpec {
  /** Lines per block when there is no page pattern. */
  blockLines: number;
  /** Per dataset key: the page pattern on sample_id (absent = blocks of `blockLines`). */
  pagePatterns?: Record<string, string | undefined>;
}

/** How the clusters of one dataset were formed, for the report's method line. */
export function clusterMethod(spec: ClusterSpec, dataset: string): string {
  const p = spec.pagePatterns?.[dataset];
  return p ? `page (/${p}/ on sample_id)` : `blocks of ${spec.blockLines} consecutive lines`;
}

/**
 * Cluster index (0-based, in line order) of each sample id of one dataset. A sample id the page pattern does
 * not match is a one-line cluster of its own (counted in `unmatched`), never merged silently with a neighbour.
 */
export function clusterIds(
  sampleIds: readonly string[],
  spec: ClusterSpec,
  dataset: string,
): { ids: Int32Array; count: number; unmatched: number } {
  const ids = new Int32Array(sampleIds.length);
  const pattern = spec.pagePatterns?.[dataset];
  if (!pattern) {
    const size = Math.max(1, Math.floor(spec.blockLines));
    for (let i = 0; i < ids.length; i++) ids[i] = Math.floor(i / size);
    return { ids, count: Math.ceil(ids.length / size), unmatched: 0 };
  }
  const re = new RegExp(pattern);
  let count = 0,
    unmatched = 0;
  let prev: string | null = null;
  sampleIds.forEach((id, i) => {
    const m = re.exec(id);
    const page = m ? (m[1] ?? m[0]) : null;
    if (page === null) unmatched++;
    if (i === 0 || page === null || page !== prev) count++;
    ids[i] = count - 1;
    prev = page;
  });
  return { ids, count, unmatched };
}
