/**
 * OCR dataset loaders, declared in config by key + type + options:
 *   { key: 'OCR_GS-Jahiz.Hayawan', type: 'paired_dir', path: '.../book_Jahiz.Hayawan' }
 *   { key: 'MyData', type: 'jsonl', path: 'data/my.jsonl' }
 * Every loader returns the samples in a deterministic order plus counted problems (with example names);
 * problems are also logged, so nothing is dropped silently.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { childLogger } from '../util/log';
import { loadJsonlDataset } from './jsonl';
import { DEFAULT_GT_SUFFIX, DEFAULT_OCR_SUFFIX, loadPairedDir } from './paired-dir';
import { nonZeroProblems, totalProblems } from './problems';
import type { DatasetSpec, LoadDatasetOptions, LoadedDataset, PairedDirSpec } from './types';

export * from './types';
export { DEFAULT_GT_SUFFIX, DEFAULT_OCR_SUFFIX, loadPairedDir } from './paired-dir';
export { DatasetLineError, loadJsonlDataset } from './jsonl';
export { emptyProblems, nonZeroProblems, totalProblems, MAX_PROBLEM_EXAMPLES, DEFAULT_MAX_LINE_CHARS } from './problems';
export { DatasetError } from './errors';

const log = childLogger('datasets');

export async function loadDataset(spec: DatasetSpec, opts: LoadDatasetOptions = {}): Promise<LoadedDataset> {
  if (!spec.key || typeof spec.key !== 'string') throw new Error('dataset spec: "key" must be a non-empty string');
  if (opts.limit !== undefined && !(Number.isInteger(opts.limit) && opts.limit >= 0)) {
    throw new Error(`dataset "${spec.key}": limit must be a non-negative integer, got ${opts.limit}`);
  }
  let loaded: LoadedDataset;
  switch (spec.type) {
    case 'paired_dir':
      loaded = await loadPairedDir(spec, opts);
      break;
    case 'jsonl':
      loaded = await loadJsonlDataset(spec, opts);
      break;
    default:
      throw new Error(
        `dataset "${(spec as DatasetSpec).key}": unknown type "${(spec as { type: unknown }).type}" (expected "paired_dir" or "jsonl")`,
      );
  }
  const n = totalProblems(loaded.problems);
  const fields = { dataset: spec.key, samples: loaded.samples.length, available: loaded.available };
  if (n > 0 && opts.logProblems !== false) {
    log.warn(
      { ...fields, problems: nonZeroProblems(loaded.problems), examples: loaded.problems.examples },
      `dataset ${spec.key}: ${n} problem(s) counted and skipped`,
    );
  } else {
    log.debug(fields, `dataset ${spec.key}: loaded`);
  }
  return loaded;
}

/** Load several datasets in order; sample_ids must be unique across them (they are prefixed by key). */
export async function loadDatasets(specs: readonly DatasetSpec[], opts: LoadDatasetOptions = {}): Promise<LoadedDataset[]> {
  const keys = new Set<string>();
  for (const s of specs) {
    if (keys.has(s.key)) throw new Error(`dataset key "${s.key}" is declared twice`);
    keys.add(s.key);
  }
  const out: LoadedDataset[] = [];
  for (const s of specs) out.push(await loadDataset(s, opts));
  return out;
}

/**
 * Paired-dir specs for every `book_*`-style sub-folder of an OCR_GS root, keyed `<prefix><name without
 * "book_">` (e.g. `OCR_GS-Jahiz.Hayawan`), sorted by key. Handy for default configs and the demo.
 */
export async function discoverPairedDirs(
  root: string,
  { prefix = 'OCR_GS-', stripPrefix = 'book_', gtSuffix = DEFAULT_GT_SUFFIX, ocrSuffix = DEFAULT_OCR_SUFFIX } = {},
): Promise<PairedDirSpec[]> {
  const entries = await fsp.readdir(root, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => ({
      key: prefix + (e.name.startsWith(stripPrefix) ? e.name.slice(stripPrefix.length) : e.name),
      type: 'paired_dir' as const,
      path: path.join(root, e.name),
      gtSuffix,
      ocrSuffix,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
