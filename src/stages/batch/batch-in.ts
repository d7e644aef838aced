/**
 * `phase5 infer --batch-in FILE…`: batch output files turned into correction records. Each answer is matched by
 * custom_id against the batch set (./batch-index.ts), its request rebuilt from the arm as it is now and checked
 * against the one sent, and handed to the correction runner through a backend that replays it
 * (./replay-backend.ts): the records are made, resumed and appended exactly as an online run makes them. Bad
 * lines are counted (./batch-tally.ts) and write nothing; lines a run already holds are left as they are.
 *
 *   const result = await batchIn(options, ['out-0.jsonl', 'out-1.jsonl']);
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { readCompletion } from '../../llm/completion';
import { correctionPrompt } from '../../llm/correction-calls';
import { isOutage, LlmError } from '../../llm/types';
import { type InferenceInputRow } from '../../llm/records';
import { readInferenceInput } from '../../llm/record-files';
import { runCorrections } from '../../llm/runner';
import { recordPlanLock } from '../../plan/plan-lock';
import type { ArmRun } from '../study/arms';
import { jsonAnswerField } from '../../llm/decoding';
import type { InferOptions } from '../infer/infer';
import { claimReplicateOutput, replicateKey, replicateRuns } from '../study/replicates';
import { UserInputError } from '../shared/types';
import { childLogger } from '../../util/log';
import { writtenFile } from '../shared/written-file';
import type { BatchInResult, BatchRunImport } from './types';
import { readIssued, type IssuedRequest } from './batch-index';
import { readBatchManifest } from './batch-manifest';
import { readAnswers, type BatchAnswer } from './batch-outputs';
import { bodyDigest, lineBody, runRequest } from './batch-request';
import { batchFailedShare, UnansweredLines } from './batch-share';
import { BatchTally } from './batch-tally';
import { doneIds } from './done-ids';
import { ReplayBackend } from './replay-backend';

const log = childLogger('batch-in');

/** The runs of this invocation by key, and every run's key whatever `--arm` says. */
function runsByKey(options: InferOptions): Map<string, ArmRun> {
  const out = new Map<string, ArmRun>();
  for (const arm of options.arms) for (const run of replicateRuns(arm)) out.set(replicateKey(run.name, run.replicate), run);
  return out;
}

/** The answers of one run whose request is the one the arm sends now, with their rows in input order. */
function matchRun(run: ArmRun, answers: Map<string, BatchAnswer>, rows: InferenceInputRow[], tally: BatchTally) {
  const request = runRequest(run);
  const kept: { row: InferenceInputRow; answer: BatchAnswer }[] = [];
  const taken = new Set<string>();
  for (const row of rows) {
    const answer = answers.get(row.sample_id);
    if (!answer || taken.has(row.sample_id) || answer.request.dataset !== row.dataset) continue;
    taken.add(row.sample_id);
    if (bodyDigest(lineBody(run, request, row)) !== answer.request.digest) tally.add('wrongArm', `${answer.where} (request changed)`);
    else kept.push({ row, answer });
  }
  for (const [id, a] of answers) if (!taken.has(id)) tally.add('unknown', `${a.where} (no such line in ${run.input})`);
  return { request, kept };
}

/** One run's answers through the correction runner into its corrections file. */
async function importRun(
  options: InferOptions,
  run: ArmRun,
  answers: Map<string, BatchAnswer>,
  tally: BatchTally,
  unanswered: UnansweredLines,
): Promise<BatchRunImport> {
  if (!existsSync(run.input)) throw new UserInputError(`no ${run.input} — run \`phase5 export\` first`);
  const { request, kept } = matchRun(run, answers, await readInferenceInput(run.input), tally);
  const backend = new ReplayBackend(`batch:${run.name}`, request.model);
  const rows: InferenceInputRow[] = [];
  for (const { row, answer } of kept) {
    const read = readCompletion(answer.body, 1);
    // A body that is no chat completion says nothing about the line (online it is an outage, retried): left out.
    if (read instanceof LlmError && isOutage(read.reason)) {
      tally.add('error', `${answer.where} ${read.reason}`);
      unanswered.add(answer.request, read.reason);
    } else {
      backend.add(correctionPrompt(run.prompt, row, run.template).messages, read);
      rows.push(row);
    }
  }
  mkdirSync(path.dirname(run.output), { recursive: true });
  claimReplicateOutput(run, false);
  recordPlanLock(run.config, run.output);
  const summary = await runCorrections({
    inputPath: rows,
    outputPath: run.output,
    backend,
    prompt: run.prompt,
    template: run.template,
    jsonField: jsonAnswerField(run.config.infer.decoding?.response_format),
    label: run.name,
    // An answer for a line recorded as failed replaces that record.
    retryFailed: true,
    guard: run.guard,
    progress: 'silent',
    maxConsecutiveFailures: 0,
  });
  return {
    output: run.output,
    ...(existsSync(run.output) ? { outputFile: await writtenFile(run.output) } : {}),
    written: summary.written,
    failed: summary.failed,
    alreadyDone: summary.skippedExisting,
    promptTokens: summary.promptTokens,
    completionTokens: summary.completionTokens,
  };
}

/** Lines the set asked for that no output answered and their run does not hold. */
async function countMissing(
  issued: Map<string, IssuedRequest>,
  seen: Set<string>,
  runs: Map<string, ArmRun>,
  tally: BatchTally,
  unanswered: UnansweredLines,
) {
  const done = new Map<string, Set<string>>();
  for (const [id, r] of issued) {
    if (seen.has(id)) continue;
    const run = runs.get(r.run);
    if (!run) continue; // another arm than --arm: not asked for now
    if (!done.has(r.run)) done.set(r.run, await doneIds(run.output, false));
    if (done.get(r.run)!.has(r.sampleId)) continue;
    tally.add('missing', `${r.run}:${r.sampleId}`);
    unanswered.add(r, 'missing');
  }
}

export async function batchIn(options: InferOptions, files: readonly string[], manifestFile?: string): Promise<BatchInResult> {
  if (!options.config) throw new UserInputError('--batch-in needs the study config');
  if (files.length === 0) throw new UserInputError('--batch-in needs at least one batch output file');
  const { file, manifest } = readBatchManifest(options.config, manifestFile);
  const issued = await readIssued(file, manifest);
  const tally = new BatchTally();
  const unanswered = new UnansweredLines();
  const { byRun, seen } = await readAnswers(files, issued, manifest.study, tally, unanswered);
  const runs = runsByKey(options);
  const out: Record<string, BatchRunImport> = {};
  for (const [key, answers] of byRun) {
    const run = runs.get(key);
    if (!run) {
      for (const a of answers.values()) tally.add('wrongArm', `${a.where} (run ${key} is not in this run)`);
      continue;
    }
    out[key] = await importRun(options, run, answers, tally, unanswered);
  }
  await countMissing(issued, seen, runs, tally, unanswered);
  const imported = Object.values(out).reduce((n, r) => n + r.written, 0);
  const summary = tally.line(imported);
  // What was imported stays written; a run over infer.max_failed_share fails the stage as online.
  const overShare = await batchFailedShare(options, runs, issued, unanswered);
  if (overShare) {
    log.warn({ imported }, summary);
    throw overShare;
  }
  return { imported, runs: out, skipped: tally.skips(), summary };
}
