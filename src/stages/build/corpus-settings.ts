/**
 * Everything that decides a corpus.jsonl, recorded beside it by the build and compared before a rebuild: the
 * OpenITI sample's settings (root, metadata, sizes, eras, exclusions, whole works added, the datasets' sources
 * held out), or a generic source's path, chunking and a digest of its input files.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { metadataPath, resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import type { GenericSource } from '../../corpora/index';
import { UserInputError } from '../shared/types';

/** Everything that changes corpus.jsonl (recorded beside it, compared before a rebuild). */
export type CorpusSettings = OpenitiCorpusSettings | GenericCorpusSettings;
export type OpenitiCorpusSettings = ReturnType<typeof openitiSettings>;

/** A generic corpus (`corpus.source` jsonl / text_dir) as src/corpora builds it. */
export interface GenericCorpusSettings {
  generic: GenericSource;
  chunk: { size: number; overlap: number };
  /** sha256 over the input files' names and contents: an edited file rebuilds the corpus (and so re-embeds). */
  inputs: string;
}

/** Digest of the files a generic source reads (sorted relative paths + content hashes); `missing` when absent. */
function inputsDigest(source: GenericSource): string {
  const st = statSync(source.path, { throwIfNoEntry: false });
  if (!st) return 'missing';
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && source.type === 'folder' && source.recursive !== false) walk(p);
      else if (
        e.isFile() &&
        source.type === 'folder' &&
        (source.extensions ?? ['.txt', '.md']).some((x) => e.name.toLowerCase().endsWith(x.toLowerCase()))
      )
        files.push(p);
    }
  };
  if (st.isDirectory()) walk(source.path);
  else files.push(source.path);
  const h = createHash('sha256');
  for (const f of files.sort())
    h.update(`${path.relative(source.path, f)}\0${createHash('sha256').update(readFileSync(f)).digest('hex')}\n`);
  return h.digest('hex');
}

export function corpusSettings(config: Config): CorpusSettings {
  const src = config.corpus.source;
  if (!src || src.type === 'openiti') return openitiSettings(config); // unchanged: same record, same corpus bytes
  const chunk = { size: src.chunk_size, overlap: src.chunk_overlap };
  if (chunk.overlap >= chunk.size)
    throw new UserInputError(`corpus.source: chunk_overlap (${chunk.overlap}) must be smaller than chunk_size (${chunk.size})`);
  const { text_field, id_field, date_field, metadata_fields } = src.type === 'jsonl' ? src : ({} as Record<string, never>);
  const generic: GenericSource =
    src.type === 'text_dir'
      ? { type: 'folder', path: resolvePath(src.path), extensions: src.extensions, recursive: src.recursive }
      : { type: 'jsonl', path: resolvePath(src.path), text_field, id_field, date_field, metadata_fields };
  return { generic, chunk, inputs: inputsDigest(generic) };
}

function openitiSettings(config: Config) {
  const c = config.corpus;
  return {
    openitiRoot: resolvePath(config.data.openiti_root),
    metadataPath: metadataPath(config),
    maxSentences: c.max_sentences,
    minCharLen: c.min_char_len,
    maxCharLen: c.max_char_len,
    statusFilter: c.status_filter,
    seed: c.seed,
    eras: c.eras,
    maxPerFile: c.max_per_file,
    exclude: c.exclude,
    dedupAcrossCorpus: c.dedup_across_corpus,
    ...(c.add_works?.length ? { addWorks: c.add_works } : {}),
    // Only when asked for, so the recorded settings (and the corpus) of other studies stay as they were.
    ...(c.exclude_dataset_sources ? { datasetSources: datasetSources(config) } : {}),
  };
}

/** The datasets' declared sources, in config order (resolved against the metadata by the corpus step). */
function datasetSources(config: Config): { dataset: string; source_pattern?: string }[] {
  return Object.entries(config.datasets).map(([dataset, d]) => ({
    dataset,
    ...(d.source_pattern ? { source_pattern: d.source_pattern } : {}),
  }));
}
