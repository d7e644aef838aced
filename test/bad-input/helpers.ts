/**
 * Shared plumbing of the bad-input suite: configs from `parseConfig`, temp results dirs, log capture, a
 * MiniLM index built once per process (cloned per case), and assertions for the two acceptable outcomes of
 * bad input — a non-retryable failure with a clear message, or a logged, counted skip.
 */
import { expect } from 'chai';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { StagePaths } from '../../src/stages/build/retriever';
import { stagePaths } from '../../src/stages/study/layout';
import type { RunOptions, StageInput } from '../../workflows/types';

import { FIXTURES, REPO_ROOT } from '../helpers/shared-data';
import { captureLogs, type LogRecord } from '../helpers/log-capture';
import { createStageCalls } from '../helpers/stage-calls';

const { buildCorpus, buildIndex, exportShard, mergeExport, planExport } = createStageCalls();

export type { LogRecord };

export const MINILM_DIR = path.join(REPO_ROOT, 'models', 'all-MiniLM-L6-v2');
export const E5_DIR = path.join(REPO_ROOT, 'models', 'multilingual-e5-small');
export const OPENITI_FIXTURE = path.join(FIXTURES, 'openiti', 'corpus');
export const PAIRED_FIXTURE = path.join(FIXTURES, 'datasets', 'paired');
export const DEMO_OCR = path.join(FIXTURES, 'demo', 'ocr.jsonl');

const created: string[] = [];
/** A fresh temp dir, removed when the test process exits. */
export function tmpDir(prefix: string): string {
  if (created.length === 0) process.once('exit', () => created.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dir = mkdtempSync(path.join(os.tmpdir(), `bad-input-${prefix}-`));
  created.push(dir);
  return dir;
}

/** Skip (with a line saying why) when setup has not installed a model the case needs. */
export function requireModel(ctx: Mocha.Context, dir: string): void {
  if (!existsSync(dir)) {
    console.log(`    (skipped: model not found at ${dir}; run npm run setup)`);
    ctx.skip();
  }
}

type Plain = Record<string, unknown>;
function merge(a: Plain, b: Plain): Plain {
  const out: Plain = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)
        ? merge(cur as Plain, v as Plain)
        : v;
  }
  return out;
}

/** The small study every stage case starts from: fixture OpenITI checkout, MiniLM, the fixture datasets. */
export function baseRaw(resultsDir: string): Plain {
  return {
    paths: { results_dir: resultsDir },
    data: { openiti_root: OPENITI_FIXTURE },
    corpus: { max_sentences: 40 },
    index: { batch_size: 64 },
    export: { shard_size: 4, query_batch_size: 8, checkpoint_every: 2 },
    rag: {
      embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
      embedding: { model_dir: MINILM_DIR, query_prefix: '', passage_prefix: '', max_length: 128, batch_size: 32, threads: 2 },
    },
    datasets: {
      paired: { type: 'paired_dir', path: PAIRED_FIXTURE },
      demo: { type: 'jsonl', path: DEMO_OCR },
    },
  };
}

export function makeConfig(resultsDir: string, overrides: Plain = {}): Config {
  return parseConfig(merge(baseRaw(resultsDir), overrides), 'bad-input test config', { env: {} });
}

export function stageInput(config: Config, options: RunOptions = {}, force = false): StageInput {
  return { run: 'bad-input', config, options, force };
}

/**
 * The activity must fail with a non-retryable ApplicationFailure whose message matches every pattern
 * (what a workflow shows instead of retrying forever). Returns the message.
 */
export async function expectInputError(p: Promise<unknown>, ...patterns: RegExp[]): Promise<string> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, 'expected the activity to fail').to.be.instanceOf(ApplicationFailure);
  const f = err as ApplicationFailure;
  expect(f.nonRetryable, `non-retryable (${f.message})`).to.equal(true);
  for (const re of patterns) expect(f.message, `message: ${f.message}`).to.match(re);
  return f.message;
}

/** Capture the project's log records while `fn` runs (any PHASE5_LOG_LEVEL). */
export async function withLogs<T>(fn: () => Promise<T>): Promise<{ result: T; logs: LogRecord[]; text: string }> {
  const cap = captureLogs();
  try {
    const result = await fn();
    return { result, logs: cap.records(), text: cap.text() };
  } finally {
    cap.stop();
  }
}

/** Like expectInputError but for a promise that must fail; returns what was logged meanwhile too. */
export async function failsWithLogs(fn: () => Promise<unknown>, ...patterns: RegExp[]): Promise<{ message: string; text: string }> {
  const cap = captureLogs();
  try {
    const message = await expectInputError(fn(), ...patterns);
    return { message, text: cap.text() };
  } finally {
    cap.stop();
  }
}

/** The export stage as the workflow runs it: plan, every shard, merge. */
export async function runExport(input: StageInput) {
  const plan = await planExport(input);
  const shards = [];
  for (const d of plan.datasets) for (const shard of d.shards) shards.push(await exportShard({ input, shard }));
  const merged = await mergeExport({ input, plan });
  return { plan, shards, merged };
}

let shared: Promise<string> | undefined;
/** A results dir with a corpus (corpora/<fingerprint>/) and a MiniLM index of it, built once per process by the activities. */
export function sharedResults(): Promise<string> {
  shared ??= (async () => {
    const dir = tmpDir('shared');
    const input = stageInput(makeConfig(dir));
    const { result } = await withLogs(async () => {
      await buildCorpus(input);
      return buildIndex(input);
    });
    expect(result.vectors).to.equal(40);
    return dir;
  })();
  return shared;
}

/** The shared corpus and index (under `sharedResults()`): for `--corpus-path` / `--index-path`. */
export async function sharedPaths(): Promise<StagePaths> {
  return stagePaths(makeConfig(await sharedResults()), {});
}

/** A private copy of the shared corpus + index (cases damage their copy); `makeConfig(dir)` finds them at `stagePaths`. */
export async function cloneResults(prefix: string): Promise<string> {
  const src = path.join(await sharedResults(), 'corpora');
  const dir = tmpDir(prefix);
  cpSync(src, path.join(dir, 'corpora'), { recursive: true });
  return dir;
}
