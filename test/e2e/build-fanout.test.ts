/**
 * The sharded build under crashes, with real processes: a Temporal dev server on its own ports and db file,
 * two `phase5 worker` child processes on the CPU queue, and the build workflow over a small generated corpus
 * (real MiniLM). Three times a worker is SIGKILLed in the middle of a shard — after at least one durable step of
 * it has been heartbeated — and a new one started; the build completes; shards finished on several workers;
 * each killed shard resumed from its part file (it repeats at most the rows after its last heartbeat); and the
 * index file, sentence list and manifest (created_at aside) are byte-identical to a clean one-process build.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';

import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { indexFiles } from '../../src/index/manifest';
import { freePort, serverPaths, startServer, stopServer } from '../../src/temporal/server';
import type { HeartbeatProgress } from '../../src/temporal/types';
import type { StageInput } from '../../workflows/types';
import { MINILM, requireModel } from '../embed/models';
import { workflowBundle } from '../../bin/cli/worker-runtime';
import { REPO_ROOT } from '../helpers/shared-data';
import { installTestRuntime } from '../helpers/temporal';
import { createStageCalls } from '../helpers/stage-calls';

const { buildCorpus, buildIndex } = createStageCalls();

const SENTENCES = 1920;
const KILLS = 3;
// A shard lasts several of the workers' 2 s heartbeat flushes (bin/cli/worker-runtime.ts), so the server sees one
// mid-shard; shards that end within one flush are never seen mid-way and the kill waits in vain.
const SHARD = 384;
const STEP = 16;
const WORDS = [
  'قال',
  'أبو',
  'عثمان',
  'الكتاب',
  'العلم',
  'زينة',
  'الرجال',
  'في',
  'من',
  'إلى',
  'الشعر',
  'البيان',
  'الحيوان',
  'كان',
  'يقول',
  'حدثنا',
];

/** A generic JSONL corpus of distinct lines of varied length (so the length-sorted batches are really reordered). */
function writeCorpusInput(file: string): void {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const lines = Array.from({ length: SENTENCES }, (_, i) => {
    const words = Array.from({ length: 4 + (next() % 24) }, () => WORDS[next() % WORDS.length]);
    return JSON.stringify({ id: `s${i}`, text: `${words.join(' ')} ${i}` });
  });
  writeFileSync(file, lines.join('\n') + '\n');
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function indexFingerprint(indexPath: string): Record<string, string> {
  const f = indexFiles(indexPath);
  const manifest = readFileSync(f.manifest, 'utf8').replace(/"created_at": "[^"]*"/, '"created_at": "<build time>"');
  return { index: sha256(f.index), sentences: sha256(f.sentences), manifest: createHash('sha256').update(manifest).digest('hex') };
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Started embedIndexShard tasks from the history: the identity of the worker and the attempt of each. */
async function shardStarts(handle: WorkflowHandle): Promise<{ identity: string; attempt: number }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const typeOf = new Map(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]),
  );
  return events
    .map((e) => e.activityTaskStartedEventAttributes)
    .filter((a) => a && typeOf.get(String(a.scheduledEventId)) === 'embedIndexShard')
    .map((a) => ({ identity: a!.identity ?? '', attempt: a!.attempt ?? 1 }));
}

