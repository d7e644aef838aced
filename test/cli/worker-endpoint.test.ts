/**
 * Worker-local LLM endpoints, with real processes: a Temporal dev server on its own ports, a `phase5 worker`
 * child process started with `--openai-base-url`, `--openai-model` and `--openai-api-key-env`, and the infer
 * stage of a study whose config points at an address where nothing listens. The worker's own server gets every
 * request (its model, its key); the workflow history carries the config's endpoint only — never the worker's
 * URL, never a key. A bad flag value is a usage error before anything starts.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import type { StageInput } from '../../workflows/types';
import { decodedText } from '../helpers/decoded-text';
import { inferenceInputRecord } from '../helpers/records';
import { REPO_ROOT } from '../helpers/shared-data';
import { startFakeServer, type FakeServer } from '../llm/fake-openai-server';
import { writeDefaultInput } from '../helpers/default-arms';

const PHASE5 = path.join(REPO_ROOT, 'bin', 'phase5.js');
const KEY_NAME = 'PHASE5_ENDPOINT_TEST_BOX_KEY';
const KEY = 'box-secret-key-7f3a';
const LINES = ['line-a', 'line-b', 'line-c', 'line-d'];

describe('phase5 worker --openai-base-url: a worker-local endpoint (real server, worker process)', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'worker-endpoint-'));
  const configFile = path.join(dir, 'config.yaml');
  let config: Config;
  let box: FakeServer;
  let connection: Connection | undefined;
  let worker: ChildProcess | undefined;
  let workerErr = '';
  let deadUrl = '';

  before(async () => {
    const [port, uiPort, dead] = [await freePort(), await freePort(), await freePort()];
    deadUrl = `http://127.0.0.1:${dead}/v1`; // the study's endpoint: nothing listens there
    const results = path.join(dir, 'results');
    writeDefaultInput(results, LINES.map((id) => JSON.stringify(inferenceInputRecord(id))).join('\n') + '\n');
    const raw = {
      run_name: 'endpoint',
      paths: { results_dir: results },
      // Without the override the stage would fail after the outage budget instead of hanging.
      infer: {
        backend: 'openai',
        arms: ['rag'],
        outage_budget: '30s',
        openai: { base_url: deadUrl, model: 'study-model', api_key_env: 'PHASE5_ENDPOINT_TEST_UNSET', max_retries: 0, timeout_s: 5 },
      },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `endpoint-cpu-${port}`, gpu: `endpoint-gpu-${port}` },
        retry: { initial_interval: '500ms', maximum_interval: '2s' },
      },
    };
    writeFileSync(configFile, YAML.stringify(raw));
    config = loadConfig(configFile, { env: {} }).config;
    box = await startFakeServer();
    await startServer(config);
    connection = await Connection.connect({ address: config.temporal.address });
  });

  after(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGTERM');
    await connection?.close();
    await box?.close();
    if (config) await stopServer(config);
  });

  it('rejects a base URL that is not http(s) with one line, exit 2, before connecting', () => {
    const r = spawnSync(process.execPath, [PHASE5, '--config', configFile, 'worker', '--openai-base-url', 'localhost:8000/v1'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60000,
    });
    expect(r.status).to.equal(2);
    expect(r.stderr.trim()).to.equal('phase5: --openai-base-url / PHASE5_OPENAI_BASE_URL: "localhost:8000/v1" is not an http(s) URL');
  });

  it('the worker sends every request to its own server with its model and key; the history holds neither', async () => {
    const { cpu, gpu } = config.temporal.queues;
    worker = spawn(
      process.execPath,
      [
        PHASE5,
        '--config',
        configFile,
        'worker',
        '--queues',
        `${cpu},${gpu}`,
        '--openai-base-url',
        box.url,
        '--openai-model',
        'box-model',
        '--openai-api-key-env',
        KEY_NAME,
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', [KEY_NAME]: KEY },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    worker.stderr?.on('data', (d) => (workerErr += String(d)));
    const client = new Client({ connection: connection!, namespace: config.temporal.namespace });
    const input: StageInput = { run: 'endpoint', config, options: {}, force: false };
    const handle = await client.workflow.start('inferWorkflow', {
      taskQueue: cpu,
      workflowId: `phase5-endpoint-infer-${Date.now()}`,
      args: [input],
    });
    const result = (await handle.result()) as { rag: { written: number; failed: number; model: string } };

    expect(result.rag).to.include({ written: LINES.length, failed: 0, model: 'box-model' });
    // The worker's start-up check asked its box GET /health and GET /models (the model served?), infer's check before
    // its first correction GET /models once more; every completion went there with model and key.
    const completions = box.requests.filter((r) => r.method === 'POST');
    expect(box.requests.filter((r) => r.method === 'GET').map((r) => r.url)).to.deep.equal(['/health', '/v1/models', '/v1/models']);
    expect(completions.map((r) => r.body.model)).to.deep.equal(LINES.map(() => 'box-model'));
    expect(completions.every((r) => r.headers.authorization === `Bearer ${KEY}`)).to.equal(true);
    const corrections = readFileSync(path.join(config.paths.results_dir, 'arms', 'rag', 'corrections.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(corrections.map((c) => [c.sample_id, c.model, c.error])).to.deep.equal(LINES.map((id) => [id, 'box-model', null]));
    expect(workerErr).to.contain(`worker: worker-local LLM endpoint: base_url ${box.url}, model box-model, key from $${KEY_NAME}`);

    // The infer workflow and the arm's child, where the shards ran (their inputs and results).
    const child = client.workflow.getHandle(`${handle.workflowId}-rag`);
    const history = decodedText(await handle.fetchHistory()) + decodedText(await child.fetchHistory());
    expect(history, 'the workflow input carries the study config').to.contain(deadUrl);
    expect(history, 'the arm child ran the shards').to.contain('inferShard');
    expect(history).to.not.contain(box.url);
    expect(history).to.not.contain(KEY);
  });
});
