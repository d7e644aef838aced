/**
 * Crash-resume proof, with real processes: a Temporal dev server started by `phase5 server` code (its own db
 * file and ports), workers as child processes (`phase5 worker`), SIGKILL at a random point of export and of
 * infer, and a server restart mid-run. Each case asserts the workflow completes and the output is the same as an
 * uninterrupted run — one record per sample, none lost.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { OCR_GS_ROOT, OPENITI_ROOT, FIXTURES } from '../helpers/shared-data';
import type { Config } from '../../src/config/schema';
import { startServer, stopServer } from '../../src/temporal/server';

import type { StageInput } from '../../workflows/types';
import { connectClient, lineCount, ownServer, partLines, pollerCount, stopE2eServer, waitFor, writeConfig } from './harness';
import { startWorkerProcess } from '../helpers/worker-process';
import { createStageCalls } from '../helpers/stage-calls';
import { writeDefaultInput } from '../helpers/default-arms';

/** The default export's first shard of `dataset`, under its settings' fingerprint ('' before the plan). */
function firstExportShard(results: string, dataset: string): string {
  const dir = path.join(results, 'exports');
  const fp = existsSync(dir) ? readdirSync(dir).find((n) => existsSync(path.join(dir, n, dataset))) : undefined;
  return fp ? path.join(dir, fp, dataset, 'shard-00000.jsonl') : '';
}

const { buildCorpus, buildIndex, planExport, exportShard, mergeExport } = createStageCalls();