describe('build fan-out: a CPU worker SIGKILLed mid-embedding (real server, two worker processes)', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'build-fanout-'));
  const configFile = path.join(dir, 'config.yaml');
  const corpusPath = path.join(dir, 'corpus', 'corpus.jsonl');
  let config: Config;
  let connection: Connection | undefined;
  const workers: ChildProcess[] = [];
  const logs: string[] = [];

  function startWorker(): ChildProcess {
    const w = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'phase5.js'),
        '--config',
        configFile,
        '--log-format',
        'json',
        'worker',
        '--queues',
        config.temporal.queues.cpu,
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, PHASE5_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const i = logs.push('') - 1;
    w.stderr?.on('data', (d) => (logs[i] += String(d)));
    workers.push(w);
    return w;
  }

  const input = (indexPath: string): StageInput => ({ run: 'fanout', config, options: { corpusPath, indexPath }, force: false });

  before(async function () {
    requireModel(this, MINILM);
    const [port, uiPort] = [await freePort(), await freePort()];
    mkdirSync(path.join(dir, 'corpus'), { recursive: true });
    writeCorpusInput(path.join(dir, 'input.jsonl'));
    const raw = {
      run_name: 'fanout',
      paths: { results_dir: path.join(dir, 'results') },
      corpus: { source: { type: 'jsonl', path: path.join(dir, 'input.jsonl'), id_field: 'id' } },
      index: { batch_size: STEP, embed_shard_size: SHARD },
      rag: {
        embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
        embedding: { model_dir: MINILM.dir, query_prefix: '', passage_prefix: '', max_length: 64, batch_size: 8, threads: 1 },
      },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `fanout-cpu-${port}`, gpu: `fanout-gpu-${port}` },
        concurrency: { cpu: 1, gpu: 1 },
        heartbeat_timeout: '5s',
        retry: { initial_interval: '500ms', maximum_interval: '2s' },
      },
    };
    writeFileSync(configFile, YAML.stringify(raw));
    config = loadConfig(configFile, { env: {} }).config;
    // The clean reference: the corpus, then the one-activity build, in this process without Temporal.
    await buildCorpus(input(path.join(dir, 'reference', 'index.usearch')));
    await buildIndex(input(path.join(dir, 'reference', 'index.usearch')));
    await startServer(config);
    connection = await Connection.connect({ address: config.temporal.address });
  });

  after(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await connection?.close();
    if (config) await stopServer(config);
  });

  /** A first attempt of a shard, mid-way (a durable step heartbeated, not near its end), on a live worker: its pid and rows done. */
  async function victimMidShard(handle: WorkflowHandle): Promise<{ pid: number; done: number } | null> {
    const live = new Set(workers.filter((w) => w.exitCode === null && w.signalCode === null).map((w) => w.pid));
    for (const a of (await handle.describe()).raw.pendingActivities ?? []) {
      const pid = Number(a.lastWorkerIdentity?.split('@')[0]);
      if (a.activityType?.name !== 'embedIndexShard' || a.attempt !== 1 || !live.has(pid)) continue;
      const beat = a.heartbeatDetails?.payloads?.[0]
        ? defaultPayloadConverter.fromPayload<HeartbeatProgress>(a.heartbeatDetails.payloads[0])
        : null;
      if (beat && beat.done >= STEP && beat.done <= SHARD - 2 * STEP) return { pid, done: beat.done };
    }
    return null;
  }

  it('completes after three kills, the shards spread over the workers, each killed shard resumed, and the index equals the clean build byte for byte', async () => {
    try {
      await scenario();
    } catch (e) {
      // A lost server connection names the server's own last words (its log), not only the refused call.
      const log = serverPaths(config).logFile;
      const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-20).join('\n') : '(no server log)';
      (e as Error).message += `\nTemporal dev server log tail (${log}):\n${tail}`;
      throw e;
    }
  });

  async function scenario(): Promise<void> {
    const client = new Client({ connection: connection!, namespace: config.temporal.namespace });
    const queue = config.temporal.queues.cpu;
    const pollers = async () =>
      (
        await client.workflowService.describeTaskQueue({
          namespace: config.temporal.namespace,
          taskQueue: { name: queue },
          taskQueueType: 2,
        })
      ).pollers?.length ?? 0;
    startWorker();
    startWorker();
    await waitFor('two workers polling', async () => ((await pollers()) >= 2 ? true : null), 120000, 250);

    const indexPath = path.join(dir, 'run', 'index.usearch');
    const handle = await client.workflow.start('buildWorkflow', {
      taskQueue: queue,
      workflowId: `phase5-fanout-build-${Date.now()}`,
      args: [input(indexPath)],
    });
    // Each time: a worker inside a fresh shard with at least one durable step heartbeated is killed, a new one started.
    const doneAtKills: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const victim = await waitFor(`a worker mid-shard (kill ${k + 1})`, () => victimMidShard(handle), 240000, 50);
      const proc = workers.find((w) => w.pid === victim.pid)!;
      proc.kill('SIGKILL');
      await new Promise((r) => proc.once('exit', r));
      doneAtKills.push(victim.done);
      startWorker();
    }
    const result = await handle.result();

    expect(result.index).to.include({ vectors: SENTENCES, indexType: 'exact' });
    const starts = await shardStarts(handle);
    expect(starts.filter((s) => s.attempt >= 2).length, 'every killed shard was retried').to.be.at.least(KILLS);
    // Retried attempts leave no event of their own: the started events name the workers that finished shards.
    expect(new Set(starts.map((s) => s.identity)).size, 'shards finished on more than one worker').to.be.at.least(2);
    const resumed = logs
      .join('\n')
      .split('\n')
      .filter((l) => l.includes('"corpus embedded"'))
      .map((l) => JSON.parse(l) as { resumedFrom: number })
      .filter((l) => l.resumedFrom > 0)
      .map((l) => l.resumedFrom)
      .sort((a, b) => a - b);
    // One resumed shard per kill, each from at least the rows heartbeated before its kill (matched in sorted order).
    expect(resumed, 'the killed shards resumed after their last heartbeated step').to.have.length(KILLS);
    const killed = [...doneAtKills].sort((a, b) => a - b);
    resumed.forEach((r, i) => expect(r).to.be.at.least(killed[i]));
    expect(indexFingerprint(indexPath)).to.deep.equal(indexFingerprint(path.join(dir, 'reference', 'index.usearch')));
    // The sharded build replays deterministically (window order, retries): its history against the current code.
    installTestRuntime();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, await handle.fetchHistory(), handle.workflowId);
  }
});
