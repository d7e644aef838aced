/**
 * Sharded infer under faults, with real processes: a Temporal dev server (`phase5 server` code, own ports and db),
 * two GPU workers (`phase5 worker`), each bound to its own simulated GPU box (test/helpers/sim-llm-server.ts,
 * `PHASE5_OPENAI_BASE_URL`). Outputs are compared with a clean run of the same workers with `latency_ms` (a
 * measured duration) set to 0; every other byte must match.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config/schema';
import { workflowStatus, type ArmStatus } from '../../src/temporal/client';
import type { StageInput } from '../../workflows/types';
import { inferenceInputRecord } from '../helpers/records';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import {
  killWorker,
  ownServer,
  partLines,
  pollerCount,
  spawnWorker,
  startE2eServer,
  stopE2eServer,
  waitFor,
  withoutLatency,
  writeInferenceInput,
} from './harness';

const LINES = 120;
const ARMS = ['rag', 'zero_shot'];
/** A worker's activity slots on the GPU queue (temporal.concurrency.gpu). */
const WORKER_SLOTS = 2;
/** Requests one worker can have outstanding: temporal.concurrency.gpu × infer.openai.concurrency. */
const WORKER_IN_FLIGHT = WORKER_SLOTS * 2;

describe('sharded infer with two GPU workers (real server, worker processes, simulated GPU boxes)', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'infer-scale-'));
  const configFile = path.join(dir, 'config.yaml');
  let config: Config;
  let client: Client;
  let connection: Connection;
  const sims: SimLlmServer[] = [];
  const workers: ChildProcess[] = [];

  /** A GPU worker bound to `sim`; `log` collects its stderr lines (its warnings, as JSON) when given. */
  function startWorker(sim: SimLlmServer, log?: string[]): ChildProcess {
    const w = spawnWorker(
      configFile,
      { ...process.env, PHASE5_LOG_LEVEL: 'warn', PHASE5_OPENAI_BASE_URL: sim.url, OPENAI_API_KEY: 'sim-key' },
      ['ignore', 'ignore', log ? 'pipe' : 'ignore'],
      [config.temporal.queues.gpu],
    );
    if (log) readline.createInterface({ input: w.stderr! }).on('line', (l) => log.push(l));
    workers.push(w);
    return w;
  }

  const pollers = () => pollerCount(client, config.temporal.queues.gpu);

  /** A results dir holding the same input lines. */
  function results(name: string): { input: StageInput; outputs: string[] } {
    const res = path.join(dir, name);
    const rows = Array.from({ length: LINES }, (_, i) => ({
      ...inferenceInputRecord(`s${String(i).padStart(4, '0')}`),
      ocr_text: `قال أبو عثمان ىـ ${i}`,
    }));
    writeInferenceInput(res, rows);
    const c = structuredClone(config);
    c.paths.results_dir = res;
    return {
      input: { run: name, config: c, options: {}, force: false },
      outputs: [path.join(res, 'arms', 'rag', 'corrections.jsonl'), path.join(res, 'arms', 'zero_shot', 'corrections.jsonl')],
    };
  }

  function startInfer(name: string, input: StageInput) {
    return client.workflow.start('inferWorkflow', {
      taskQueue: config.temporal.queues.gpu,
      workflowId: `scale-${name}-${Date.now()}`,
      args: [input],
    });
  }

  const served = () => sims.reduce((n, s) => n + s.served(), 0);

  before(async () => {
    for (let i = 0; i < 2; i++) sims.push(await startSimLlmServer({ baseMs: 40, concurrency: 4 }));
    const raw = {
      run_name: 'scale',
      paths: { results_dir: path.join(dir, 'results') },
      infer: {
        backend: 'openai',
        arms: ARMS,
        shard_size: 10,
        outage_budget: '5m',
        openai: { base_url: 'http://127.0.0.1:9/v1', model: 'sim', concurrency: 2, max_retries: 1, timeout_s: 5 },
      },
      temporal: {
        ...(await ownServer(dir, 'scale')),
        concurrency: { cpu: 1, gpu: WORKER_SLOTS },
        max_parallel_activities: 8,
        heartbeat_timeout: '4s',
        stages: {
          infer: {
            queue: 'gpu',
            start_to_close: '10m',
            retry: { maximum_attempts: 0, initial_interval: '300ms', backoff_coefficient: 2, maximum_interval: '1s' },
          },
        },
      },
    };
    ({ config, connection, client } = await startE2eServer(configFile, raw));
  });

  after(async () => {
    await stopE2eServer(workers, connection, config);
    for (const s of sims) await s.close();
  });

  let clean: string[] = [];

  it('clean run: both workers take shards, every line is served once', async () => {
    const [a, b] = [startWorker(sims[0]), startWorker(sims[1])];
    await waitFor('two pollers', async () => (await pollers()) >= 2, 90000, 200);
    const { input, outputs } = results('clean');
    const handle = await startInfer('clean', input);
    // `phase5 status` while it runs: every arm's done/total lines, a rate and the workers running its shards.
    let seen: ArmStatus[] = [];
    await waitFor(
      'a status with progress and workers on every arm',
      async () => {
        seen = (await workflowStatus(client, handle.workflowId)).arms ?? [];
        return seen.length === ARMS.length && seen.every((a) => a.done > 0 && a.workers.length > 0 && a.rate !== null);
      },
      60000,
      100,
    );
    expect(seen.map((a) => a.arm).sort()).to.deep.equal(ARMS);
    for (const a of seen) {
      expect(a.total).to.equal(LINES);
      expect(a.done).to.be.at.most(LINES);
      expect(a.rate, `${a.arm} lines/s`).to.be.greaterThan(0);
      expect(a.etaSeconds, `${a.arm} ETA`).to.be.a('number');
    }
    await handle.result();
    clean = outputs.map(withoutLatency);
    expect(served()).to.equal(LINES * ARMS.length);
    expect(sims[0].served(), 'worker A did work').to.be.greaterThan(0);
    expect(sims[1].served(), 'worker B did work').to.be.greaterThan(0);
    await Promise.all([killWorker(a), killWorker(b)]);
  });

  it('kill -9 one worker three times (restarted each time): completes, outputs identical, each sample once, served ≤ lines + in flight at the kills', async () => {
    const before = served();
    let a = startWorker(sims[0]);
    startWorker(sims[1]);
    await waitFor('two pollers', async () => (await pollers()) >= 2, 90000, 200);
    const { input, outputs } = results('kills');
    const handle = await startInfer('kills', input);
    const total = LINES * ARMS.length;
    for (const share of [0.2, 0.4, 0.6]) {
      await waitFor(`${share * 100}% of the lines`, () => outputs.reduce((n, o) => n + partLines(o), 0) >= total * share, 120000, 20);
      await killWorker(a);
      a = startWorker(sims[0]);
    }
    await handle.result();
    outputs.forEach((o, i) => expect(withoutLatency(o), o).to.equal(clean[i]));
    for (const o of outputs) {
      const ids = readFileSync(o, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).sample_id as string);
      expect(ids).to.have.length(LINES);
      expect(new Set(ids).size).to.equal(LINES);
    }
    const extra = served() - before - total;
    console.log(
      `      served ${served() - before} requests for ${total} lines (${extra} repeated after 3 kills; bound ${3 * WORKER_IN_FLIGHT})`,
    );
    expect(extra).to.be.within(0, 3 * WORKER_IN_FLIGHT);
    await killWorker(a);
  });

  /** Worker log lines (pino JSON) whose message matches `re`. */
  const logged = (log: string[], re: RegExp) =>
    log.filter((l) => l.startsWith('{') && re.test((JSON.parse(l) as { msg?: string }).msg ?? ''));
  const OUTAGE = /^infer (rag|zero_shot): LLM endpoint not serving/;

  it('a worker whose GPU box goes down fails at most its slots’ shards (clear, retryable), then pauses while the other finishes; it resumes when its box is back', async () => {
    for (const w of workers) await killWorker(w);
    const logA: string[] = [];
    const a = startWorker(sims[0], logA);
    const b = startWorker(sims[1]);
    await waitFor('two pollers', async () => (await pollers()) >= 2, 90000, 200);
    const { input, outputs } = results('endpoint-lost');
    const handle = await startInfer('lost', input);
    await waitFor(
      'some of worker A’s lines',
      () => sims[0].served() > 0 && outputs.reduce((n, o) => n + partLines(o), 0) >= 30,
      120000,
      20,
    );
    const stoppedAt = Date.now();
    await sims[0].stop();
    await handle.result();
    outputs.forEach((o, i) => expect(withoutLatency(o), o).to.equal(clean[i]));
    // A retried shard attempt carries the previous attempt's failure; find one that worker B ran.
    const started = [];
    for (const arm of ARMS) {
      const history = await client.workflow.getHandle(`${handle.workflowId}-${arm}`).fetchHistory();
      for (const e of history.events ?? [])
        if (e.activityTaskStartedEventAttributes)
          started.push({
            ...e.activityTaskStartedEventAttributes,
            at: Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6,
          });
    }
    const retried = started.filter((s) => (s.attempt ?? 1) >= 2 && s.lastFailure);
    expect(retried.length, 'a shard was retried').to.be.greaterThan(0);
    const message = retried[0].lastFailure?.message ?? '';
    expect(message).to.match(
      /^infer (rag|zero_shot): LLM endpoint not serving \(connection: .*retrying \(outage for \d+s of infer\.outage_budget 5\.0m\)$/,
    );
    expect(message).to.not.contain('\n');
    expect(
      retried.some((s) => s.identity?.startsWith(`${b.pid}@`)),
      'worker B finished a shard worker A failed',
    ).to.equal(true);

    // Worker A failed only the shards its slots held when its box went down, then paused: it took no task
    // (shard or merge) while B finished the run.
    const failedOnA = logged(logA, OUTAGE).length;
    const pauses = logged(logA, /is not serving — pausing /);
    console.log(
      `      worker A failed ${failedOnA} shard attempt(s) after its box went down (its slots: ${WORKER_SLOTS}); paused ${pauses.length} time(s)`,
    );
    expect(failedOnA, 'shard attempts worker A failed').to.be.within(1, WORKER_SLOTS);
    expect(pauses).to.have.length(1);
    expect(pauses[0]).to.contain(`LLM endpoint ${sims[0].url} is not serving — pausing ${config.temporal.queues.gpu}`);
    const lateOnA = started.filter((s) => s.identity?.startsWith(`${a.pid}@`) && s.at >= stoppedAt + 1000);
    expect(
      lateOnA.map((s) => s.attempt),
      'tasks worker A completed after its box went down',
    ).to.deep.equal([]);

    // Its box back, worker A's probe finds it (within the 15 s backoff cap) and A takes shards of the next run.
    await sims[0].start();
    const backAt = Date.now();
    await waitFor('worker A resumes', () => logged(logA, /answers again after \d+ s — resuming /).length === 1, 60000, 100);
    const resumedAfter = Date.now() - backAt;
    const servedByA = sims[0].served();
    const again = results('endpoint-back');
    await (await startInfer('back', again.input)).result();
    again.outputs.forEach((o, i) => expect(withoutLatency(o), o).to.equal(clean[i]));
    console.log(
      `      worker A resumed ${(resumedAfter / 1000).toFixed(1)} s after its box came back and served ${sims[0].served() - servedByA} of ${LINES * ARMS.length} lines of the next run`,
    );
    expect(sims[0].served() - servedByA, 'worker A took shards again').to.be.greaterThan(0);
    expect(logged(logA, OUTAGE)).to.have.length(failedOnA);
    await Promise.all([killWorker(a), killWorker(b)]);
  });
});
