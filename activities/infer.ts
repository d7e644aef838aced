/**
 * Infer stage (GPU queue): an LLM corrects every exported OCR line, once per condition —
 * RAG (p5v1 with the record's retrieval context) into results/phase5/corrections.jsonl and the zero-shot
 * baseline (v1) into results/phase2/corrections.jsonl. Resumable and deduplicated by sample_id; a retried
 * attempt continues where the output file ends.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { resolvePath, resultDirs } from '../src/config/load';
import type { Config } from '../src/config/schema';
import {
  createBackend,
  formatValidation,
  runCorrections,
  RunCorrectionsError,
  validateCorrectionsFile,
  type BackendConfig,
  type Condition,
  type RunCorrectionsSummary,
} from '../src/llm';
import { JsonlParseError, writeJsonlAtomic } from '../src/io/jsonl';
import { childLogger } from '../src/util/log';
import type { StageInput } from '../workflows/types';
import { asActivity, heartbeater, runExclusive, UserInputError } from './support';

const log = childLogger('infer');

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
  return {
    type: 'llama',
    modelPath,
    threads: inf.local.threads,
    contextSize: inf.local.context_size,
    maxTokens: inf.local.max_tokens,
    gpu: inf.local.gpu ? 'auto' : false,
  };
}

export function conditionPaths(config: Config, condition: Condition, phase2Dir?: string) {
  const dirs = resultDirs(config);
  const input = path.join(dirs.phase5, 'inference_input.jsonl');
  const outDir = condition === 'rag' ? dirs.phase5 : phase2Dir ? resolvePath(phase2Dir) : dirs.phase2;
  return { input, output: path.join(outDir, 'corrections.jsonl') };
}

export async function inferCondition(args: { input: StageInput; condition: Condition }) {
  return asActivity(async () => {
    const { config, options } = args.input;
    const { input, output } = conditionPaths(config, args.condition);
    if (!existsSync(input)) throw new UserInputError(`no ${input} — run \`phase5 export\` first`);
    mkdirSync(path.dirname(output), { recursive: true });
    if (args.input.force && existsSync(output)) writeJsonlAtomic(output, []);
    const hb = heartbeater(`infer:${args.condition}`, 0, 0, 'samples');
    const backend = await createBackend(backendConfig(config)).catch((err) => {
      hb.stop();
      throw err;
    });
    let summary: RunCorrectionsSummary;
    try {
      // One writer per output file in this process (a newer attempt supersedes an older one still running here).
      summary = await runExclusive(output, (signal) => runCorrections({
        inputPath: input,
        outputPath: output,
        backend,
        condition: args.condition,
        datasets: options.datasets,
        signal,
        progress: 'log',
        onProgress: (done, total) => {
          hb.setTotal(total);
          hb.beat(done, { outputRecords: done });
        },
      }));
      // Stopped early (cancelled or superseded): not a completed activity.
      if (summary.aborted) throw new Error(`infer ${args.condition} stopped before the end (${summary.remaining} samples left)`);
    } catch (err) {
      // A malformed inference_input.jsonl line (file:line in the message) does not get better by retrying.
      if (err instanceof JsonlParseError) throw new UserInputError(err.message);
      if (err instanceof RunCorrectionsError) {
        // A dead endpoint or wrong model: every call failing. Retrying the activity later may help (server back).
        throw new Error(`${err.message} (${JSON.stringify(err.summary.failuresByReason)})`);
      }
      throw err;
    } finally {
      hb.stop();
      await backend.close();
    }
    log.info({ condition: args.condition, output, written: summary.written, failed: summary.failed }, `infer ${args.condition}: ${summary.written} written, ${summary.failed} failed, ${summary.skippedExisting} already done`);
    return {
      condition: args.condition,
      output,
      model: summary.model,
      written: summary.written,
      skippedExisting: summary.skippedExisting,
      succeeded: summary.succeeded,
      failed: summary.failed,
      failuresByReason: summary.failuresByReason,
      promptTypes: summary.promptTypes,
      promptTokens: summary.promptTokens,
      completionTokens: summary.completionTokens,
      elapsedMs: summary.elapsedMs,
    };
  });
}

/** `phase5 infer --import FILE`: validate every line, then put the file where analyze reads it (RAG condition). */
export async function importCorrections(input: StageInput) {
  return asActivity(async () => {
    const file = resolvePath(input.options.importFile!);
    if (!existsSync(file)) throw new UserInputError(`import file not found: ${file}`);
    const v = await validateCorrectionsFile(file);
    if (!v.ok) throw new UserInputError(`import rejected — ${formatValidation(v)}`);
    const { output } = conditionPaths(input.config, 'rag');
    writeJsonlAtomic(output, v.records); // canonical key order; unknown keys dropped
    if (v.extraKeys.length) log.warn({ extraKeys: v.extraKeys }, 'import: keys outside the schema were dropped');
    return { imported: v.records.length, failed: v.failed, byDataset: v.byDataset, output };
  });
}
