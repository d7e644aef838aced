/**
 * The records of an export shard: how a batch of OCR lines gets its context (retriever, oracle query, placebo
 * draw or witness span) and the inference_input.jsonl record each line becomes
 * (docs/outputs.md#inference_inputjsonl).
 */
import type { Config } from '../../config/schema';
import type { OcrSample } from '../../datasets/index';
import type { JsonlAppender } from '../../io/jsonl';
import { IndexCorruptError, IndexMismatchError, IndexMissingError } from '../../index/errors';
import { formatForPrompt } from '../../prompts/context';
import { ModelDirError } from '../../embed/model-dir';
import type { InferenceInputRecord } from '../../llm/records';
import { RAG_PROMPT_VERSION, ZERO_SHOT_PROMPT_VERSION } from '../../prompts/index';
import { PlaceboSampler } from '../../retrieval/placebo';
import { isMostlyArabic } from '../../text/arabic';
import { linesInContext, WITNESS_CONTEXT_LINES, type LineInContext } from '../../witness/context-search';
import { lineProvenance } from '../../witness/provenance';
import type { ExportRetriever, StagePaths } from '../build/retriever';
import { scatteredWitnessRetriever, witnessRetrieverFor } from '../witness/witness-index';
import type { WitnessHit } from '../../witness/hits';
import { throwIfAborted, UserInputError } from '../shared/types';

/**
 * Opens the retriever for the given (arm's effective) config only when a shard has work left (loading the model
 * and index is the slow part).
 */
export type OpenRetriever = (config: Config) => Promise<ExportRetriever>;

/** The record for one sample; lines with no Arabic (or empty) get the zero-shot fallback, no retrieval. */
export function fallbackRecord(s: OcrSample): InferenceInputRecord {
  return {
    sample_id: s.sample_id,
    dataset: s.dataset,
    ocr_text: s.ocr_text,
    gt_text: s.gt_text,
    prompt_type: 'zero_shot_fallback',
    prompt_version: ZERO_SHOT_PROMPT_VERSION,
    retrieval_context: '',
    retrieved_k: 0,
    retrieval_scores: [],
    retrieval_sources: [],
  };
}

type Hit = Awaited<ReturnType<ExportRetriever['retrieveMany']>>[number][number];

/** A rag record with each hit's provenance (src/witness/provenance.ts), whatever found the hits. */
function ragRecord(s: OcrSample, chunks: Hit[], retriever: ExportRetriever, config: Config): InferenceInputRecord {
  return withHitProvenance(ragRecordOf(s, chunks, retriever, config), config.datasets[s.dataset]?.source_pattern ?? null);
}

/**
 * A record with each hit's provenance class in retrieval_sources and `gold_in_context` (any hit holds the gold
 * passage): what the arms analysis splits ΔCER by (docs/outputs.md#inference_inputjsonl).
 */
export function withHitProvenance(r: InferenceInputRecord, sourcePattern: string | null): InferenceInputRecord {
  const p = lineProvenance(r, sourcePattern);
  return {
    ...r,
    gold_in_context: p.gold_in_context,
    retrieval_sources: r.retrieval_sources.map((src, i) => ({ ...src, provenance: p.classes[i] })),
  };
}

function ragRecordOf(s: OcrSample, chunks: Hit[], retriever: ExportRetriever, config: Config): InferenceInputRecord {
  return {
    sample_id: s.sample_id,
    dataset: s.dataset,
    ocr_text: s.ocr_text,
    gt_text: s.gt_text,
    prompt_type: 'rag',
    prompt_version: RAG_PROMPT_VERSION,
    retrieval_context: retriever.formatForPrompt(chunks, config.retrieval.format_style),
    retrieved_k: chunks.length,
    retrieval_scores: chunks.map((c) => Number(c.score.toFixed(6))),
    retrieval_sources: chunks.map((c) => ({
      source_uri: c.source_uri,
      idx: c.idx,
      date: c.date,
      ...(c.line != null ? { line: c.line } : {}),
      ...(c.witness ?? {}),
    })),
  };
}

/**
 * How a study arm's context is found for a batch of lines (all Arabic): the retriever with the OCR text as the
 * query (`dense`, also hybrid), with the gold text (`gold_query`, the oracle), or random corpus sentences (`random`).
 */
export interface ContextSource {
  mode: 'dense' | 'hybrid' | 'gold_query' | 'random' | 'witness';
  placebo?: PlaceboSampler;
  /** Witness: each sample's OCR line with its neighbours in the dataset's order, by sample_id. */
  lines?: ReadonlyMap<string, LineInContext>;
}

