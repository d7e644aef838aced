/** `index` and `retrieval`: the index the build writes and how the export retrieves from it (and from witnesses). */
import { z } from 'zod';
import { RetrievalPipelineSchema } from '../../retrieval/config';
import { positiveInt, unitInterval } from './primitives';

export const IndexSchema = z.strictObject({
  /** FlatIP = exact search (the default, docs/retrieval.md#index-type); HNSW for large corpora. "IVFFlat" is accepted as an alias of HNSW. */
  type: z.enum(['FlatIP', 'HNSW', 'IVFFlat']).default('FlatIP'),
  batch_size: positiveInt.default(256),
  /** Sentences per embedding activity of a Temporal build (rounded up to a multiple of batch_size); every CPU worker takes shards. */
  embed_shard_size: positiveInt.default(20000),
  connectivity: positiveInt.default(16),
  expansion_add: positiveInt.default(128),
  expansion_search: positiveInt.default(64),
  dtype: z.enum(['f32', 'f16', 'i8']).default('f32'),
});

/**
 * Witness retrieval (`mode: witness`, src/witness): which whole works its index covers and how it searches.
 * Optional and without materialised defaults, so configs without it keep their retrieval fingerprints.
 */
export const WitnessSettingsSchema = z.strictObject({
  /** Version-URI globs of the works indexed in full (default: every work of the OpenITI checkout). */
  works: z.array(z.string().min(1)).min(1).default(['*']),
  /** Version-URI globs left out of the witness index. */
  exclude_works: z.array(z.string().min(1)).default([]),
  /** Metadata status of the versions indexed (default all: every version is a witness). */
  status: z.enum(['pri', 'sec', 'all']).default('all'),
  /** Gram length and sampling stride of the n-gram index (src/witness/build.ts). */
  n: z.number().int().min(2).max(16).default(5),
  stride: positiveInt.default(1),
  /** Diagonals verified by alignment per query. */
  candidates: positiveInt.default(16),
  /** Hits whose alignment score (1 − edits / OCR key length) is below this are not put in the context. */
  min_score: unitInterval.default(0.5),
  /** Shards the index is cut into, by work (docs/witness-shards.md): one in memory at a time, the same hits as one index. */
  shards: positiveInt.default(1),
});

/** Spec §11 retrieval keys + the retriever options of the companion specs (all off by default, src/retrieval). */
export const RetrievalSchema = z
  .strictObject({
    top_k: positiveInt.default(3),
    min_score: unitInterval.default(0),
    format_style: z.enum(['numbered_arabic', 'plain']).default('numbered_arabic'),
    /** Characters each retrieved sentence is cut to in the prompt (docs/retrieval.md#prompt-context). */
    max_chars_per_sentence: positiveInt.default(150),
    witness: WitnessSettingsSchema.optional(),
  })
  .extend(RetrievalPipelineSchema.shape);
