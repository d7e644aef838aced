/**
 * What differs between an index's manifest (src/index/manifest.ts) and a config's index and embedding settings:
 * the settings src/config/corpus-fingerprint.ts `indexFingerprint` keys an index file by, as far as the manifest
 * records them (the model directory is recorded as its file hashes only, so a different model_dir is not named).
 */
import type { Config } from '../../config/schema';
import type { IndexManifest } from '../../index/manifest';

/** One setting that differs: `corpus.max_sentences 500 vs 4,000`, with the flag that selects the other value. */
export interface SettingDifference {
  key: string;
  theirs: unknown;
  ours: unknown;
  flag?: string;
}

/** The manifest's index type in the config's words (FlatIP = exact, HNSW / IVFFlat = hnsw). */
const configType = (t: Config['index']['type']): IndexManifest['index']['type'] => (t === 'FlatIP' ? 'exact' : 'hnsw');

export function indexSettingDifferences(m: IndexManifest, config: Config): SettingDifference[] {
  const e = config.rag.embedding;
  const hnsw = m.index.type === 'hnsw';
  const pairs: [string, unknown, unknown][] = [
    ['index.type', m.index.type === 'exact' ? 'FlatIP' : 'HNSW', config.index.type === 'IVFFlat' ? 'HNSW' : config.index.type],
    ['rag.embedding_model', m.model.id, config.rag.embedding_model],
    ['rag.embedding.passage_prefix', m.model.passage_prefix, e.passage_prefix],
    ['rag.embedding.pooling', m.model.pooling, e.pooling],
    ['rag.embedding.normalize', m.model.normalize, e.normalize],
    ['rag.embedding.max_length', m.model.max_length, e.max_length],
  ];
  // HNSW's build parameters only shape an HNSW file (the fingerprint hashes them for every type).
  if (hnsw && configType(config.index.type) === 'hnsw')
    pairs.push(
      ['index.dtype', m.index.storage, config.index.dtype],
      ['index.connectivity', m.index.connectivity, config.index.connectivity],
      ['index.expansion_add', m.index.expansion_add, config.index.expansion_add],
    );
  return pairs
    .filter(([, theirs, ours]) => JSON.stringify(theirs) !== JSON.stringify(ours))
    .map(([key, theirs, ours]) => ({ key, theirs, ours }));
}
