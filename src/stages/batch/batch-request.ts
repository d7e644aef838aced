/**
 * The request infer sends for one line of an arm's run, as a batch input line: the same prompt
 * (src/llm/correction-calls.ts correctionPrompt), the same body (src/llm/request-body.ts `chatRequestBody`, the online backend's) with
 * the run's model, decoding and seed. OpenAI's Batch API and vLLM's run_batch take `{custom_id, method, url, body}`
 * (https://platform.openai.com/docs/api-reference/batch/request-input; vllm/entrypoints/openai/run_batch.py,
 * BatchRequestInput).
 */
import { backendDecoding } from '../../llm/decoding';
import { chatRequestBody } from '../../llm/request-body';
import { configuredServer, UNKNOWN_SERVER, type ServerInfo } from '../../llm/servers/kinds';
import { correctionPrompt } from '../../llm/correction-calls';
import type { InferenceInputRow } from '../../llm/records';
import type { ResolvedDecoding } from '../../llm/decoding';
import { sha256Text } from '../../util/hash';
import type { ArmRun } from '../study/arms';
import { UserInputError } from '../shared/types';
import { formatCustomId } from './custom-id';

export const BATCH_URL = '/v1/chat/completions';

export interface BatchInputLine {
  custom_id: string;
  method: 'POST';
  url: typeof BATCH_URL;
  body: Record<string, unknown>;
}

/** What a run's requests are built from: its model and decoding (the replicate's seed in it). */
export interface RunRequest {
  model: string;
  decoding: ResolvedDecoding;
  /** The server the bodies are shaped for: the configured kind, OpenAI for the Batch API, else the portable body. */
  server: ServerInfo;
}

/** The model and decoding of an arm's run; only an OpenAI-compatible arm has a request body to write. */
export function runRequest(run: ArmRun): RunRequest {
  const cfg = run.backend();
  if (cfg.type !== 'openai')
    throw new UserInputError(
      `arm "${run.name}": batch files need an OpenAI-compatible model (infer.backend openai or openai_batch, infer.openai.model), not the local GGUF backend`,
    );
  const server = cfg.server ?? (run.config.infer.backend === 'openai_batch' ? configuredServer('openai') : UNKNOWN_SERVER);
  return { model: cfg.model, decoding: backendDecoding(cfg), server };
}

/** The chat body of one line, exactly as the online backend sends it. */
export function lineBody(run: ArmRun, request: RunRequest, row: InferenceInputRow): Record<string, unknown> {
  const prompt = correctionPrompt(run.prompt, row, run.template);
  return chatRequestBody(request.model, prompt.messages, request.decoding, request.server);
}

/** A short digest of a body (what a batch output's answer is checked against at import). */
export function bodyDigest(body: Record<string, unknown>): string {
  return sha256Text(JSON.stringify(body)).slice(0, 24);
}

/** One line of a batch input file, newline included, as `--batch-out` writes it. */
export function inputLine(study: string, run: ArmRun, request: RunRequest, row: InferenceInputRow): string {
  const replicate = run.replicate ?? 0;
  const custom_id = formatCustomId({ study, arm: run.name, replicate, dataset: row.dataset, sampleId: row.sample_id });
  const line: BatchInputLine = { custom_id, method: 'POST', url: BATCH_URL, body: lineBody(run, request, row) };
  return JSON.stringify(line) + '\n';
}
