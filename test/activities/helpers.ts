/**
 * Small real parts for the activity adapter tests: a config on the fixture dataset (10 OCR lines), an
 * in-memory retriever and a deterministic LLM backend that count their calls and can be held mid-run, so a
 * test can cancel or crash an activity at a known point — no ONNX model, no GGUF.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { HeartbeatProgress } from '../../src/temporal/types';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { indexFiles } from '../../src/index/manifest';
import type { ChatMessage, CompletionResult, LlmBackend } from '../../src/llm';
import type { ExportRetriever } from '../../src/stages/build/retriever';
import { stagePaths } from '../../src/stages/study/layout';
import type { StageInput } from '../../src/stages/shared/types';
import { FIXTURES } from '../helpers/shared-data';

export function tmpResults(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `activities-${prefix}-`));
}

/** The fixture dataset (10 lines) in shards of 4, checkpoints every 2 records, one query per batch. */
export function fixtureConfig(resultsDir: string, extra: Record<string, unknown> = {}): Config {
  return parseConfig(
    {
      paths: { results_dir: resultsDir },
      data: { openiti_root: path.join(FIXTURES, 'openiti', 'corpus') },
      export: { shard_size: 4, query_batch_size: 1, checkpoint_every: 2 },
      corpus: { max_sentences: 40 },
      datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      ...extra,
    },
    'activity test config',
    { env: {} },
  );
}

export function stageInput(config: Config, force = false): StageInput {
  return { run: 'activity-test', config, options: {}, force };
}

/** Stand-in index files: planning only needs the manifest's bytes (the fingerprint) and the index's presence. */
export function fakeIndexFiles(config: Config): void {
  const index = stagePaths(config, {}).index;
  mkdirSync(path.dirname(index), { recursive: true });
  writeFileSync(index, 'index');
  writeFileSync(indexFiles(index).manifest, JSON.stringify({ model: 'in-memory test retriever' }));
}

/** A gate a double waits on after `after` calls, until the test opens it. */
export class Gate {
  private release!: () => void;
  readonly opened = new Promise<void>((r) => (this.release = r));
  constructor(readonly after: number) {}
  open(): void {
    this.release();
  }
}

/** One deterministic hit per query: the query's own words, reversed (so records show what was retrieved). */
export function countingRetriever(gate?: Gate): ExportRetriever & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    fingerprint: 'in-memory',
    async retrieveMany(qs) {
      if (gate && queries.length >= gate.after) await gate.opened;
      queries.push(...qs);
      return qs.map((q, i) => [
        { text: q.split(' ').reverse().join(' '), source_uri: 'test.Book', score: 0.9, rank: 1, idx: i, date: 300 },
      ]);
    },
    formatForPrompt: (chunks) => chunks.map((c) => c.text).join('\n'),
  };
}

/** Answers with the user message (the OCR line) unchanged, counting calls. */
export function echoBackend(gate?: Gate): LlmBackend & { calls: number } {
  const backend = {
    id: 'echo:test',
    model: 'echo',
    concurrency: 1,
    calls: 0,
    async complete(messages: ChatMessage[]): Promise<CompletionResult> {
      if (gate && backend.calls >= gate.after) await gate.opened;
      backend.calls++;
      return { text: messages[messages.length - 1].content, promptTokens: 10, completionTokens: 5, latencyMs: 1, attempts: 1 };
    },
    async close() {},
  };
  return backend;
}

/** A mock activity context that records every heartbeat. */
export function recordingEnv(info: ConstructorParameters<typeof MockActivityEnvironment>[0] = {}) {
  // Expected failures (cancellation) would otherwise print the SDK's warning with a stack.
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 30000, ...info }, { logger: new DefaultLogger('ERROR') });
  const beats: HeartbeatProgress[] = [];
  env.on('heartbeat', (d: HeartbeatProgress) => beats.push(d));
  /** env.run with the activity's own argument and result types. */
  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
    env.run(fn as never, ...(args as unknown as never[])) as Promise<R>;
  return { env, beats, run };
}

/** Resolve once `cond` holds (polling), or fail after `ms`. */
export async function until(cond: () => boolean, ms = 10000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
