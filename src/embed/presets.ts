/**
 * Per-model embedding settings for the models this project knows. A config may override any field;
 * unknown models get the generic defaults (no prefixes, mean pooling, L2-normalised).
 */
export type Pooling = 'mean' | 'cls';

export interface EmbeddingModelSettings {
  /** Prepended to retrieval queries (OCR text), e.g. "query: " for E5. */
  queryPrefix: string;
  /** Prepended to corpus sentences when indexing, e.g. "passage: " for E5. */
  passagePrefix: string;
  pooling: Pooling;
  normalize: boolean;
  /** Max tokens incl. special tokens; longer inputs are truncated. null → tokenizer.json's, else 512. */
  maxLength: number | null;
}

export const DEFAULT_MODEL_SETTINGS: EmbeddingModelSettings = {
  queryPrefix: '',
  passagePrefix: '',
  pooling: 'mean',
  normalize: true,
  maxLength: null,
};

/** Keyed by the last path component of the model id or directory (case-insensitive). */
export const MODEL_PRESETS: Record<string, Partial<EmbeddingModelSettings>> = {
  // intfloat/multilingual-e5-*: trained with these prefixes; without them retrieval quality drops.
  'multilingual-e5-small': { queryPrefix: 'query: ', passagePrefix: 'passage: ', pooling: 'mean', normalize: true, maxLength: 512 },
  'multilingual-e5-base': { queryPrefix: 'query: ', passagePrefix: 'passage: ', pooling: 'mean', normalize: true, maxLength: 512 },
  'multilingual-e5-large': { queryPrefix: 'query: ', passagePrefix: 'passage: ', pooling: 'mean', normalize: true, maxLength: 512 },
  // sentence-transformers models: mean pooling + normalisation, no prefixes.
  'all-minilm-l6-v2': { pooling: 'mean', normalize: true, maxLength: 256 },
  'paraphrase-multilingual-minilm-l12-v2': { pooling: 'mean', normalize: true, maxLength: 128 },
};

/** Settings for a model id or directory: preset (if any) over the defaults, then explicit overrides. */
export function modelSettingsFor(idOrDir: string, overrides: Partial<EmbeddingModelSettings> = {}): EmbeddingModelSettings {
  const key = idOrDir
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .pop()!
    .toLowerCase();
  const preset = MODEL_PRESETS[key] ?? {};
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_MODEL_SETTINGS, ...preset, ...defined };
}
