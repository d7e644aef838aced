/**
 * A study of three arms (each a child workflow of infer, four shards each) on one real `phase5 worker` that
 * lacks the API key, with one GPU slot: every shard fails on the worker's first attempt, and the first failure of
 * an arm ends it (no other worker could take it, activities/failure-kind.ts). The run must end with the reason
 * in one line, and `phase5 status` and `phase5 runs` must give it too. Without the fix the worker paused its infer
 * queue for 20 s after each failure — also after one that ended the run — so the failed arm's partial merge waited
 * behind the eleven shards still queued (≥ 3.5 minutes with `infer 0/48 lines` and no reason); `phase5 status`
 * and `phase5 runs` of the failed workflow gave no reason at all. The CLI's hang guard stops waiting at 90 s.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config/schema';
import { studyPlan } from '../../src/stages/study/plan';
import { armJson } from '../../src/stages/study/arm-files';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { ownServer, pollerCount, spawnPhase5, startE2eServer, stopE2eServer, waitFor } from './harness';

const KEY = 'PHASE5_ARM_FAILURE_TEST_KEY';
const ARMS = ['a', 'b', 'c'];
const LINES = 16; // four shards of four lines per arm

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('a failure on a worker without the API key, in a study of three arms (real server, worker process)', function () {
  this.timeout(400000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arm-failure-'));
  const configFile = path.join(dir, 'config.yaml');
  const results = path.join(dir, 'results');
  let config: Config;
  let connection: Connection;
  let client: Client;
  let sim: SimLlmServer;
  let worker: WorkerProcess | undefined;

  /** A `phase5` command with the key in its environment (not the worker's); stopped by the hang guard. */
  function cli(args: string[], guardMs = 90_000): Promise<CliRun> {
    return new Promise((resolve, reject) => {
      const child = spawnPhase5(['--config', configFile, ...args], {
        ...process.env,
        PHASE5_LOG_LEVEL: 'warn',
        CI: '1',
        [KEY]: 'shell-only',
      });
      let [stdout, stderr] = ['', ''];
      const stop = setTimeout(() => child.kill('SIGTERM'), guardMs);
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (clearTimeout(stop), resolve({ code, stdout, stderr })));
    });
  }

  before(async () => {
    sim = await startSimLlmServer({ baseMs: 5 });
    const raw = {
      run_name: 'arm-failure',
      paths: { results_dir: results },
      datasets: { lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') } },
      infer: { backend: 'openai', shard_size: 4, openai: { base_url: sim.url, model: 'sim', api_key_env: KEY, max_retries: 0 } },
      study: { arms: ARMS.map((name) => ({ name, prompt: 'zero_shot' })) },
      temporal: { ...(await ownServer(dir, 'af')), concurrency: { cpu: 2, gpu: 1 } },
    };
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ sample_id: 's0', ocr_text: 'x', gt_text: 'x' }) + '\n');
    ({ config, connection, client } = await startE2eServer(configFile, raw));
    // What the export leaves for each arm: arm.json and the lines to correct.
    const rows = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({
        sample_id: `s${i}`,
        dataset: 'lines',
        ocr_text: `قال أبو عثمان ىـ ${i}`,
        gt_text: `قال أبو عثمان ي ${i}`,
        prompt_type: 'zero_shot',
        prompt_version: 'v1',
        retrieval_context: '',
        retrieved_k: 0,
        retrieval_scores: [],
      }),
    );
    for (const arm of studyPlan(config, {}).arms) {
      mkdirSync(arm.dir!, { recursive: true });
      writeFileSync(path.join(arm.dir!, 'arm.json'), JSON.stringify(armJson(arm, undefined)));
      writeFileSync(arm.input, rows.join('\n') + '\n');
    }
    worker = startWorkerProcess(configFile, { without: [KEY] });
    await waitFor('the worker polling', async () => (await pollerCount(client, config.temporal.queues.gpu)) >= 1, 180_000, 300);
  });

  after(async () => {
    await stopE2eServer(worker ? [worker.child] : [], connection, config);
    await sim?.close();
  });

  it('the CLI, `phase5 status` and `phase5 runs` give the reason in one line', async () => {
    const reason = `worker \\d+@\\S+: environment variable ${KEY} is not set — set it in the worker's environment \\(every worker polling af-gpu-\\d+ failed this way: \\S+\\)`;
    const run = await cli(['infer']);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr, run.stderr).to.match(new RegExp(`^phase5: infer \\(arm [abc]\\) failed: ${reason}$`, 'm'));
    expect(sim.served(), 'no request went out without a key').to.equal(0);

    const runs = await cli(['runs', '--json']);
    const rows = JSON.parse(runs.stdout) as { workflowId: string; stage: string; state: string; failure?: string }[];
    const infer = rows.find((r) => r.stage === 'infer' && r.workflowId.endsWith('-infer'));
    expect(infer?.state, runs.stdout).to.equal('FAILED');
    expect(infer?.failure, runs.stdout).to.match(new RegExp(`^infer \\(arm [abc]\\) failed: ${reason}$`));
    const table = await cli(['runs']);
    expect(table.stdout, table.stdout).to.match(new RegExp(`^failed: infer \\(arm [abc]\\) failed: ${reason}$`, 'm'));

    const status = await cli(['status', infer!.workflowId]);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout.split('\n')[0], status.stdout).to.match(
      new RegExp(`^${infer!.workflowId}: FAILED .*\\| failed: infer \\(arm [abc]\\) failed: ${reason}$`),
    );
  });
});
