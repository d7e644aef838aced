/**
 * Index files and the manifest that makes a cached index trustworthy: it records what the vectors depend
 * on (model file hashes and embedding settings, index type and build parameters, corpus hash and count),
 * and loading compares it with what the config asks for, so a stale index is never used silently.
 *
 * Files for index path `<dir>/index.usearch`:
 *   <dir>/index.usearch                  vectors (exact: float32 matrix; hnsw: usearch file)
 *   <dir>/index.usearch.sentences.jsonl  {idx, text, source_uri, date} in idx order
 *   <dir>/index.manifest.json            this manifest; written last, so its presence marks a complete build
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbedderIdentity } from '../embed/embedder';
import type { Pooling } from '../embed/presets';
import { sha256File } from '../util/hash';
import { countJsonlRecords } from './corpus-file';
import { IndexCorruptError, IndexMismatchError } from './errors';

export type IndexType = 'exact' | 'hnsw';
export type VectorStorage = 'f32' | 'f16' | 'i8';

export interface IndexFiles {
  index: string;
  sentences: string;
  manifest: string;
}

export function indexFiles(indexPath: string): IndexFiles {
  const dir = path.dirname(indexPath);
  const stem = path.basename(indexPath).replace(/\.usearch$/, '');
  return { index: indexPath, sentences: `${indexPath}.sentences.jsonl`, manifest: path.join(dir, `${stem}.manifest.json`) };
}

/** Default location of the resumable build's partial vectors, beside the index. */
export function defaultVectorsPath(indexPath: string): string {
  const dir = path.dirname(indexPath);
  const stem = path.basename(indexPath).replace(/\.usearch$/, '');
  return path.join(dir, `${stem}.vectors.f32.partial`);
}

/** Where a fanned-out build keeps its shards' vector parts until the index is assembled. */
export function defaultPartsDir(indexPath: string): string {
  const dir = path.dirname(indexPath);
  const stem = path.basename(indexPath).replace(/\.usearch$/, '');
  return path.join(dir, `${stem}.parts`);
}

export interface IndexParams {
  type: IndexType;
  /** Vector storage of an HNSW index (exact search always keeps float32). */
  storage: VectorStorage;
  /** HNSW graph degree (usearch "connectivity", faiss "M"). */
  connectivity: number;
  /** HNSW build-time beam width. */
  expansionAdd: number;
  /** HNSW search-time beam width (can change without a rebuild). */
  expansionSearch: number;
}

export const DEFAULT_INDEX_PARAMS: IndexParams = {
  type: 'exact',
  storage: 'f32',
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 64,
};

/**
 * Index type from a config value: "exact" / "hnsw", or the faiss names of docs/retrieval.md#index-type — "FlatIP" is exact search,
 * "HNSW" and "IVFFlat" (the large-corpus option, approximate) map to HNSW.
 */
export function indexTypeFrom(value: string): IndexType {
  const v = value.toLowerCase();
  if (v === 'exact' || v === 'flatip' || v === 'flat') return 'exact';
  if (v === 'hnsw' || v === 'ivfflat') return 'hnsw';
  throw new Error(`index type must be "exact" (FlatIP) or "hnsw" (HNSW, IVFFlat), got ${JSON.stringify(value)}`);
}

export function resolveIndexParams(p: Partial<Omit<IndexParams, 'type'>> & { type?: string } = {}): IndexParams {
  const defined = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Partial<IndexParams>;
  const r = { ...DEFAULT_INDEX_PARAMS, ...defined };
  r.type = indexTypeFrom(r.type);
  if (!['f32', 'f16', 'i8'].includes(r.storage)) throw new Error(`index storage must be f32, f16 or i8, got ${JSON.stringify(r.storage)}`);
  if (r.type === 'exact' && r.storage !== 'f32')
    throw new Error(`exact search stores float32 vectors; storage "${r.storage}" needs index type "hnsw"`);
  for (const k of ['connectivity', 'expansionAdd', 'expansionSearch'] as const) {
    if (!Number.isInteger(r[k]) || r[k] <= 0) throw new Error(`index ${k} must be a positive integer, got ${JSON.stringify(r[k])}`);
  }
  return r;
}

export interface IndexManifest {
  format: 'openiti-rag-index';
  format_version: 1;
  created_at: string;
  tool_version: string;
  usearch_version: string;
  model: {
    id: string;
    file: string;
    sha256: string;
    external_data_sha256: string | null;
    dims: number;
    pooling: Pooling;
    normalize: boolean;
    query_prefix: string;
    passage_prefix: string;
    max_length: number;
  };
  index: {
    type: IndexType;
    /** Scores are cosine similarities: vectors are L2-normalised when stored, queries when searched. */
    metric: 'cos';
    storage: VectorStorage;
    /** "f32-matrix" (exact) or "usearch" (HNSW). */
    file_format: 'f32-matrix' | 'usearch';
    /** Checked on every load (a truncated file is refused before usearch maps it). */
    file_bytes: number;
    /** Checked on load only when asked (verifyChecksum): hashing a large index costs about a second. */
    file_sha256: string;
    connectivity: number | null;
    expansion_add: number | null;
    expansion_search: number | null;
    count: number;
  };
  corpus: {
    path: string;
    sha256: string;
    count: number;
  };
}

