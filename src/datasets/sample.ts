/**
 * Random pilots (`--sample N --seed S`, docs/plan.md#random-pilots): N lines of a dataset drawn as whole
 * clusters — the pages or blocks of consecutive lines the analysis resamples (./clusters.ts) — in a random order
 * fixed by the seed and the dataset key, the last cluster drawn cut to N. `--limit N` is the other selection:
 * the first N lines, a smoke test, biased towards a book's front matter.
 *
 * The drawn lines keep the loader's order (the export's, which infer follows too). A dataset of at most N lines
 * is taken whole, so drawing again from a pilot's own export (N lines) gives back the same lines.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema';
import { mulberry32 } from '../util/random';
import { clusterIds, type ClusterSpec } from './clusters';

/** `--sample N --seed S`. */
export interface SampleSpec {
  lines: number;
  seed: number;
}

/** How the config clusters each dataset's lines (`analysis.block_lines`, `datasets.<key>.page_pattern`). */
export function clusterSpecOf(config: Config): ClusterSpec {
  const pagePatterns = Object.fromEntries(Object.entries(config.datasets).map(([k, d]) => [k, d.page_pattern]));
  return { blockLines: config.analysis.block_lines, pagePatterns };
}

/** A 32-bit seed per dataset, so the datasets of one pilot are drawn independently of each other. */
function datasetSeed(seed: number, dataset: string): number {
  return createHash('sha256').update(`${seed}\0${dataset}`).digest().readUInt32LE(0);
}

/** Positions (into `sampleIds`) of the pilot's lines of one dataset, ascending. */
export function drawSample(sampleIds: readonly string[], sample: SampleSpec, clusters: ClusterSpec, dataset: string): number[] {
  if (sampleIds.length <= sample.lines) return sampleIds.map((_, i) => i);
  const { ids, count } = clusterIds(sampleIds, clusters, dataset);
  const members: number[][] = Array.from({ length: count }, () => []);
  ids.forEach((c, i) => members[c].push(i));
  const order = Array.from({ length: count }, (_, c) => c);
  const rand = mulberry32(datasetSeed(sample.seed, dataset));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const chosen: number[] = [];
  for (const c of order) {
    const left = sample.lines - chosen.length;
    if (left <= 0) break;
    chosen.push(...members[c].slice(0, left));
  }
  return chosen.sort((a, b) => a - b);
}

/** The pilot's items of one dataset (by each item's sample_id), or all of them without a sample. */
export function sampled<T extends { sample_id: string }>(
  items: readonly T[],
  sample: SampleSpec | undefined,
  clusters: ClusterSpec,
  dataset: string,
): T[] {
  if (!sample) return [...items];
  return drawSample(
    items.map((s) => s.sample_id),
    sample,
    clusters,
    dataset,
  ).map((i) => items[i]);
}
