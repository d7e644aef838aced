/**
 * Infer stage: an LLM corrects every exported OCR line, once per study arm (../study/arms). Without `study:` the arms
 * are the default two — RAG (p5v1 with the record's retrieval context) into results/arms/rag/corrections.jsonl
 * and the zero-shot baseline (v1) into results/arms/zero_shot/corrections.jsonl. Resumable and deduplicated by
 * sample_id: a rerun continues where the output file ends.
 *
 *   const options = optionsFrom(config, {});
 *   const results = await run(options, {}, (backend) => createBackend(backend));
 *
 * `phase5 infer --import FILE [--arm NAME]` validates corrections made elsewhere and puts them where analyze
 * reads that arm (default: rag; ./import.ts).
 *
 * Failures: an LLM outage (connection, timeout, 429, 5xx after the backend's retries) writes no record and
 * fails the arm retryably (`LlmUnavailableError`), so Temporal retries and the next attempt resumes —
 * until the outage has lasted `infer.outage_budget`. Per-line failures are records; more of them than
 * `infer.max_failed_share` fail the stage for good (`InferFailedError`); `--retry-failed` redoes them
 * (./failures.ts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { resolvePath } from '../../config/load';
import { durationMs, type Config } from '../../config/schema';
import { JsonlParseError, writeJsonlAtomic } from '../../io/jsonl';
import {
  LlmUnavailableError,
  runCorrections,
  RunCorrectionsError,
  type PromptKind,
  type LlmBackend,
  type RunCorrectionsSummary,
} from '../../llm/index';
import { childLogger } from '../../util/log';
import { checkExportSettings } from '../export/finished-export';
import { UserInputError, type RunOptions, type StageHooks } from '../shared/types';
import { type InferenceInputRow } from '../../llm/records';
import { readInferenceInput } from '../../llm/record-files';
import { jsonAnswerField } from '../../llm/decoding';
import { skipsFromCounts, type Skips } from '../shared/skips';
import { findArm, type ArmRun } from '../study/arms';
import { studyPlan, type StudyPlan } from '../study/plan';
import { loadNow, type LlmLoad } from './llm-load';
import { assertFailedShare, InferFailedError, outageFailure, type InferCheckpoint } from './failures';
import { importCorrections, type ImportResult } from './import';
import { claimReplicateOutput, replicateKey, replicateRuns } from '../study/replicates';
import { recordPlanLock } from '../../plan/plan-lock';
import { clusterSpecOf, drawSample } from '../../datasets/sample';
import type { PlanSelection } from './plan';
import type { InferOptions, OpenBackend } from './types';
import { writtenFile, type WrittenFile } from '../shared/written-file';
import { withArmServer } from './arm-server';
import type { BatchWorkflowResult } from '../batch/types';

export { assertFailedShare, countFailedRecords, InferFailedError, isOutageFailure, type InferCheckpoint } from './failures';
export { guardImported, importCorrections, type ImportResult } from './import';

const log = childLogger('infer');

export type { PromptKind };

export type { InferOptions, OpenBackend } from './types';

export function optionsFrom(config: Config, cli: RunOptions, force = false, plan: StudyPlan = studyPlan(config, cli)): InferOptions {
  return {
    arms: plan.arms,
    importArm: cli.importFile ? findArm(plan.declared, cli.arm ?? 'rag') : undefined,
    datasets: cli.datasets,
    limit: cli.limit,
    ...(cli.sample ? { sample: { spec: cli.sample, clusters: clusterSpecOf(config) } } : {}),
    importFile: cli.importFile ? resolvePath(cli.importFile) : undefined,
    force,
    retryFailed: cli.retryFailed ?? false,
    maxFailedShare: config.infer.max_failed_share,
    outageBudgetMs: durationMs(config.infer.outage_budget),
    // A config from before the key (a running workflow's input) gets the default.
    shardSize: config.infer.shard_size ?? 256,
    config,
  };
}

export { backendConfig } from './backend';
export type { ArmRun };

export const RESULT_KEYS = [
  'model',
  'written',
  'skippedExisting',
  'succeeded',
  'failed',
  'failuresByReason',
  'promptTypes',
  'promptTokens',
  'completionTokens',
  'elapsedMs',
] as const;

/**
 * What one arm produced: the runner's counts that matter downstream (small: crosses Temporal); `skipped`:
 * duplicate input records (the later ones are not corrected) and lines recorded as failed, by reason.
 * `arm` is the arm's name (`rag` / `zero_shot` without a study).
 */
export type ArmResult = {
  arm: string;
  output: string;
  /** The corrections file with the sha256 its merge wrote (absent from runs that predate it): an attach checks it. */
  outputFile?: WrittenFile;
  skipped: Skips;
  load?: LlmLoad;
} & ArmCounts &
  RunTags;