describe('crash-resume (real server, worker processes, SIGKILL)', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crash-'));
  const configFile = path.join(dir, 'config.yaml');
  const prebuilt = { corpusPath: path.join(dir, 'index', 'corpus.jsonl'), indexPath: path.join(dir, 'index', 'index.usearch') };
  let config: Config;
  let client: Client;
  let connection: Connection;
  const workers: ChildProcess[] = [];

  function startWorker(): ChildProcess {
    const w = startWorkerProcess(configFile, { env: { PHASE5_LOG_LEVEL: 'warn' } });
    w.child.on('exit', (code, signal) => {
      if (code && code !== 0 && signal !== 'SIGKILL') console.error(`worker exited ${code}: ${w.stderr().slice(-4000)}`);
    });
    workers.push(w.child);
    return w.child;
  }

  const pollers = (queue: string) => pollerCount(client, queue);

  async function connect(): Promise<void> {
    ({ connection, client } = await connectClient(config));
  }

  function stageInput(run: string, resultsDir: string, options: StageInput['options'] = {}): StageInput {
    const c = structuredClone(config);
    c.paths.results_dir = resultsDir;
    return { run, config: c, options: { ...prebuilt, ...options }, force: false };
  }

  /** The same export called directly, in-process, without Temporal: the uninterrupted reference. */
  async function referenceExport(resultsDir: string, options: StageInput['options']): Promise<string> {
    const input = stageInput('reference', resultsDir, options);
    const plan = await planExport(input);
    for (const d of plan.datasets) for (const shard of d.shards) await exportShard({ input, shard });
    const merged = await mergeExport({ input, plan });
    return merged.path;
  }

  const usingRealData = existsSync(OCR_GS_ROOT) && existsSync(OPENITI_ROOT);
  const LIMIT = usingRealData ? 160 : 10;

  before(async () => {
    const raw = {
      run_name: 'crash',
      paths: { results_dir: path.join(dir, 'results') },
      data: { openiti_root: usingRealData ? OPENITI_ROOT : path.join(FIXTURES, 'openiti', 'corpus') },
      corpus: { max_sentences: 400, status_filter: usingRealData ? 'pri' : 'all' },
      export: { shard_size: 1000, query_batch_size: 4, checkpoint_every: 4 },
      datasets: usingRealData
        ? { 'OCR_GS-Jahiz.Hayawan': { type: 'paired_dir', path: path.join(OCR_GS_ROOT, 'book_Jahiz.Hayawan') } }
        : { fixture: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      infer: { backend: 'local', arms: ['rag'], local: { max_tokens: 12, threads: 2, context_size: 1024 } },
      temporal: {
        ...(await ownServer(dir, 'crash')),
        heartbeat_timeout: '5s',
        retry: { initial_interval: '500ms', maximum_interval: '2s' },
      },
    };
    config = writeConfig(configFile, raw);
    // The index every case retrieves from, built once by the build activities (outside Temporal).
    const buildInput = stageInput('prebuild', path.join(dir, 'prebuild'));
    await buildCorpus(buildInput);
    await buildIndex(buildInput);
    await startServer(config);
    await connect();
  });

  after(async () => {
    await stopE2eServer(workers, connection, config);
  });

  it('export: a worker SIGKILLed mid-shard is replaced and the output equals an uninterrupted run', async () => {
    const results = path.join(dir, 'case-export');
    const dataset = Object.keys(config.datasets)[0];
    const shardFile = () => firstExportShard(results, dataset);
    const w1 = startWorker();
    await waitFor('worker 1 to poll', async () => (await pollers(config.temporal.queues.cpu)) > 0, 60000, 200);
    const input = stageInput('crash-export', results, { limit: LIMIT });
    const handle = await client.workflow.start('exportWorkflow', {
      taskQueue: config.temporal.queues.cpu,
      workflowId: `phase5-crash-export-${Date.now()}`,
      args: [input],
    });
    // Kill at a random point inside the shard (after at least one checkpoint, before the end).
    const killAt = 4 + Math.floor(Math.random() * Math.max(1, LIMIT / 2));
    await waitFor('export progress', () => lineCount(shardFile()) >= Math.min(killAt, LIMIT - 1), 120000, 10);
    const before = lineCount(shardFile());
    w1.kill('SIGKILL');
    await new Promise((r) => w1.once('exit', r));
    expect(before).to.be.lessThan(LIMIT);
    startWorker();
    await handle.result();
    const history = JSON.stringify(await handle.fetchHistory());
    expect(history).to.match(/"attempt":\s*[2-9]/); // the shard activity really was retried

    const out = path.join(results, 'arms', 'rag', 'inference_input.jsonl');
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).sample_id as string);
    expect(ids).to.have.length(LIMIT);
    expect(new Set(ids).size).to.equal(LIMIT);
    const reference = await referenceExport(path.join(dir, 'case-export-ref'), { limit: LIMIT });
    expect(readFileSync(out, 'utf8')).to.equal(readFileSync(reference, 'utf8'));
  });

  it('infer: a worker SIGKILLed mid-run is replaced; one correction per sample, none lost', async () => {
    const results = path.join(dir, 'case-infer');
    const source = path.join(dir, 'case-export', 'arms', 'rag', 'inference_input.jsonl');
    const n = 8;
    const inputLines = readFileSync(source, 'utf8').trim().split('\n').slice(0, n);
    writeDefaultInput(results, inputLines.join('\n') + '\n');
    const corrections = path.join(results, 'arms', 'rag', 'corrections.jsonl');
    const w = startWorker();
    await waitFor('a worker on the gpu queue', async () => (await pollers(config.temporal.queues.gpu)) > 0, 60000, 200);
    const handle = await client.workflow.start('inferWorkflow', {
      taskQueue: config.temporal.queues.cpu,
      workflowId: `phase5-crash-infer-${Date.now()}`,
      args: [stageInput('crash-infer', results)],
    });
    const killAt = 1 + Math.floor(Math.random() * (n - 2));
    await waitFor('infer progress', () => partLines(corrections) >= killAt, 180000, 20);
    for (const p of workers) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    await new Promise((r) => (w.exitCode !== null || w.signalCode !== null ? r(null) : w.once('exit', r)));
    expect(partLines(corrections)).to.be.lessThan(n);
    startWorker();
    await handle.result();
    const recs = readFileSync(corrections, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sample_id: string; error: unknown; corrected_text: string });
    const wanted = inputLines.map((l) => JSON.parse(l).sample_id as string);
    expect(recs.map((r) => r.sample_id).sort()).to.deep.equal([...wanted].sort());
    expect(recs.every((r) => r.error === null)).to.equal(true);
  });

  it('server restart: the dev server stopped and started again (same db file) mid-export; the run completes', async () => {
    const results = path.join(dir, 'case-restart');
    const dataset = Object.keys(config.datasets)[0];
    const shardFile = () => firstExportShard(results, dataset);
    if (!workers.some((w) => w.exitCode === null && w.signalCode === null)) startWorker();
    await waitFor('a worker', async () => (await pollers(config.temporal.queues.cpu)) > 0, 60000, 200);
    const workflowId = `phase5-crash-restart-${Date.now()}`;
    await client.workflow.start('exportWorkflow', {
      taskQueue: config.temporal.queues.cpu,
      workflowId,
      args: [stageInput('crash-restart', results, { limit: LIMIT })],
    });
    await waitFor('export progress', () => lineCount(shardFile()) >= 4, 120000, 10);
    await connection.close();
    expect(await stopServer(config)).to.equal(true);
    await startServer(config);
    await connect();
    await client.workflow.getHandle(workflowId).result();
    const out = path.join(results, 'arms', 'rag', 'inference_input.jsonl');
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).sample_id as string);
    expect(new Set(ids).size).to.equal(LIMIT);
    expect(ids).to.have.length(LIMIT);
    copyFileSync(out, path.join(dir, 'restart-output.jsonl'));
    expect(readFileSync(out, 'utf8')).to.equal(
      readFileSync(path.join(dir, 'case-export-ref', 'arms', 'rag', 'inference_input.jsonl'), 'utf8'),
    );
  });
});
