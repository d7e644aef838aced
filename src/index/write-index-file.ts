/** The index file from the normalised vectors: a plain f32 matrix (exact) or a usearch HNSW graph. */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import os from 'node:os';
import { normalizeRows } from '../embed/embedder';
import { createProgress, type Progress } from '../util/progress';
import type { BuildIndexOptions } from './build-index-options';
import type { IndexParams } from './manifest';
import { Index } from './usearch';
import { matrixHeader, writeFloats } from './vector-files';
import { usearchMetric, usearchScalar } from './vector-index';
import { vectorFiles, VectorRows } from './vector-rows';

const ROWS_PER_STEP = 8192;

/** The index file from the normalised vectors: a plain f32 matrix (exact) or a usearch HNSW graph. */
export function writeIndexFile(opts: BuildIndexOptions, params: IndexParams, file: string, count: number): void {
  const progress = createProgress({
    label: params.type === 'hnsw' ? 'build HNSW index' : 'write vector matrix',
    total: count,
    mode: opts.progressMode,
  });
  const vectors = new VectorRows(vectorFiles(opts), opts.model.dims);
  const blocks: RowBlocks = { vectors, dims: opts.model.dims, count, opts, progress };
  try {
    if (params.type === 'exact') writeMatrixFile(blocks, file);
    else writeHnswFile(blocks, params, file, opts.threads ?? os.availableParallelism());
  } finally {
    vectors.close();
    progress.stop();
  }
}

interface RowBlocks {
  vectors: VectorRows;
  dims: number;
  count: number;
  opts: Pick<BuildIndexOptions, 'signal' | 'onProgress'>;
  progress: Progress;
}

/** The vectors in normalised blocks of ROWS_PER_STEP rows, with cancellation and progress between blocks. */
function forEachNormalizedBlock(b: RowBlocks, onBlock: (start: number, rows: number, vecs: Float32Array) => void): void {
  for (let start = 0; start < b.count; start += ROWS_PER_STEP) {
    b.opts.signal?.throwIfAborted();
    const rows = Math.min(ROWS_PER_STEP, b.count - start);
    onBlock(start, rows, normalizeRows(b.vectors.read(start, rows), rows));
    b.progress.update(start + rows);
    b.opts.onProgress?.(start + rows, b.count);
  }
}

function writeMatrixFile(b: RowBlocks, file: string): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, matrixHeader(b.count, b.dims));
    forEachNormalizedBlock(b, (_start, _rows, vecs) => writeFloats(fd, vecs));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeHnswFile(b: RowBlocks, params: IndexParams, file: string, threads: number): void {
  const index = new Index({
    dimensions: b.dims,
    metric: usearchMetric(params.storage),
    quantization: usearchScalar(params.storage),
    connectivity: params.connectivity,
    expansion_add: params.expansionAdd,
    expansion_search: params.expansionSearch,
    multi: false,
  });
  forEachNormalizedBlock(b, (start, rows, vecs) => {
    const keys = new BigUint64Array(rows); // key = row number
    for (let i = 0; i < rows; i++) keys[i] = BigInt(start + i);
    index.add(keys, vecs, threads);
  });
  index.save(file);
}