/**
 * What a result says about its run beyond the counts: for one replicate of an arm with replicates (../study/replicates.ts)
 * which one and its seed, and the arm's `infer.price` when set (the CLI prints the cost).
 */
export interface RunTags {
  replicate?: number;
  seed?: number;
  price?: { input: number; output: number };
}

/** The tags of a run, each only when it applies (a result without them keeps its keys). */
export function runTags(run: Pick<ArmRun, 'replicate' | 'seed' | 'config'>): RunTags {
  const price = run.config?.infer?.price;
  return { ...(run.replicate === undefined ? {} : { replicate: run.replicate, seed: run.seed }), ...(price ? { price } : {}) };
}

/** The runner's counts an arm (or a shard of it) reports. */
export type ArmCounts = Pick<RunCorrectionsSummary, (typeof RESULT_KEYS)[number]>;

/** What an arm left out: duplicate sample_ids of the input, failed lines by reason. */
function armSkips(summary: RunCorrectionsSummary): Skips {
  const counts: Record<string, number> = { 'duplicate input record': summary.duplicateInput };
  for (const [reason, n] of Object.entries(summary.failuresByReason)) counts[`failed: ${reason}`] = n;
  return skipsFromCounts(counts, { 'duplicate input record': summary.duplicateInputIds ?? [] });
}

/**
 * `--limit N` (with `--datasets`): the records of the first N distinct sample_ids of each selected dataset, in
 * input order (duplicates of those kept, so the runner still counts them); `--sample N --seed S`: those of the
 * pilot's lines (src/datasets/sample.ts), in input order. Without either: the input file.
 */
async function selectedInput(options: InferOptions, input: string): Promise<string | InferenceInputRow[]> {
  if (options.limit === undefined && options.sample === undefined) return input;
  return selectRows(options, await readInferenceInput(input));
}

/** The records infer corrects of an input's rows: the selected datasets, then `--limit` or `--sample` (see selectedInput). */
export function selectRows(
  options: Pick<InferOptions, 'datasets' | 'limit' | 'sample'>,
  all: readonly InferenceInputRow[],
): InferenceInputRow[] {
  const wanted = options.datasets ? new Set(options.datasets) : null;
  const rows = all.filter((r) => !wanted || wanted.has(r.dataset));
  if (options.limit === undefined && options.sample === undefined) return rows;
  const keep = options.sample ? pilotIds(rows, options.sample) : null;
  const taken = new Map<string, Set<string>>();
  return rows.filter((r) => {
    if (keep) return keep.has(r.sample_id);
    const ids = taken.get(r.dataset) ?? new Set<string>();
    taken.set(r.dataset, ids);
    if (ids.has(r.sample_id)) return true;
    if (ids.size >= (options.limit as number)) return false;
    ids.add(r.sample_id);
    return true;
  });
}

/** The sample_ids of the pilot's lines: drawn per dataset from its distinct sample_ids in input order. */
export function pilotIds(rows: readonly InferenceInputRow[], sample: NonNullable<InferOptions['sample']>): Set<string> {
  const byDataset = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.sample_id)) continue;
    seen.add(r.sample_id);
    const ids = byDataset.get(r.dataset) ?? [];
    byDataset.set(r.dataset, ids);
    ids.push(r.sample_id);
  }
  const keep = new Set<string>();
  for (const [dataset, ids] of byDataset) for (const i of drawSample(ids, sample.spec, sample.clusters, dataset)) keep.add(ids[i]);
  return keep;
}

/** Per arm name (`<arm>#<r>` for replicate r ≥ 1, ../study/replicate-key.ts), its result; or the import; or the batch workflow's (../batch/). */
export type InferResult = { imported: ImportResult } | { batch: BatchWorkflowResult } | Partial<Record<string, ArmResult>>;

/** Every arm in order, or the import when `importFile` is set. */
export async function run(options: InferOptions, hooks: StageHooks, openBackend: OpenBackend): Promise<InferResult> {
  if (options.importFile) return { imported: await importCorrections(options) };
  const out: Partial<Record<string, ArmResult>> = {};
  for (const arm of options.arms)
    for (const run of replicateRuns(arm)) out[replicateKey(arm.name, run.replicate)] = await runArm(options, run, hooks, openBackend);
  return out;
}

