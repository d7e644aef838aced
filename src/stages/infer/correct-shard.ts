/**
 * One shard of a non-LLM arm (docs/correctors.md): the CPU queue's counterpart of infer-shards.ts `runShard`.
 * It reads the shard's planned lines, corrects each with the arm's corrector — `collate` with the line's
 * context hits (the sentences of its `retrieval_context`, paired with `retrieval_sources`), `lexicon` with the
 * arm's lexicon model (./lexicon-model.ts) — and writes the shard's part file at once, in the records an LLM arm
 * writes (`model: collate@1` …, no tokens, no guard) plus `corrector`: what the corrector did with the line
 * (which witnesses and why, or which words it replaced). No LLM is opened. The merge is the LLM arms' (mergeArm).
 */
import { writeJsonlAtomic } from '../../io/jsonl';
import { collateLine, type CollateHit } from '../../correctors/collate';
import { lexiconCorrectLine } from '../../correctors/lexicon';
import type { CorrectionRecord, InferenceInputRow } from '../../llm/records';
import { contextSentences } from '../../witness/provenance';
import { findArm } from '../study/arms';
import type { InferOptions } from './infer';
import { readPlannedRecords } from './plan';
import { partFile, shardLabel, type ArmPlan, type InferShardResult, type ShardRef } from './shards';
import { armLexiconModel } from './lexicon-model';
import { UserInputError } from '../shared/types';

type Corrected = { text: string; detail: unknown };

/** The context hits of an input record: its context sentences with their sources, in order. */
export function recordHits(row: InferenceInputRow, raw: Record<string, unknown>): CollateHit[] {
  const sources = (Array.isArray(raw.retrieval_sources) ? raw.retrieval_sources : []) as { source_uri?: string }[];
  return contextSentences(row.retrieval_context ?? '').map((text, i) => ({ text, source_uri: sources[i]?.source_uri ?? '' }));
}

/** Correct one shard of a non-LLM arm into its part file. */
export async function runCorrectorShard(options: InferOptions, arm: ArmPlan, shard: ShardRef): Promise<InferShardResult> {
  const start = shard.index * arm.shardSize;
  const records = readPlannedRecords(arm.plan, shard.dataset, start, start + arm.shardSize);
  if (records.length === 0)
    throw new UserInputError(`correct shard ${shardLabel(arm, shard)}: the plan in ${arm.plan.dir} has no lines for it`);
  const run = findArm(options.arms, arm.arm);
  const c = run.corrector;
  if (!c) throw new UserInputError(`arm "${arm.arm}" has no non-LLM corrector: its shards run on the GPU queue`);
  const lexicon = c.kind === 'lexicon' ? await armLexiconModel(c.corpus, run.input) : null;
  const correct = (row: InferenceInputRow, raw: Record<string, unknown>): Corrected => {
    if (lexicon) {
      const d = lexiconCorrectLine(row.ocr_text, lexicon, c.lexicon);
      return { text: d.text, detail: { words: d.words, in_vocabulary: d.in_vocabulary, changes: d.changes } };
    }
    const d = collateLine(row.ocr_text, arm.prompt === 'zero_shot' ? [] : recordHits(row, raw), c.collate.min_similarity);
    return { text: d.text, detail: { reason: d.reason, best_similarity: d.best_similarity, witnesses: d.witnesses } };
  };
  const promptTypes: Record<string, number> = {};
  const started = performance.now();
  const out = records.map(({ row, raw }) => {
    const t0 = performance.now();
    const { text, detail } = correct(row, raw);
    const prompt_type: CorrectionRecord['prompt_type'] =
      arm.prompt === 'zero_shot' ? 'zero_shot' : row.retrieval_context?.trim() ? 'rag' : 'zero_shot_fallback';
    promptTypes[prompt_type] = (promptTypes[prompt_type] ?? 0) + 1;
    const record: CorrectionRecord & { corrector: unknown } = {
      sample_id: row.sample_id,
      dataset: row.dataset,
      prompt_type,
      prompt_version: 'none',
      model: c.model,
      ocr_text: row.ocr_text,
      gt_text: row.gt_text,
      corrected_text: text,
      raw_output: text,
      latency_ms: Number((performance.now() - t0).toFixed(3)),
      prompt_tokens: null,
      completion_tokens: null,
      error: null,
      corrector: detail,
    };
    return record;
  });
  writeJsonlAtomic(partFile(arm.output, shard.dataset, shard.index), out);
  return {
    shard: shardLabel(arm, shard),
    lines: out.length,
    model: c.model,
    written: out.length,
    skippedExisting: 0,
    succeeded: out.length,
    failed: 0,
    failuresByReason: {},
    promptTypes,
    promptTokens: 0,
    completionTokens: 0,
    elapsedMs: Math.round(performance.now() - started),
  };
}
