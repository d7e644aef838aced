/** What an arm's finished infer shards add up to: the running totals its workflow carries across continue-as-new. */
import type { ArmPlan, ShardRef, InferShardResult } from '../src/stages/infer/shards';
import { zeroCorrectionCounts } from '../src/llm/correction-counts';
import { busier } from '../src/stages/infer/llm-load';
import { nowIso } from './progress';
import type { ArmResult } from './types';

/** What an arm's finished shards add up to, carried across continue-as-new. */
export interface ArmTotals {
  lines: number;
  shards: number;
  startedAt: string;
  counts: Omit<ArmResult, 'arm' | 'output' | 'skipped'>;
}

export function emptyTotals(): ArmTotals {
  // model, written, skippedExisting, then the other counters: the key order the arm results are written with.
  const { written, ...rest } = zeroCorrectionCounts();
  const counts = { model: '', written, skippedExisting: 0, ...rest };
  return { lines: 0, shards: 0, startedAt: nowIso(), counts };
}

export function addShard(acc: ArmTotals, r: InferShardResult): void {
  const c = acc.counts;
  acc.lines += r.lines;
  acc.shards++;
  c.model ||= r.model;
  for (const k of ['written', 'skippedExisting', 'succeeded', 'failed', 'promptTokens', 'completionTokens'] as const) c[k] += r[k];
  for (const [k, n] of Object.entries(r.failuresByReason)) c.failuresByReason[k] = (c.failuresByReason[k] ?? 0) + n;
  for (const [k, n] of Object.entries(r.promptTypes)) c.promptTypes[k] = (c.promptTypes[k] ?? 0) + n;
  if (r.load) c.load = busier(c.load, r.load);
}

/** Every shard of an arm, dataset by dataset (the plan's order). */
export function shardRefs(arm: ArmPlan): ShardRef[] {
  return arm.plan.datasets.flatMap((d) =>
    Array.from({ length: Math.ceil(d.lines / arm.shardSize) }, (_, index) => ({ dataset: d.dataset, index })),
  );
}