/** Correct every line of the arm's input with its prompt and LLM; `onProgress` counts records in the output. */
export async function runArm(
  options: InferOptions,
  arm: ArmRun,
  hooks: StageHooks<InferCheckpoint>,
  openBackend: OpenBackend,
): Promise<ArmResult> {
  const { output } = arm;
  if (arm.corrector)
    throw new UserInputError(`arm "${arm.name}" (corrector ${arm.corrector.kind}) runs as shards on the CPU queue, not with an LLM`);
  if (!existsSync(arm.input)) throw new UserInputError(`no ${arm.input} — run \`phase5 export\` first`);
  if (!arm.dir) checkExportSettings(arm.input, arm.config);
  mkdirSync(path.dirname(output), { recursive: true });
  claimReplicateOutput(arm, options.force);
  if (options.force && existsSync(output)) writeJsonlAtomic(output, []);
  recordPlanLock(arm.config, output);
  const backend = await openBackend(await withArmServer(arm.backend(), arm.name));
  let summary: RunCorrectionsSummary;
  try {
    summary = await correct(options, arm, backend, hooks);
  } finally {
    await backend.close();
  }
  log.info(
    { arm: arm.name, output, written: summary.written, failed: summary.failed },
    `infer ${replicateKey(arm.name, arm.replicate)}: ${summary.written} written, ${summary.failed} failed, ${summary.skippedExisting} already done`,
  );
  await assertFailedShare(options, arm.name, arm.output);
  const counts = Object.fromEntries(RESULT_KEYS.map((k) => [k, summary[k]])) as Pick<RunCorrectionsSummary, (typeof RESULT_KEYS)[number]>;
  return { arm: arm.name, output, outputFile: await writtenFile(arm.output), ...counts, skipped: armSkips(summary), ...runTags(arm) };
}

async function correct(
  options: InferOptions,
  arm: ArmRun,
  backend: LlmBackend,
  hooks: StageHooks<InferCheckpoint>,
): Promise<RunCorrectionsSummary> {
  return correctLines(options, arm, backend, hooks, {
    input: await selectedInput(options, arm.input),
    output: arm.output,
    datasets: options.datasets,
    progress: 'log',
  });
}

/** What one run of the corrections runner works on: an arm's whole input, or one shard's lines. */
export interface CorrectTarget {
  input: string | InferenceInputRow[];
  output: string;
  datasets?: string[];
  /** Checkpoint (fsync) every N lines (a shard: 1, so a resume repeats only the lines in flight). */
  checkpointEvery?: number;
  progress: 'log' | 'silent';
}

/** Run the corrections runner on `target` with the arm's prompt and guard, and the stage's failure semantics. */
export async function correctLines(
  options: InferOptions,
  arm: ArmRun,
  backend: LlmBackend,
  hooks: StageHooks<InferCheckpoint>,
  target: CorrectTarget,
): Promise<RunCorrectionsSummary> {
  if (arm.config.infer.backend === 'openai_batch')
    throw new UserInputError(
      `arm "${arm.name}" has infer.backend openai_batch: its lines go through the Batch API (the batch workflow, docs/batch.md), not one request each`,
    );
  const attemptStarted = Date.now();
  await backend.preflight?.(hooks.signal); // the model is served: one line now, not a failed record per line
  try {
    const summary = await runCorrections({
      inputPath: target.input,
      outputPath: target.output,
      backend,
      prompt: arm.prompt,
      template: arm.template,
      jsonField: jsonAnswerField(arm.config.infer.decoding?.response_format, arm.config.infer.decoding?.structured),
      label: arm.name,
      retryFailed: options.retryFailed,
      datasets: target.datasets,
      guard: arm.guard,
      signal: hooks.signal,
      progress: target.progress,
      checkpointEvery: target.checkpointEvery,
      onProgress: (done, total) => {
        const load = backend.load?.();
        if (load) hooks.onLoad?.(loadNow(load));
        hooks.onProgress?.(done, total);
      },
    });
    // Stopped early (cancelled or superseded): not a completed stage.
    if (summary.aborted) throw new Error(`infer ${arm.name} stopped before the end (${summary.remaining} samples left)`);
    return summary;
  } catch (err) {
    // A malformed inference_input.jsonl line (file:line in the message) does not get better by retrying.
    if (err instanceof JsonlParseError) throw new UserInputError(err.message);
    if (err instanceof LlmUnavailableError) throw outageFailure(err, options.outageBudgetMs, backend, hooks, attemptStarted);
    // Every line failing for a reason of its own (a wrong model name: 404 on each prompt) — retrying cannot help.
    if (err instanceof RunCorrectionsError) throw new InferFailedError(`${err.message} (${JSON.stringify(err.summary.failuresByReason)})`);
    throw err;
  }
}

/** The infer plan's line selection (./plan.ts): datasets, `--limit` or `--sample`. */
export function planSelection(options: InferOptions): PlanSelection {
  return { datasets: options.datasets, limit: options.limit, ...(options.sample ? { sample: options.sample } : {}) };
}
