/**
 * Corpus vectors of candidate hits (MMR diversity, cosines of lexical-only candidates in hybrid mode).
 *
 * RAGRetriever does not expose stored vectors, so they are read from outside: for an exact index the
 * `index.usearch` file is the float32 matrix (16-byte header, then rows), and a row is one positioned
 * read; usearch's JS binding has no get-vector call, so for an HNSW index the candidates are embedded
 * again with the retriever's model (same model and settings, so the same vectors up to quantisation).
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import type { Embedder } from '../embed/embedder';
import { normalizeRows } from '../embed/embedder';
import type { IndexManifest } from '../index/manifest';
import { MATRIX_HEADER_BYTES, readFloatRows } from '../index/vector-files';

export interface VectorStore {
  readonly dims: number;
  readonly kind: 'matrix-file' | 're-embed' | 'memory';
  /** L2-normalised rows for the given corpus idx (texts are needed only by the re-embedding store). */
  get(idx: readonly number[], texts: readonly string[]): Promise<Float32Array>;
  close(): void;
}

export class MatrixFileVectors implements VectorStore {
  readonly kind = 'matrix-file' as const;
  private fd: number | null;
  constructor(
    readonly file: string,
    readonly dims: number,
    readonly rows: number,
  ) {
    if (!existsSync(file)) throw new Error(`vector matrix ${file} does not exist`);
    this.fd = openSync(file, 'r');
  }
  async get(idx: readonly number[]): Promise<Float32Array> {
    if (this.fd === null) throw new Error(`vector matrix ${this.file} is closed`);
    const out = new Float32Array(idx.length * this.dims);
    idx.forEach((i, r) => {
      if (!(Number.isInteger(i) && i >= 0 && i < this.rows)) throw new RangeError(`vector row ${i} outside 0..${this.rows - 1}`);
      out.set(readFloatRows(this.fd!, this.dims, i, 1, MATRIX_HEADER_BYTES), r * this.dims);
    });
    return out;
  }
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export class EmbedderVectors implements VectorStore {
  readonly kind = 're-embed' as const;
  constructor(private readonly embedder: Embedder) {}
  get dims(): number {
    return this.embedder.dims;
  }
  async get(idx: readonly number[], texts: readonly string[]): Promise<Float32Array> {
    if (texts.length !== idx.length) throw new Error('EmbedderVectors.get needs one text per idx');
    return normalizeRows(await this.embedder.embedPassages(texts), texts.length);
  }
  close(): void {}
}

/** Rows already in memory (tests, the evaluation). */
export class MemoryVectors implements VectorStore {
  readonly kind = 'memory' as const;
  constructor(
    private readonly data: Float32Array,
    readonly dims: number,
  ) {}
  async get(idx: readonly number[]): Promise<Float32Array> {
    const out = new Float32Array(idx.length * this.dims);
    idx.forEach((i, r) => out.set(this.data.subarray(i * this.dims, (i + 1) * this.dims), r * this.dims));
    return out;
  }
  close(): void {}
}

/** The best store for an index: its matrix file when exact, else re-embedding with `embedder`. */
export function vectorStoreFor(indexPath: string, manifest: IndexManifest, embedder: Embedder | null): VectorStore | null {
  if (manifest.index.file_format === 'f32-matrix') return new MatrixFileVectors(indexPath, manifest.model.dims, manifest.index.count);
  return embedder ? new EmbedderVectors(embedder) : null;
}