/** Each sample's OCR line with WITNESS_CONTEXT_LINES neighbours of its dataset on each side, by sample_id. */
export function samplesInContext(samples: readonly OcrSample[]): Map<string, LineInContext> {
  const lines = linesInContext(
    samples.map((s) => s.ocr_text),
    WITNESS_CONTEXT_LINES,
  );
  return new Map(samples.map((s, i) => [s.sample_id, lines[i]]));
}

async function contextsFor(batch: OcrSample[], retriever: ExportRetriever, config: Config, source: ContextSource): Promise<Hit[][]> {
  const { top_k, min_score, budget } = config.retrieval;
  if (batch.length === 0) return [];
  if (source.mode === 'random') {
    if (!source.placebo) throw new Error('placebo retrieval without a corpus sampler');
    return batch.map((s) => source.placebo!.draw(s.sample_id, config.corpus.seed, top_k, budget.max_chars));
  }
  if (source.mode === 'witness' && source.lines && retriever.retrieveInContext)
    return retriever.retrieveInContext(
      batch.map((s) => source.lines!.get(s.sample_id) ?? { text: s.ocr_text, before: [], after: [] }),
      top_k,
      min_score,
    );
  return retriever.retrieveMany(
    batch.map((s) => (source.mode === 'gold_query' ? s.gt_text : s.ocr_text)),
    top_k,
    min_score,
  );
}

/** Write the records of `samples[from..]` to `out`, retrieving in batches. Shared by the stage and benchmarks. */
export async function writeShardRecords(
  samples: OcrSample[],
  from: number,
  out: JsonlAppender,
  retriever: ExportRetriever,
  config: Config,
  onCheckpoint: (records: number) => void,
  signal?: AbortSignal,
  onBatch?: () => void,
  source: ContextSource = { mode: 'dense' },
): Promise<number> {
  const { query_batch_size: batch, checkpoint_every: every } = config.export;
  let fallbacks = 0;
  let sinceCheckpoint = 0;
  for (let i = from; i < samples.length; i += batch) {
    throwIfAborted(signal);
    const slice = samples.slice(i, i + batch);
    const queryable = slice.filter((s) => s.ocr_text.trim() !== '' && isMostlyArabic(s.ocr_text));
    const hits = await contextsFor(queryable, retriever, config, source);
    const byId = new Map(queryable.map((s, j) => [s.sample_id, hits[j]]));
    for (const s of slice) {
      const chunks = byId.get(s.sample_id) ?? [];
      if (chunks.length === 0) fallbacks++;
      out.write(chunks.length === 0 ? fallbackRecord(s) : ragRecord(s, chunks, retriever, config));
      if (++sinceCheckpoint >= every) {
        onCheckpoint(out.checkpoint());
        sinceCheckpoint = 0;
      }
    }
    onBatch?.(); // progress inside the shard between checkpoints (heartbeats are throttled by the hook)
  }
  onCheckpoint(out.checkpoint());
  return fallbacks;
}

/**
 * The context source of a shard's mode; `samples` (the whole dataset, in order) give witness retrieval each line's
 * neighbours. The placebo needs only the corpus and the prompt format, never the model or the index.
 */
export async function contextSource(
  options: {
    config: Config;
    paths: StagePaths;
    mode: ContextSource['mode'];
    samples?: readonly OcrSample[];
    /** A sharded witness export's hits, made in rounds before the shards (../witness/scatter.ts). */
    scattered?: ReadonlyMap<string, WitnessHit[]> | null;
  },
  openRetriever: OpenRetriever,
): Promise<{ retriever: ExportRetriever; source: ContextSource }> {
  if (options.mode === 'witness')
    return {
      retriever: options.scattered ? scatteredWitnessRetriever(options.config, options.scattered) : witnessRetrieverFor(options.config),
      source: { mode: 'witness', ...(options.samples ? { lines: samplesInContext(options.samples) } : {}) },
    };
  if (options.mode !== 'random') return { retriever: await openForShard(openRetriever, options.config), source: { mode: options.mode } };
  const r = options.config.retrieval;
  const retriever: ExportRetriever = {
    retrieveMany: () => Promise.reject(new Error('placebo retrieval does not query the index')),
    formatForPrompt: (chunks, style) => formatForPrompt(chunks, style, r.max_chars_per_sentence),
    fingerprint: 'placebo',
  };
  return { retriever, source: { mode: 'random', placebo: await PlaceboSampler.open(options.paths.corpus) } };
}

/** The retriever, with a stale, damaged or missing index (or model) reported as input the user must fix. */
async function openForShard(openRetriever: OpenRetriever, config: Config): Promise<ExportRetriever> {
  return openRetriever(config).catch((err: unknown) => {
    // These do not get better by retrying; the message names the fix.
    if (
      err instanceof IndexMismatchError ||
      err instanceof IndexCorruptError ||
      err instanceof IndexMissingError ||
      err instanceof ModelDirError
    ) {
      throw new UserInputError(err.message);
    }
    throw err;
  });
}
