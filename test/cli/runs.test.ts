/**
 * Searchable runs against a real dev server (own ports and db file): `phase5 server start`'s flags register the
 * Phase5* search attributes; a stage started by the CLI carries them and the config memo; `phase5 runs --run X`
 * lists only X's runs. No worker runs, so the workflows stay RUNNING (the labels are set at start).
 * `ensureSearchAttributes` is checked on a server started without the flags (the test environment's).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import {
  CONFIG_HASH_ATTR,
  DATASETS_ATTR,
  ensureSearchAttributes,
  PHASE5_SEARCH_ATTRIBUTES,
  RUN_ATTR,
  runSearchAttributes,
  STAGE_ATTR,
} from '../../src/temporal/search-attributes';
import { REPO_ROOT } from '../helpers/shared-data';
import { startOrAttach } from '../../src/temporal/client';
import { createLocalEnv } from '../helpers/temporal';
import { baseRaw } from '../bad-input/helpers';

describe('searchable runs (search attributes, memo, phase5 runs)', function () {
  this.timeout(180000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runs-'));
  let config: Config;
  let configFile: string;
  let client: Client;
  let connection: Connection;

  function phase5(...args: string[]) {
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60000,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', CI: '1' },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Visibility is eventually consistent: poll until `n` executions match, however long the server takes (the test's timeout bounds it). */
  async function listed(query: string, n: number): Promise<WorkflowExecutionInfo[]> {
    for (;;) {
      const found: WorkflowExecutionInfo[] = [];
      for await (const info of client.workflow.list({ query })) found.push(info);
      if (found.length >= n) return found;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  before(async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const base = baseRaw(path.join(dir, 'results'));
    const raw = {
      ...base,
      run_name: 'alpha',
      retrieval: { top_k: 7 },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `runs-cpu-${port}`, gpu: `runs-gpu-${port}` },
      },
    };
    configFile = path.join(dir, 'config.yaml');
    writeFileSync(configFile, YAML.stringify(raw));
    config = loadConfig(configFile, { env: {} }).config;
    await startServer(config);
    connection = await Connection.connect({ address: config.temporal.address });
    client = new Client({ connection, namespace: config.temporal.namespace });
  });

  after(async () => {
    await connection?.close();
    if (config) await stopServer(config);
  });

  it('the dev server started by phase5 has the Phase5* search attributes', async () => {
    const res = await connection.operatorService.listSearchAttributes({ namespace: config.temporal.namespace });
    for (const name of Object.keys(PHASE5_SEARCH_ATTRIBUTES)) expect(Object.keys(res.customAttributes ?? {})).to.include(name);
  });

  it('a stage started by the CLI carries the search attributes and the config memo', async () => {
    const r = phase5('analyze', '--detach', '--datasets', 'demo');
    expect(r.code, r.stderr).to.equal(0);
    const workflowId = r.stdout.trim();
    expect(workflowId).to.match(/^phase5-alpha-[0-9a-f]{8}-analyze$/);
    const [info] = await listed('Phase5Run = "alpha"', 1);
    expect(info?.workflowId).to.equal(workflowId);
    expect(info.typedSearchAttributes.get(RUN_ATTR)).to.equal('alpha');
    expect(info.typedSearchAttributes.get(STAGE_ATTR)).to.equal('analyze');
    expect(info.typedSearchAttributes.get(CONFIG_HASH_ATTR)).to.equal(/-([0-9a-f]{8})-analyze$/.exec(workflowId)![1]);
    expect(info.typedSearchAttributes.get(DATASETS_ATTR)).to.deep.equal(['demo']);
    const memo = (await client.workflow.getHandle(workflowId).describe()).memo as Record<string, unknown>;
    expect(memo).to.include({
      top_k: 7,
      embedding_model: 'sentence-transformers/all-MiniLM-L6-v2',
      index_type: 'FlatIP',
      corpus_max_sentences: 40,
    });
    expect(memo.datasets).to.deep.equal(['demo']);
    expect(memo.arms, 'the default arms (infer.arms)').to.deep.equal(['rag', 'zero_shot']);
  });

  it('phase5 runs --run X lists only X, newest first; --config-hash filters by hash', async () => {
    const beta = phase5('--run', 'beta', 'export', '--detach');
    expect(beta.code, beta.stderr + beta.stdout).to.equal(0);
    const betaStudy = phase5('--run', 'beta', 'run', '--detach');
    expect(betaStudy.code, betaStudy.stderr).to.equal(0);
    await listed('Phase5Run = "beta"', 2);
    const all = phase5('runs', '--json');
    expect(all.code, all.stderr).to.equal(0);
    expect((JSON.parse(all.stdout) as { run: string }[]).map((x) => x.run).sort()).to.deep.equal(['alpha', 'beta', 'beta']);
    const onlyBeta = phase5('--run', 'beta', 'runs', '--json');
    const rows = JSON.parse(onlyBeta.stdout) as { workflowId: string; run: string; stage: string; state: string; startTime: string }[];
    expect(rows.map((x) => x.stage)).to.deep.equal(['run', 'export']); // newest first
    expect(rows.every((x) => x.run === 'beta' && x.state === 'RUNNING')).to.equal(true);
    const hash = /-([0-9a-f]{8})-export$/.exec(rows[1].workflowId)![1];
    const byHash = JSON.parse(phase5('runs', '--config-hash', hash, '--json').stdout) as { workflowId: string }[];
    expect(byHash.map((x) => x.workflowId)).to.deep.equal(rows.map((x) => x.workflowId)); // the study and its export share the identity
    const text = phase5('--run', 'alpha', 'runs');
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout.split('\n')[0]).to.match(/^WORKFLOW ID\s+STAGE\s+STATE\s+PROGRESS\s+STARTED$/);
    expect(text.stdout).to.match(/phase5-alpha-[0-9a-f]{8}-analyze\s+analyze\s+RUNNING/);
    expect(text.stdout).to.not.contain('beta');
  });

  it('ensureSearchAttributes registers them on a server without them, and is idempotent', async () => {
    const env = await createLocalEnv();
    try {
      const ns = env.namespace ?? 'default';
      expect(await ensureSearchAttributes(env.connection, ns)).to.have.members(Object.keys(PHASE5_SEARCH_ATTRIBUTES));
      expect(await ensureSearchAttributes(env.connection, ns)).to.deep.equal([]);
    } finally {
      await env.teardown();
    }
  });

  it('a namespace without them (registration refused): the run starts without them, keeping its memo', async () => {
    const env = await createLocalEnv();
    try {
      const labels = {
        typedSearchAttributes: runSearchAttributes({ run: 'r', stage: 'run', configHash: 'abcd1234', datasets: ['d'] }),
        memo: { top_k: 3 },
      };
      const labelled = async function labelledRun(): Promise<void> {};
      // The server refuses the attributes themselves…
      const direct = await env.client.workflow.start(labelled, { workflowId: 'sa-direct', taskQueue: 'sa-none', ...labels }).then(
        () => null,
        (err: Error) => err,
      );
      expect(direct, 'the server takes unknown attributes').to.not.equal(null);
      // …so the start goes on without them.
      const { handle, outcome } = await startOrAttach(env.client, labelled, 'sa-fallback', [], { taskQueue: 'sa-none', ...labels });
      expect(outcome).to.equal('started');
      const desc = await handle.describe();
      expect(desc.memo).to.deep.equal({ top_k: 3 });
      expect(desc.typedSearchAttributes.get(RUN_ATTR)).to.equal(undefined);
    } finally {
      await env.teardown();
    }
  });
});
