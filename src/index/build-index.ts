/**
 * Step 2 of an index build: the finished rows become the index file, the ordered sentence list and the manifest
 * (written last: a manifest means a complete index).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { JsonlAppender, writeJsonAtomic } from '../io/jsonl';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { countJsonlRecords, readCorpusForIndex } from './corpus-file';
import { indexFiles, modelSection, resolveIndexParams, TOOL_VERSION, type IndexManifest, type IndexParams } from './manifest';
import { metaPath } from './partial-vectors';
import { USEARCH_VERSION } from './usearch';
import { matrixFileBytes } from './vector-files';
import { vectorFiles } from './vector-rows';
import { writeIndexFile } from './write-index-file';
import type { BuildIndexOptions } from './build-index-options';

export type { BuildIndexOptions } from './build-index-options';

const log = childLogger('index');

export async function buildIndexFromVectors(opts: BuildIndexOptions): Promise<IndexManifest> {
  const params = resolveIndexParams(opts.index);
  const files = indexFiles(opts.indexPath);
  const dims = opts.model.dims;
  const [corpusSha256, count] = await Promise.all([opts.corpusSha256 ?? sha256File(opts.corpusPath), countJsonlRecords(opts.corpusPath)]);
  checkVectorsFile(opts, count, dims);
  mkdirSync(path.dirname(files.index), { recursive: true });
  // An old manifest must not vouch for files that are about to be replaced.
  if (existsSync(files.manifest)) unlinkSync(files.manifest);

  const tmpSuffix = `.tmp-${process.pid}`;
  const sentTmp = files.sentences + tmpSuffix;
  await writeSentenceList(opts.corpusPath, sentTmp, count);
  const idxTmp = files.index + tmpSuffix;
  writeIndexFile(opts, params, idxTmp, count);
  renameSync(sentTmp, files.sentences);
  renameSync(idxTmp, files.index);
  const fileBytes = statSync(files.index).size;
  if (params.type === 'exact' && fileBytes !== matrixFileBytes(count, dims))
    throw new Error(`wrote ${fileBytes} bytes to ${files.index}, expected ${matrixFileBytes(count, dims)}`);

  const manifest = await indexManifest(opts, params, { file: files.index, fileBytes, count, corpusSha256 });
  writeJsonAtomic(files.manifest, manifest);
  if (!opts.keepVectors) {
    for (const f of vectorFiles(opts)) for (const p of [f, metaPath(f)]) rmSync(p, { force: true });
  }
  log.info({ index: files.index, type: params.type, count, bytes: fileBytes }, 'index built');
  return manifest;
}

/** The vectors must exist and hold exactly one row per corpus record (an unfinished embedding does not). */
function checkVectorsFile(opts: BuildIndexOptions, count: number, dims: number): void {
  const files = vectorFiles(opts);
  const missing = files.find((f) => !existsSync(f));
  if (missing) throw new Error(`vectors file ${missing} does not exist — run the embedding step first`);
  const vecBytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
  if (vecBytes !== count * dims * 4) {
    const what = files.length === 1 ? `vectors file ${files[0]}` : `the ${files.length} vector parts in ${path.dirname(files[0])}`;
    throw new Error(
      `${what} hold${files.length === 1 ? 's' : ''} ${vecBytes / (4 * dims)} rows of ${dims} floats but corpus ${opts.corpusPath} has ${count} records — finish (resume) the embedding first`,
    );
  }
}

/** The ordered sentence list (idx, text, source_uri, date); the corpus must still have `count` records. */
async function writeSentenceList(corpusPath: string, file: string, count: number): Promise<void> {
  const out = new JsonlAppender(file, 0);
  let n = 0;
  try {
    for await (const s of readCorpusForIndex(corpusPath)) {
      out.write({ idx: s.idx, text: s.text, source_uri: s.source_uri, date: s.date });
      n++;
    }
  } finally {
    out.close();
  }
  if (n !== count) throw new Error(`corpus ${corpusPath} changed while building (${n} records, expected ${count})`);
}

async function indexManifest(
  opts: BuildIndexOptions,
  params: IndexParams,
  built: { file: string; fileBytes: number; count: number; corpusSha256: string },
): Promise<IndexManifest> {
  const hnsw = params.type === 'hnsw';
  const { count } = built;
  return {
    format: 'openiti-rag-index',
    format_version: 1,
    created_at: new Date().toISOString(),
    tool_version: TOOL_VERSION,
    usearch_version: USEARCH_VERSION,
    model: modelSection(opts.model),
    index: {
      type: params.type,
      metric: 'cos',
      storage: hnsw ? params.storage : 'f32',
      file_format: hnsw ? 'usearch' : 'f32-matrix',
      file_bytes: built.fileBytes,
      file_sha256: await sha256File(built.file),
      connectivity: hnsw ? params.connectivity : null,
      expansion_add: hnsw ? params.expansionAdd : null,
      expansion_search: hnsw ? params.expansionSearch : null,
      count,
    },
    corpus: { path: opts.corpusPath, sha256: built.corpusSha256, count },
  };
}

/** Remove every file of an index (for `--force`). */
export function removeIndex(indexPath: string): void {
  const f = indexFiles(indexPath);
  for (const p of [f.manifest, f.index, f.sentences]) rmSync(p, { force: true });
}
