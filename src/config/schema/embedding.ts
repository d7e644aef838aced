/** `rag`: the embedding model that encodes the corpus and the queries. */
import { z } from 'zod';
import { positiveInt } from './primitives';

const EmbeddingSchema = z.strictObject({
  /** HF-layout directory: model.onnx (or onnx/model.onnx) + tokenizer.json. Relative to the project root. */
  model_dir: z.string().min(1).default('models/multilingual-e5-small'),
  query_prefix: z.string().default('query: '),
  passage_prefix: z.string().default('passage: '),
  pooling: z.enum(['mean', 'cls']).default('mean'),
  normalize: z.boolean().default(true),
  max_length: positiveInt.default(128),
  batch_size: positiveInt.default(32),
  /** CPU threads for the encoder in all. */
  threads: positiveInt.default(2),
  /** Parallel sessions (worker threads) sharing those threads; "auto": one per thread for models ≤ 400 MB. */
  sessions: z.union([positiveInt, z.literal('auto')]).default('auto'),
  /** "cuda": the encoder on an NVIDIA GPU (onnxruntime-node's CUDA provider; README: GPU embedding), else the CPU with one warning. */
  device: z.enum(['cpu', 'cuda']).default('cpu'),
});

export const RagSchema = z.strictObject({
  /** Model id recorded in manifests and metrics (docs/outputs.md#metricsjson). */
  embedding_model: z.string().min(1).default('intfloat/multilingual-e5-small'),
  embedding: EmbeddingSchema.prefault({}),
  top_k: positiveInt.default(3),
});
