export {
  Embedder,
  normalizeRows,
  type EmbedderIdentity,
  type EmbedderOptions,
  type EmbedProgress,
  type PreparedBatch,
  type TextKind,
} from './embedder';
export { assertRealFile, isLfsPointer, ModelDirError, MODEL_FILE_CANDIDATES, resolveModelDir, type ModelDirFiles } from './model-dir';
export { DEFAULT_MODEL_SETTINGS, MODEL_PRESETS, modelSettingsFor, type EmbeddingModelSettings, type Pooling } from './presets';
export { TextTokenizer } from './tokenizer';
