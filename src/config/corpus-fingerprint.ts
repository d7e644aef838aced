/**
 * The names of a corpus folder and of an index file under it (docs/outputs.md#one-folder-per-settings): a
 * 16-hex hash of the settings that decide their bytes, so a build with other settings never writes the same
 * path, even when two run at once into one results dir.
 *
 *   <results>/corpora/<corpusFingerprint>/corpus.jsonl
 *   <results>/corpora/<corpusFingerprint>/index-<indexFingerprint>.usearch
 */
import { sha256Text } from '../util/hash';
import type { Config } from './schema';

type CorpusConfig = Config['corpus'];

/**
 * What decides corpus.jsonl: the `corpus` block (its folder name left out), the datasets' sources when
 * they are held out, and — for an OpenITI sample — the checkout and metadata file it samples from.
 */
export function corpusFingerprint(config: Config, corpus: CorpusConfig = config.corpus): string {
  const { dir: _dir, ...settings } = corpus;
  const openiti = !settings.source || settings.source.type === 'openiti';
  return sha256Text(
    JSON.stringify({
      corpus: settings,
      sources: settings.exclude_dataset_sources ? Object.values(config.datasets).map((d) => d.source_pattern ?? null) : null,
      ...(openiti ? { openiti: { root: config.data.openiti_root, metadata: config.data.openiti_metadata ?? null } } : {}),
    }),
  ).slice(0, 16);
}

/**
 * What decides the index built from a corpus: the index settings that shape the file (not batch or shard
 * sizes, nor the query-time `expansion_search`) and the embedding model with the settings that shape a
 * passage's vector (not threads, sessions, device or batch size).
 */
export function indexFingerprint(config: Config): string {
  const { type, connectivity, expansion_add, dtype } = config.index;
  const { model_dir, passage_prefix, pooling, normalize, max_length } = config.rag.embedding;
  return sha256Text(
    JSON.stringify({
      index: { type, connectivity, expansion_add, dtype },
      model: config.rag.embedding_model,
      embedding: { model_dir, passage_prefix, pooling, normalize, max_length },
    }),
  ).slice(0, 16);
}
