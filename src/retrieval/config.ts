/**
 * Retriever options (all off by default): the keys proposed for `retrieval` next to top_k /
 * min_score / format_style / max_chars_per_sentence. The lead's schema can take them as
 * `RetrievalSchema.extend(RetrievalPipelineSchema.shape)`; `resolvePipelineOptions` applies the same
 * defaults to a partial object (tests, the evaluation, the bench).
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const unitInterval = z.number().min(0).max(1);

export const HybridSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** "rrf": reciprocal-rank fusion (rank based); "weighted": dense_weight·cosine + (1−dense_weight)·BM25/max. */
  fusion: z.enum(['rrf', 'weighted']).default('rrf'),
  rrf_k: z.number().nonnegative().default(60),
  dense_weight: unitInterval.default(0.5),
  /** Character n-gram length of the BM25 index. */
  ngram: z.number().int().min(1).max(8).default(3),
  k1: z.number().nonnegative().default(1.2),
  b: unitInterval.default(0.75),
  /** Query n-grams in more than this share of sentences are skipped (speed; 1 = exact BM25 over all grams). */
  max_df: z.number().gt(0).max(1).default(0.02),
});

export const RerankSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** "lexical": char n-gram + edit-distance similarity (no model); "cross_encoder": ONNX model in model_dir. */
  method: z.enum(['lexical', 'cross_encoder']).default('lexical'),
  /** w in w·embedding + (1 − w)·reranker (docs/retrieval.md#retriever-options). */
  embedding_weight: unitInterval.default(0.7),
  /** Cross-encoder directory (model.onnx + tokenizer.json); missing or broken → original order kept. */
  model_dir: z.string().min(1).nullable().default(null),
  max_length: positiveInt.default(256),
  batch_size: positiveInt.default(16),
});

export const MmrSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** 1 = relevance only, 0 = diversity only (default 0.5). */
  lambda: unitInterval.default(0.5),
});

export const ContextWindowSchema = z.strictObject({
  /** Units before and after each hit (docs/retrieval.md#retriever-options); 0 = off. */
  lines: z.number().int().nonnegative().default(0),
  /** "openiti": from the hit's original file (sampled corpora); "corpus": idx ± j of the same source (generic corpora). */
  source: z.enum(['openiti', 'corpus']).default('openiti'),
  /** Characters of one hit with its window in the prompt (null = max_chars_per_sentence × (2·lines + 1)). */
  max_chars: positiveInt.nullable().default(null),
});

export const BudgetSchema = z.strictObject({
  /** Total characters of the retrieved sentences in one prompt (null = no limit). */
  max_chars: positiveInt.nullable().default(null),
  /** Total tokens (embedding model's tokenizer) of the retrieved sentences (null = no limit). */
  max_tokens: positiveInt.nullable().default(null),
});

export const RetrievalPipelineSchema = z.strictObject({
  /** Candidates fetched before rerank / MMR / dedup / fusion (null = top_k, or max(20, 4·top_k) when a stage needs them). */
  fetch_k: positiveInt.nullable().default(null),
  /** Share of letters that must be Arabic for a line to be retrieved for (script detection). */
  min_arabic_share: unitInterval.default(0.5),
  /** Drop hits whose normalised text has the same SHA-256 as a better hit. */
  dedup: z.boolean().default(false),
  hybrid: HybridSchema.prefault({}),
  rerank: RerankSchema.prefault({}),
  mmr: MmrSchema.prefault({}),
  context_window: ContextWindowSchema.prefault({}),
  budget: BudgetSchema.prefault({}),
  /** Plain style only: prefix each sentence with [#i] so answers and reports can cite it. */
  citations: z.boolean().default(false),
});

export type RetrievalPipelineOptions = z.infer<typeof RetrievalPipelineSchema>;

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object | null ? (T[K] extends null ? T[K] : DeepPartial<NonNullable<T[K]>> | Extract<T[K], null>) : T[K];
};
export type RetrievalPipelineInput = DeepPartial<RetrievalPipelineOptions>;

/** Defaults applied and values checked; errors name the key path. */
export function resolvePipelineOptions(input: RetrievalPipelineInput = {}): RetrievalPipelineOptions {
  const r = RetrievalPipelineSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`retrieval options: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return r.data;
}

/** Whether any stage needs more candidates than the final k. */
export function needsCandidates(o: RetrievalPipelineOptions): boolean {
  return o.hybrid.enabled || o.rerank.enabled || o.mmr.enabled || o.dedup;
}

/** Candidates to fetch for a final k. */
export function effectiveFetchK(o: RetrievalPipelineOptions, k: number): number {
  if (o.fetch_k !== null) return Math.max(o.fetch_k, k);
  return needsCandidates(o) ? Math.max(20, 4 * k) : k;
}
