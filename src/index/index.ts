export {
  buildIndexFromVectors,
  embedCorpusToVectors,
  removeIndex,
  type BatchReport,
  type BuildIndexOptions,
  type EmbedCorpusOptions,
  type EmbedCorpusResult,
} from './build';
export { countJsonlRecords, readCorpusForIndex, type IndexedSentence } from './corpus-file';
export { IndexCorruptError, IndexMismatchError, IndexMissingError } from './errors';
export { ExactSearcher, type ExactSearchOptions, type SearchHits } from './exact-search';
export {
  checkManifest,
  DEFAULT_INDEX_PARAMS,
  defaultVectorsPath,
  indexFiles,
  manifestExists,
  readManifest,
  resolveIndexParams,
  type IndexFiles,
  type IndexManifest,
  type IndexParams,
  type IndexType,
  type ManifestExpectations,
  type VectorStorage,
} from './manifest';
export { RAGRetriever, type BuildIndexCallOptions, type OpenOptions, type RetrievedChunk, type RetrieverConfig } from './retriever';
export { openVectorIndex, type OpenIndexOptions, type VectorSearcher } from './vector-index';
