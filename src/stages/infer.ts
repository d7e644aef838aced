/**
 * Infer stage: an LLM corrects every exported OCR line, once per condition — RAG (p5v1 with the record's
 * retrieval context) into results/phase5/corrections.jsonl and the zero-shot baseline (v1) into
 * results/phase2/corrections.jsonl. Resumable and deduplicated by sample_id: a rerun continues where the
 * output file ends.
 *
 *   const options = optionsFrom(config, {});
 *   const results = await run(options, {}, () => createBackend(options.backend));
 *
 * `phase5 infer --import FILE` validates corrections made elsewhere and puts them where analyze reads them.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { resolvePath } from '../config/load';
import type { Config } from '../config/schema';
import { JsonlParseError, writeJsonlAtomic } from '../io/jsonl';
import {
  formatValidation,
  runCorrections,
  RunCorrectionsError,
  validateCorrectionsFile,
  type BackendConfig,
  type Condition,
  type LlmBackend,
  type RunCorrectionsSummary,
} from '../llm';
import { childLogger } from '../util/log';
import { UserInputError, type RunOptions, type StageHooks } from './types';
import { checkedResultDirs } from './results-dir';

const log = childLogger('infer');

export type { Condition };

export interface InferOptions {
  /** inference_input.jsonl written by export. */
  input: string;
  /** corrections.jsonl per condition. */
  outputs: Record<Condition, string>;
  /** The conditions to run, in order (the baseline is left out when `--phase2-dir` supplies it). */
  conditions: Condition[];
  /** How to reach the LLM; checked lazily, so importing corrections needs no model. */
  backend: () => BackendConfig;
  datasets?: string[];
  /** `phase5 infer --import FILE`. */
  importFile?: string;
  force: boolean;
}

/** Opens the LLM backend for one condition (closed by the stage when the condition ends). */
export type OpenBackend = (config: BackendConfig) => Promise<LlmBackend>;

export function optionsFrom(config: Config, cli: RunOptions, force = false): InferOptions {
  const dirs = checkedResultDirs(config);
  return {
    input: path.join(dirs.phase5, 'inference_input.jsonl'),
    outputs: { rag: path.join(dirs.phase5, 'corrections.jsonl'), zero_shot: path.join(dirs.phase2, 'corrections.jsonl') },
    conditions: config.infer.conditions.filter((c) => !(c === 'zero_shot' && cli.phase2Dir)),
    backend: () => backendConfig(config),
    datasets: cli.datasets,
    importFile: cli.importFile ? resolvePath(cli.importFile) : undefined,
    force,
  };
}

export function backendConfig(config: Config): BackendConfig {
  const inf = config.infer;
  if (inf.backend === 'openai') {
    return {
      type: 'openai',
      baseUrl: inf.openai.base_url,
      model: inf.openai.model,
      apiKeyEnv: inf.openai.api_key_env,
      temperature: inf.temperature,
      maxTokens: inf.openai.max_tokens,
      concurrency: inf.openai.concurrency,
      timeoutMs: inf.openai.timeout_s * 1000,
      retry: { maxRetries: inf.openai.max_retries },
    };
  }
  const modelPath = resolvePath(inf.local.model_path);
  if (!existsSync(modelPath)) throw new UserInputError(`GGUF model not found: ${modelPath} (infer.local.model_path; \`npm run setup\` installs the default)`);
  return { type: 'llama', modelPath, threads: inf.local.threads, contextSize: inf.local.context_size, maxTokens: inf.local.max_tokens, gpu: inf.local.gpu ? 'auto' : false };
}

const RESULT_KEYS = ['model', 'written', 'skippedExisting', 'succeeded', 'failed', 'failuresByReason', 'promptTypes', 'promptTokens', 'completionTokens', 'elapsedMs'] as const;

/** What one condition produced: the runner's counts that matter downstream (small: crosses Temporal). */
export type ConditionResult = { condition: Condition; output: string } & Pick<RunCorrectionsSummary, (typeof RESULT_KEYS)[number]>;

export interface ImportResult {
  imported: number;
  failed: number;
  byDataset: Record<string, number>;
  output: string;
}

export type InferResult = { imported: ImportResult } | Partial<Record<Condition, ConditionResult>>;

/** Every condition in order, or the import when `importFile` is set. */
export async function run(options: InferOptions, hooks: StageHooks, openBackend: OpenBackend): Promise<InferResult> {
  if (options.importFile) return { imported: await importCorrections(options) };
  const out: Partial<Record<Condition, ConditionResult>> = {};
  for (const condition of options.conditions) out[condition] = await runCondition(options, condition, hooks, openBackend);
  return out;
}

/** Correct every line of the input for one condition; `onProgress` counts records in the output. */
export async function runCondition(options: InferOptions, condition: Condition, hooks: StageHooks, openBackend: OpenBackend): Promise<ConditionResult> {
  const output = options.outputs[condition];
  if (!existsSync(options.input)) throw new UserInputError(`no ${options.input} — run \`phase5 export\` first`);
  mkdirSync(path.dirname(output), { recursive: true });
  if (options.force && existsSync(output)) writeJsonlAtomic(output, []);
  const backend = await openBackend(options.backend());
  let summary: RunCorrectionsSummary;
  try {
    summary = await correct(options, condition, backend, hooks);
  } finally {
    await backend.close();
  }
  log.info({ condition, output, written: summary.written, failed: summary.failed }, `infer ${condition}: ${summary.written} written, ${summary.failed} failed, ${summary.skippedExisting} already done`);
  const counts = Object.fromEntries(RESULT_KEYS.map((k) => [k, summary[k]])) as Pick<RunCorrectionsSummary, (typeof RESULT_KEYS)[number]>;
  return { condition, output, ...counts };
}

async function correct(options: InferOptions, condition: Condition, backend: LlmBackend, hooks: StageHooks): Promise<RunCorrectionsSummary> {
  try {
    const summary = await runCorrections({
      inputPath: options.input,
      outputPath: options.outputs[condition],
      backend,
      condition,
      datasets: options.datasets,
      signal: hooks.signal,
      progress: 'log',
      onProgress: (done, total) => hooks.onProgress?.(done, total),
    });
    // Stopped early (cancelled or superseded): not a completed stage.
    if (summary.aborted) throw new Error(`infer ${condition} stopped before the end (${summary.remaining} samples left)`);
    return summary;
  } catch (err) {
    // A malformed inference_input.jsonl line (file:line in the message) does not get better by retrying.
    if (err instanceof JsonlParseError) throw new UserInputError(err.message);
    // A dead endpoint or wrong model: every call failing. Retrying later may help (server back).
    if (err instanceof RunCorrectionsError) throw new Error(`${err.message} (${JSON.stringify(err.summary.failuresByReason)})`);
    throw err;
  }
}

/** Validate every line of `importFile`, then write it where analyze reads the RAG condition. */
export async function importCorrections(options: InferOptions): Promise<ImportResult> {
  const file = options.importFile;
  if (!file) throw new UserInputError('no file to import (--import FILE)');
  if (!existsSync(file)) throw new UserInputError(`import file not found: ${file}`);
  const v = await validateCorrectionsFile(file);
  if (!v.ok) throw new UserInputError(`import rejected — ${formatValidation(v)}`);
  const output = options.outputs.rag;
  writeJsonlAtomic(output, v.records); // canonical key order; unknown keys dropped
  if (v.extraKeys.length) log.warn({ extraKeys: v.extraKeys }, 'import: keys outside the schema were dropped');
  return { imported: v.records.length, failed: v.failed, byDataset: v.byDataset, output };
}
