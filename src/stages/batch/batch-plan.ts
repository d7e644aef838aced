/**
 * What `phase5 infer --batch-out` would write, without writing it (`phase5 plan --batch`, docs/batch.md): per
 * arm × replicate the lines not yet corrected (./batch-out.ts pendingRows), each built as the input line
 * batch-out writes (./batch-request.ts inputLine) and cut into parts as it cuts them (./batch-parts.ts), with
 * their prompt tokens and completion budget for the cost.
 */
import { correctionPrompt } from '../../llm/correction-calls';
import { countAll, type TokenCounter } from '../../plan/prompt-tokens';
import type { ArmRun } from '../study/arms';
import type { InferOptions } from '../infer/infer';
import { UserInputError } from '../shared/types';
import { studyId } from './batch-manifest';
import { batchRuns, pendingRows } from './batch-out';
import { BatchParts, partFile, type BatchLimits } from './batch-parts';
import { inputLine, runRequest } from './batch-request';

export interface BatchRunPlan {
  arm: string;
  replicate: number;
  files: { file: string; lines: number; bytes: number }[];
  lines: number;
  bytes: number;
  /** Lines left out: the run has a record for them (failed ones too, unless `--retry-failed`). */
  already_done: number;
  prompt_tokens: number;
  /** Every line's `max_tokens` (the arm's decoding): the most its answers can cost. */
  max_completion_tokens: number;
}

async function planRun(options: InferOptions, run: ArmRun, study: string, limits: BatchLimits, counter: TokenCounter) {
  const request = runRequest(run);
  const { rows, done } = await pendingRows(options, run);
  const parts = new BatchParts(limits);
  for (const row of rows) parts.add(Buffer.byteLength(inputLine(study, run, request, row), 'utf8'));
  const tokens = await countAll(
    counter,
    rows.map((r) => correctionPrompt(run.prompt, r, run.template).messages),
  );
  const replicate = run.replicate ?? 0;
  const plan: BatchRunPlan = {
    arm: run.name,
    replicate,
    files: parts.parts.map((p, i) => ({ file: partFile(run.name, replicate, i), ...p })),
    lines: rows.length,
    bytes: parts.parts.reduce((n, p) => n + p.bytes, 0),
    already_done: done,
    prompt_tokens: tokens.reduce((a, b) => a + b, 0),
    max_completion_tokens: rows.length * request.decoding.max_tokens,
  };
  return plan;
}

/** The batch files of every arm × replicate the invocation selects, as `--batch-out` would write them. */
export async function batchPlan(
  options: InferOptions,
  limits: BatchLimits,
  counterOf: (run: ArmRun) => TokenCounter,
): Promise<BatchRunPlan[]> {
  if (!options.config) throw new UserInputError('plan --batch needs the study config');
  const study = studyId(options.config);
  const out: BatchRunPlan[] = [];
  for (const run of batchRuns(options)) out.push(await planRun(options, run, study, limits, counterOf(run)));
  return out;
}
