/**
 * Opening a built index for search: exact (float32 matrix in memory, onnxruntime Gemm+TopK) or HNSW
 * (usearch file, memory-mapped with `view` by default). Both return cosine similarities.
 */
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import { sha256File } from '../util/hash';
import { IndexCorruptError } from './errors';
import { ExactSearcher, type SearchHits } from './exact-search';
import type { IndexManifest, VectorStorage } from './manifest';
import { Index, MetricKind, ScalarKind, type UsearchIndex, type UsearchMetric, type UsearchScalar } from './usearch';
import { readMatrixFile } from './vector-files';

export interface VectorSearcher {
  readonly size: number;
  readonly dims: number;
  /** Top-k per query row (queries must be L2-normalised); k is capped at the index size. */
  search(queries: Float32Array, k: number): Promise<SearchHits>;
  close(): Promise<void>;
}

export interface OpenIndexOptions {
  /** Search threads (default: all cores). */
  threads?: number;
  /** HNSW beam width at search time (default: the manifest's). */
  expansionSearch?: number;
  /** Memory-map an HNSW index instead of loading it (default true). */
  view?: boolean;
  /**
   * Also compare the file's sha256 with the manifest (default false; the size is always checked). usearch
   * can crash the process on a same-size file with damaged graph bytes, so verify after a suspect copy.
   */
  verifyChecksum?: boolean;
}

export function usearchScalar(s: VectorStorage): UsearchScalar {
  return s === 'f16' ? ScalarKind.F16 : s === 'i8' ? ScalarKind.I8 : ScalarKind.F32;
}

/**
 * usearch metric for stored unit vectors: inner product (cheapest) for float storage; cosine for i8,
 * whose kernels rescale by the quantised norms (plain i8 inner products are not comparable to cosines).
 */
export function usearchMetric(s: VectorStorage): UsearchMetric {
  return s === 'i8' ? MetricKind.Cos : MetricKind.IP;
}

class HnswSearcher implements VectorSearcher {
  constructor(
    private readonly index: UsearchIndex,
    readonly dims: number,
    private readonly threads: number,
  ) {}

  get size(): number {
    return this.index.size();
  }

  async search(queries: Float32Array, k: number): Promise<SearchHits> {
    const nq = queries.length / this.dims;
    const kk = Math.min(k, this.size);
    const keys = new Int32Array(nq * kk).fill(-1);
    const scores = new Float32Array(nq * kk).fill(-Infinity);
    const counts = new Uint32Array(nq);
    if (nq === 0 || kk <= 0) return { k: kk, keys, scores, counts };
    const res = this.index.search(queries, kk, this.threads) as unknown as {
      keys: BigUint64Array;
      distances: Float32Array;
      counts?: BigUint64Array;
    };
    for (let i = 0; i < nq; i++) {
      // A single query comes back as Matches (no counts, only the found hits).
      const c = res.counts ? Number(res.counts[i]) : res.keys.length;
      counts[i] = c;
      for (let j = 0; j < c; j++) {
        keys[i * kk + j] = Number(res.keys[i * kk + j]);
        scores[i * kk + j] = 1 - res.distances[i * kk + j];
      }
    }
    return { k: kk, keys, scores, counts };
  }

  async close(): Promise<void> {
    // usearch frees the native index (and unmaps the file) when the JS object is collected.
  }
}

/** Open the index file described by `manifest`, checking its size and count against the manifest. */
export async function openVectorIndex(indexPath: string, manifest: IndexManifest, opts: OpenIndexOptions = {}): Promise<VectorSearcher> {
  if (!existsSync(indexPath)) throw new IndexCorruptError(indexPath, 'the manifest exists but the index file is missing');
  const size = statSync(indexPath).size;
  if (size !== manifest.index.file_bytes) {
    // Checked before usearch maps the file: reading past the end of a truncated mapping would crash.
    throw new IndexCorruptError(
      indexPath,
      `${size} bytes on disk, the manifest recorded ${manifest.index.file_bytes} (truncated or replaced?)`,
    );
  }
  if (opts.verifyChecksum) {
    const sha = await sha256File(indexPath);
    if (sha !== manifest.index.file_sha256)
      throw new IndexCorruptError(
        indexPath,
        `sha256 ${sha.slice(0, 12)}… differs from the manifest's ${String(manifest.index.file_sha256).slice(0, 12)}… (damaged or replaced)`,
      );
  }
  const threads = opts.threads ?? os.availableParallelism();
  const dims = manifest.model.dims;
  if (manifest.index.file_format === 'f32-matrix') {
    const m = readMatrixFile(indexPath);
    if (m.dims !== dims || m.rows !== manifest.index.count) {
      throw new IndexCorruptError(indexPath, `holds ${m.rows} × ${m.dims} vectors, the manifest says ${manifest.index.count} × ${dims}`);
    }
    return ExactSearcherAdapter.create(m.data, dims, threads);
  }
  if (manifest.index.file_format !== 'usearch')
    throw new IndexCorruptError(indexPath, `unknown file_format ${JSON.stringify(manifest.index.file_format)} in the manifest`);
  const index = new Index({
    dimensions: dims,
    metric: usearchMetric(manifest.index.storage),
    quantization: usearchScalar(manifest.index.storage),
    connectivity: manifest.index.connectivity ?? 16,
    expansion_add: manifest.index.expansion_add ?? 128,
    expansion_search: opts.expansionSearch ?? manifest.index.expansion_search ?? 64,
    multi: false,
  });
  try {
    if (opts.view ?? true) index.view(indexPath);
    else index.load(indexPath);
  } catch (err) {
    throw new IndexCorruptError(indexPath, `usearch could not ${(opts.view ?? true) ? 'map' : 'load'} it (${(err as Error).message})`);
  }
  if (index.size() !== manifest.index.count)
    throw new IndexCorruptError(indexPath, `holds ${index.size()} vectors, the manifest says ${manifest.index.count}`);
  if (index.dimensions() !== dims)
    throw new IndexCorruptError(indexPath, `has ${index.dimensions()} dimensions, the manifest says ${dims}`);
  return new HnswSearcher(index, dims, threads);
}

class ExactSearcherAdapter implements VectorSearcher {
  private constructor(private readonly inner: ExactSearcher) {}
  static async create(data: Float32Array, dims: number, threads: number): Promise<ExactSearcherAdapter> {
    return new ExactSearcherAdapter(await ExactSearcher.create(data, dims, { threads }));
  }
  get size(): number {
    return this.inner.size;
  }
  get dims(): number {
    return this.inner.dims;
  }
  search(queries: Float32Array, k: number): Promise<SearchHits> {
    return this.inner.search(queries, k);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
