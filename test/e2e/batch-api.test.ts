/**
 * `infer.backend: openai_batch` end to end, with real processes: a Temporal dev server of the test's own, a
 * `phase5 worker` child process, the local Batch API (test/helpers/batch-api-server.ts) answering through the
 * simulated box. While the batches wait, the worker is SIGKILLed and the Temporal server restarted; a new worker
 * resumes each wait by the batch id it recorded. The run completes with one batch per file, every line imported
 * once, none lost.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config/schema';
import type { BatchWorkflowResult } from '../../src/stages/batch/types';
import { studyPlan } from '../../src/stages/study/plan';
import { startServer, stopServer } from '../../src/temporal/server';
import type { StageInput } from '../../workflows/types';
import { forwardTo } from '../helpers/batch-answer';
import { startBatchApiServer, type BatchApiServer } from '../helpers/batch-api-server';
import { inferenceInputRecord } from '../helpers/records';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { startWorkerProcess } from '../helpers/worker-process';
import { connectClient, killWorker, ownServer, pollerCount, stopE2eServer, waitFor, writeConfig } from './harness';

const IDS = ['b1', 'b2', 'b3', 'b4'];

describe('e2e: openai_batch survives a killed worker and a restarted Temporal server', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'batch-e2e-'));
  const configFile = path.join(dir, 'config.yaml');
  const workers: ChildProcess[] = [];
  let config: Config;
  let client: Client;
  let connection: Connection;
  let sim: SimLlmServer;
  let api: BatchApiServer;

  const startWorker = (): ChildProcess => {
    const w = startWorkerProcess(configFile, { env: { BATCH_E2E_KEY: 'k' } });
    workers.push(w.child);
    return w.child;
  };

  before(async () => {
    sim = await startSimLlmServer();
    api = await startBatchApiServer({ answer: forwardTo(sim.url) });
    config = writeConfig(configFile, {
      run_name: 'batch-e2e',
      paths: { results_dir: path.join(dir, 'results') },
      infer: { backend: 'openai_batch', openai: { base_url: api.url, model: 'sim', api_key_env: 'BATCH_E2E_KEY' }, batch: { poll_s: 0.2 } },
      study: { arms: [{ name: 'zs', prompt: 'zero_shot', replicates: 2 }] },
      temporal: {
        ...(await ownServer(dir, 'batch')),
        heartbeat_timeout: '5s',
        retry: { initial_interval: '500ms', maximum_interval: '2s' },
      },
    });
    for (const a of studyPlan(config, {}).arms) {
      mkdirSync(path.dirname(a.input), { recursive: true });
      writeFileSync(a.input, IDS.map((id) => JSON.stringify(inferenceInputRecord(id))).join('\n') + '\n');
    }
    await startServer(config);
    ({ connection, client } = await connectClient(config));
  });

  after(async () => {
    await stopE2eServer(workers, connection, config);
    await api.close();
    await sim.close();
  });

  it('one batch per file, every line imported once', async () => {
    api.hold();
    const w1 = startWorker();
    await waitFor('a worker on the gpu queue', async () => (await pollerCount(client, config.temporal.queues.gpu)) > 0, 120_000, 200);
    const input: StageInput = { run: 'batch-e2e', config, options: {}, force: false };
    const workflowId = `phase5-batch-e2e-${Date.now()}`;
    await client.workflow.start('batchInferWorkflow', { taskQueue: config.temporal.queues.cpu, workflowId, args: [input] });
    const waiting = () => api.batches().length === 2 && api.batches().every((b) => b.status === 'in_progress');
    await waitFor('both batches in progress', waiting, 120_000, 50);
    const looksBefore = api.looks();
    await waitFor('the worker polling the batches', () => api.looks() > looksBefore + 2, 60_000, 50);

    await killWorker(w1);
    await connection.close();
    expect(await stopServer(config)).to.equal(true);
    await startServer(config);
    ({ connection, client } = await connectClient(config));
    startWorker();
    api.release();

    const result = (await client.workflow.getHandle(workflowId).result()) as BatchWorkflowResult;
    expect(api.batches()).to.have.length(2);
    expect(api.uploads()).to.equal(2);
    expect(result.in?.summary).to.equal('batch-in: 8 line(s) imported; nothing left out');
    const history = JSON.stringify(await client.workflow.getHandle(workflowId).fetchHistory());
    expect(history).to.match(/"attempt":\s*[2-9]/); // a wait really was resumed by a second attempt
    for (const run of studyPlan(config, {}).arms.flatMap((a) => [
      a.output,
      path.join(path.dirname(a.output), 'replicates', '1', 'corrections.jsonl'),
    ])) {
      const ids = readFileSync(run, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { sample_id: string }).sample_id);
      expect(ids, run).to.deep.equal(IDS);
    }
  });
});