export const TOOL_VERSION: string = (() => {
  try {
    const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

export function modelSection(m: EmbedderIdentity): IndexManifest['model'] {
  return {
    id: m.id,
    file: m.file,
    sha256: m.sha256,
    external_data_sha256: m.externalDataSha256,
    dims: m.dims,
    pooling: m.pooling,
    normalize: m.normalize,
    query_prefix: m.queryPrefix,
    passage_prefix: m.passagePrefix,
    max_length: m.maxLength,
  };
}

export function readManifest(file: string): IndexManifest {
  let m: IndexManifest;
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as IndexManifest;
  } catch (err) {
    throw new IndexCorruptError(file, `invalid JSON (${(err as Error).message})`);
  }
  if (m?.format !== 'openiti-rag-index') throw new IndexCorruptError(file, `not an index manifest (format=${JSON.stringify(m?.format)})`);
  if (m.format_version !== 1)
    throw new IndexCorruptError(file, `unsupported format_version ${JSON.stringify(m.format_version)} (this tool reads 1)`);
  for (const [section, keys] of [
    ['model', ['sha256', 'dims', 'pooling', 'normalize', 'passage_prefix', 'max_length']],
    ['index', ['type', 'storage', 'file_format', 'file_bytes', 'count']],
    ['corpus', ['sha256', 'count']],
  ] as const) {
    const sec = (m as unknown as Record<string, Record<string, unknown> | undefined>)[section];
    if (!sec || typeof sec !== 'object') throw new IndexCorruptError(file, `missing "${section}" section`);
    for (const k of keys) if (!(k in sec)) throw new IndexCorruptError(file, `missing field ${section}.${k}`);
  }
  return m;
}

export interface ManifestExpectations {
  /** Identity of the embedder the config loads; every field that changes corpus vectors must match. */
  model?: EmbedderIdentity;
  /** Index type and build parameters from the config (search-time expansion is not compared). */
  index?: Partial<Omit<IndexParams, 'type'>> & { type?: string };
  /** Corpus the config points at: its hash and record count must match. */
  corpus?: { sha256: string; count?: number };
}

/** Throw IndexMismatchError for the first field where the manifest differs from the expectations. */
export function checkManifest(indexPath: string, m: IndexManifest, exp: ManifestExpectations): void {
  const cmp = (field: string, built: unknown, expected: unknown) => {
    if (expected === undefined) return;
    if (built !== expected) throw new IndexMismatchError(indexPath, field, built, expected);
  };
  if (exp.model) {
    const want = modelSection(exp.model);
    // Checked in order of how informative the message is; the id only matters through the file hashes.
    cmp('model.dims', m.model.dims, want.dims);
    if (m.model.sha256 !== want.sha256) {
      throw new IndexMismatchError(indexPath, 'model.sha256', `${m.model.sha256} (${m.model.id})`, `${want.sha256} (${want.id})`);
    }
    cmp('model.external_data_sha256', m.model.external_data_sha256 ?? null, want.external_data_sha256 ?? null);
    cmp('model.pooling', m.model.pooling, want.pooling);
    cmp('model.normalize', m.model.normalize, want.normalize);
    cmp('model.passage_prefix', m.model.passage_prefix, want.passage_prefix);
    cmp('model.max_length', m.model.max_length, want.max_length);
  }
  if (exp.index) {
    cmp('index.type', m.index.type, exp.index.type === undefined ? undefined : indexTypeFrom(exp.index.type));
    if (m.index.type === 'hnsw') {
      cmp('index.storage', m.index.storage, exp.index.storage);
      cmp('index.connectivity', m.index.connectivity, exp.index.connectivity);
      cmp('index.expansion_add', m.index.expansion_add, exp.index.expansionAdd);
    }
  }
  if (exp.corpus) {
    cmp('corpus.sha256', m.corpus.sha256, exp.corpus.sha256);
    cmp('corpus.count', m.corpus.count, exp.corpus.count);
  }
}

export function manifestExists(indexPath: string): boolean {
  return existsSync(indexFiles(indexPath).manifest);
}

export type IndexStatus =
  | { status: 'missing'; reason: string }
  | { status: 'stale'; reason: string; manifest: IndexManifest | null }
  | { status: 'ok'; manifest: IndexManifest };

/**
 * Whether the index at `indexPath` can be used as it is: "missing" (no manifest: never built or an
 * interrupted build), "stale" (manifest differs from the expectations, or is unreadable — the reason says
 * which field) or "ok". For build steps deciding whether to skip; loading does the same check and throws.
 */
export function indexStatus(indexPath: string, exp: ManifestExpectations): IndexStatus {
  const files = indexFiles(indexPath);
  if (!existsSync(files.manifest)) return { status: 'missing', reason: `no index at ${indexPath}` };
  let m: IndexManifest | null = null;
  try {
    m = readManifest(files.manifest);
    checkManifest(indexPath, m, exp);
    for (const f of [files.index, files.sentences]) if (!existsSync(f)) throw new IndexCorruptError(f, 'missing');
    if (statSync(files.index).size !== m.index.file_bytes)
      throw new IndexCorruptError(files.index, `size differs from the manifest's ${m.index.file_bytes} bytes`);
    return { status: 'ok', manifest: m };
  } catch (err) {
    return { status: 'stale', reason: (err as Error).message, manifest: m };
  }
}

/** The corpus expectation (hash and record count) for `corpusPath`. */
export async function corpusExpectation(corpusPath: string): Promise<{ sha256: string; count: number }> {
  const [sha256, count] = await Promise.all([sha256File(corpusPath), countJsonlRecords(corpusPath)]);
  return { sha256, count };
}
