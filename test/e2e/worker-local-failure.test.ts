/**
 * A failure only the workers have, end to end with real processes: the API key variable is set in the shell that
 * runs `phase5 infer` but not in the workers' environment. Temporal's infer retry policy is unlimited, so without
 * activities/failure-kind.ts this run never ends. With one worker it fails on the first attempt; with two it is
 * retried on the other worker (the CLI shows the retry and its reason as it happens) and fails once both have
 * failed the same way — each with exit 1 and the reason in one line, within a minute. Only live workers count: with
 * the workers stopped (still listed by the server) and a new one without the key, the run ends on the new worker's
 * first failure (with every listed worker counted it was still retrying, attempt 9, when the CLI was stopped at 90 s).
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config/schema';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { LIVE_POLLER_WINDOW_MS } from '../../activities/failure-kind';
import { killWorker, ownServer, pollerCount, spawnPhase5, startE2eServer, stopE2eServer, waitFor, writeInferenceInput } from './harness';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const KEY = 'PHASE5_WORKER_LOCAL_TEST_KEY';
const LINES = 4;

interface CliRun {
  code: number | null;
  stderr: string;
  seconds: number;
}

describe('a failure only the workers have (real server, worker processes without the API key)', function () {
  this.timeout(400000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'worker-local-'));
  const configFile = path.join(dir, 'config.yaml');
  let config: Config;
  let client: Client;
  let connection: Connection;
  let sim: SimLlmServer;
  const workers: WorkerProcess[] = [];

  /** A worker without the key (unless `withKey`); the first serves the CPU queue too (workflow tasks run there). */
  function startWorker(queues: string[], withKey = false): void {
    workers.push(startWorkerProcess(configFile, withKey ? { queues, env: { [KEY]: 'set-on-this-worker' } } : { queues, without: [KEY] }));
  }

  const waitForPollers = (n: number) =>
    waitFor(`${n} workers polling`, async () => (await pollerCount(client, config.temporal.queues.gpu)) >= n, 180_000, 300);

  /** `phase5 infer` into its own results dir, with the key in the CLI's environment (not the workers'). */
  function infer(name: string, lines = LINES): Promise<CliRun> {
    const results = path.join(dir, name);
    const rows = Array.from({ length: lines }, (_, i) => ({
      sample_id: `s${i}`,
      dataset: 'lines',
      ocr_text: `قال أبو عثمان ىـ ${i}`,
      gt_text: `قال أبو عثمان ي ${i}`,
      prompt_type: 'zero_shot',
      prompt_version: 'v1',
      retrieval_context: '',
      retrieved_k: 0,
      retrieval_scores: [],
    }));
    writeInferenceInput(results, rows);
    const t0 = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawnPhase5(['--config', configFile, '--results-dir', results, 'infer'], {
        ...process.env,
        PHASE5_LOG_LEVEL: 'warn',
        CI: '1',
        [KEY]: 'set-in-the-shell-only',
      });
      let stderr = '';
      // Without the bound the run never ends: stop waiting well after the minute it must take at most.
      const stop = setTimeout(() => child.kill('SIGTERM'), 90_000);
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (clearTimeout(stop), resolve({ code, stderr, seconds: (Date.now() - t0) / 1000 })));
    });
  }

  before(async () => {
    sim = await startSimLlmServer({ baseMs: 5 });
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ sample_id: 's0', ocr_text: 'x', gt_text: 'x' }) + '\n');
    const raw = {
      run_name: 'worker-local',
      paths: { results_dir: path.join(dir, 'results') },
      datasets: { lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') } },
      infer: {
        backend: 'openai',
        arms: ['zero_shot'],
        shard_size: 4,
        openai: { base_url: sim.url, model: 'sim', api_key_env: KEY, max_retries: 0 },
      },
      temporal: {
        ...(await ownServer(dir, 'wl')),
        // The default retry policy but for a 5 s cap on the backoff, so the bound's attempts fit in the minute.
        stages: {
          infer: { queue: 'gpu', start_to_close: '10m', retry: { maximum_attempts: 0, initial_interval: '5s', maximum_interval: '5s' } },
        },
      },
    };
    ({ config, connection, client } = await startE2eServer(configFile, raw));
  });

  after(async () => {
    await stopE2eServer(
      workers.map((w) => w.child),
      connection,
      config,
    );
    await sim?.close();
  });

  const reason = new RegExp(
    `^phase5: infer \\(arm zero_shot\\) failed: worker \\d+@\\S+: environment variable ${KEY} is not set — set it in the worker's environment \\(every worker polling wl-gpu-\\d+ failed this way: .*\\)$`,
    'm',
  );

  it('one worker: exit 1 on the first attempt, the reason in one line', async () => {
    startWorker([config.temporal.queues.cpu, config.temporal.queues.gpu]);
    await waitForPollers(1);
    // The worker said so at start, before taking a task.
    expect(workers[0].stderr()).to.match(
      new RegExp(
        `^worker: wl-gpu-\\d+ cannot run its tasks: API key \\(arm zero_shot\\): environment variable ${KEY} is not set — set it in the worker's environment$`,
        'm',
      ),
    );
    const r = await infer('one');
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr, r.stderr).to.match(reason);
    expect(r.seconds, r.stderr).to.be.below(60);
    expect(sim.served(), 'no request went out without a key').to.equal(0);
  });

  it('two workers: retried on the other one (shown as it happens), then exit 1 with the reason in one line', async () => {
    startWorker([config.temporal.queues.gpu]);
    await waitForPollers(2);
    const r = await infer('two');
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr, r.stderr).to.match(reason);
    const failed = reason.exec(r.stderr)![0];
    expect(failed.match(/\d+@/g), 'both workers named').to.have.length(3);
    expect(r.stderr, 'the retry reached the progress line').to.match(
      new RegExp(
        `^infer 0/${LINES} lines · retrying \\(attempt \\d+\\): worker \\d+@\\S+: environment variable ${KEY} is not set — set it in the worker's environment$`,
        'm',
      ),
    );
    expect(r.seconds, r.stderr).to.be.below(60);
  });

  it('two workers without the key and one with it: the run completes, every line corrected once', async () => {
    startWorker([config.temporal.queues.gpu], true);
    await waitForPollers(3);
    const before = sim.served();
    const r = await infer('three', 24);
    expect(r.code, r.stderr).to.equal(0);
    const out = readFileSync(path.join(dir, 'three', 'arms', 'zero_shot', 'corrections.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(out).to.have.length(24);
    expect(sim.served() - before, 'one request per line').to.equal(24);
  });

  it('the workers stopped, a new one without the key: ends after the live worker failed, not waiting for the stopped ones', async () => {
    if (workers.length === 0) {
      // Run alone (mocha -g): two workers of its own to stop.
      startWorker([config.temporal.queues.cpu, config.temporal.queues.gpu]);
      startWorker([config.temporal.queues.gpu]);
      await waitForPollers(2);
    }
    const stopped = workers.map((w) => `${w.child.pid}@`);
    for (const w of workers) await killWorker(w.child);
    startWorker([config.temporal.queues.cpu, config.temporal.queues.gpu]);
    const fresh = `${workers.at(-1)!.child.pid}@`;
    // The server still lists the stopped workers; wait until their last poll is older than the window.
    const listed = async () => {
      const res = await Promise.all(
        ([1, 2] as const).map((t) =>
          client.workflowService.describeTaskQueue({
            namespace: 'default',
            taskQueue: { name: config.temporal.queues.gpu },
            taskQueueType: t,
          }),
        ),
      );
      return res.flatMap((r) => r.pollers ?? []);
    };
    const age = (p: Awaited<ReturnType<typeof listed>>[number]) => Date.now() - Number(p.lastAccessTime?.seconds ?? 0) * 1000;
    await waitFor(
      'the stopped workers idle past the window, the new one polling',
      async () => {
        const ps = await listed();
        const old = ps.filter((p) => stopped.some((s) => p.identity?.startsWith(s)));
        return ps.some((p) => p.identity?.startsWith(fresh)) && old.length > 0 && old.every((p) => age(p) > LIVE_POLLER_WINDOW_MS + 2000);
      },
      180_000,
      1000,
    );
    expect(
      (await listed()).some((p) => stopped.some((s) => p.identity?.startsWith(s))),
      'the server still lists stopped workers',
    ).to.equal(true);
    const r = await infer('after-restart');
    expect(r.code, r.stderr).to.equal(1);
    // Ended by the rule for all live workers, naming only the new one — not by the bound of attempts per listed worker.
    const m = new RegExp(`every worker polling wl-gpu-\\d+ failed this way: (\\S+)\\)$`, 'm').exec(r.stderr);
    expect(m, r.stderr).to.not.equal(null);
    expect(m![1].startsWith(fresh), r.stderr).to.equal(true);
    expect(r.stderr, 'no retry: the first attempt on the live worker ended it').to.not.match(/retrying \(attempt/);
  });
});
