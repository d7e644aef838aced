/**
 * What each arm of a run will send (docs/plan.md): its lines (the export's records that infer selects: datasets,
 * `--limit` or `--sample`, one per sample_id), replicates, requests, the prompt tokens of exactly the prompts
 * infer builds (src/llm/correction-calls.ts correctionPrompt) and the completion-token budget.
 */
import { existsSync } from 'node:fs';
import { correctionPrompt } from '../llm/correction-calls';
import { type InferenceInputRow } from '../llm/records';
import { readInferenceInput } from '../llm/record-files';
import type { ArmRun } from '../stages/study/arms';
import { selectRows, type InferOptions } from '../stages/infer/infer';
import { UserInputError } from '../stages/shared/types';
import { countAll, type TokenCounter, type TokenSource } from './prompt-tokens';

export interface ArmRequests {
  arm: string;
  lines: number;
  replicates: number;
  requests: number;
  prompt_tokens: number;
  prompt_tokens_source: TokenSource;
  max_completion_tokens: number;
}

/** An arm's plan with its lines per dataset and the rows themselves (for the power analysis). */
export interface ArmLines {
  requests: ArmRequests;
  byDataset: Record<string, number>;
  rows: InferenceInputRow[];
  /** Lines whose prompt tokens + max_tokens exceed the served model's context length (none where it is unknown). */
  overContext: { sampleId: string; tokens: number }[];
  maxModelLen: number | null;
}

/** Full passes over the arm's lines: the arm's `replicates` (default 1). */
export function replicatesOf(arm: ArmRun): number {
  const r = (arm as ArmRun & { replicates?: unknown }).replicates;
  return typeof r === 'number' && Number.isInteger(r) && r >= 1 ? r : 1;
}

/** The completion-token cap of an arm's requests (`infer.openai.max_tokens` / `infer.local.max_tokens`). */
export function maxTokensOf(arm: ArmRun): number {
  const inf = arm.config.infer;
  return inf.backend !== 'local' ? inf.openai.max_tokens : inf.local.max_tokens;
}

/** The distinct lines infer corrects for an arm, in input order (the runner skips a repeated sample_id). */
export async function armRows(arm: ArmRun, options: Pick<InferOptions, 'datasets' | 'limit' | 'sample'>): Promise<InferenceInputRow[]> {
  if (!existsSync(arm.input)) throw new UserInputError(`no ${arm.input} — run \`phase5 export\` first`);
  const seen = new Set<string>();
  return selectRows(options, await readInferenceInput(arm.input)).filter((r) => !seen.has(r.sample_id) && !!seen.add(r.sample_id));
}

/** One arm's requests and tokens: every distinct line's prompt counted once, times the replicates. */
export async function armRequests(
  arm: ArmRun,
  options: Pick<InferOptions, 'datasets' | 'limit' | 'sample'>,
  counter: TokenCounter,
): Promise<ArmLines> {
  const rows = await armRows(arm, options);
  const tokens = await countAll(
    counter,
    rows.map((r) => correctionPrompt(arm.prompt, r, arm.template).messages),
  );
  const replicates = replicatesOf(arm);
  const maxModelLen = counter.maxModelLen?.() ?? null;
  const overContext =
    maxModelLen === null
      ? []
      : rows.flatMap((r, i) => (tokens[i] + maxTokensOf(arm) > maxModelLen ? [{ sampleId: r.sample_id, tokens: tokens[i] }] : []));
  const byDataset: Record<string, number> = {};
  for (const r of rows) byDataset[r.dataset] = (byDataset[r.dataset] ?? 0) + 1;
  const requests = rows.length * replicates;
  return {
    requests: {
      arm: arm.name,
      lines: rows.length,
      replicates,
      requests,
      prompt_tokens: tokens.reduce((a, b) => a + b, 0) * replicates,
      prompt_tokens_source: counter.source,
      max_completion_tokens: requests * maxTokensOf(arm),
    },
    byDataset,
    rows,
    overContext,
    maxModelLen,
  };
}

/**
 * One line per arm with lines that cannot fit (infer refuses them unsent, src/llm/context-limit.ts): the arm, the
 * first lines with their tokens, the limit.
 */
export function overContextNote(arm: ArmRun, a: Pick<ArmLines, 'overContext' | 'maxModelLen'>): string | null {
  if (a.overContext.length === 0 || a.maxModelLen === null) return null;
  const shown = a.overContext
    .slice(0, 3)
    .map((l) => `${l.sampleId} ${l.tokens}`)
    .join(', ');
  const more = a.overContext.length > 3 ? ` and ${a.overContext.length - 3} more` : '';
  return (
    `arm ${arm.name}: ${a.overContext.length} line(s) over max_model_len ${a.maxModelLen} with max_tokens ${maxTokensOf(arm)} ` +
    `(line prompt-tokens: ${shown}${more}) — infer will not send them (failed as context_length); shorten the context, lower max_tokens or serve a longer max_model_len`
  );
}
