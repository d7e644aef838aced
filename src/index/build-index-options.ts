/** What an index build is given (./build-index.ts `buildIndexFromVectors`): the vectors, the index's path and settings. */
import type { EmbedderIdentity } from '../embed/embedder';
import type { ProgressOptions } from '../util/progress';
import type { IndexParams } from './manifest';

export interface BuildIndexOptions {
  corpusPath: string;
  /** The finished vectors: one file, or the part files of a fanned-out build in row order. */
  vectorsPath: string | readonly string[];
  /** `<dir>/index.usearch`; sidecars are derived from it (see manifest.ts). */
  indexPath: string;
  /** Identity of the embedder that produced the vectors (Embedder#identity). */
  model: EmbedderIdentity;
  index?: Partial<IndexParams>;
  /** Corpus hash when already known (saves re-reading the file). */
  corpusSha256?: string;
  /** Threads for HNSW construction (default: all cores). */
  threads?: number;
  /** Keep the partial vectors after a successful build (default false: they are deleted). */
  keepVectors?: boolean;
  onProgress?: (done: number, total: number) => void;
  progressMode?: ProgressOptions['mode'];
  signal?: AbortSignal;
}
