/**
 * Temporal over mutual TLS through a real TLS terminator (test/helpers/tls-terminator.ts: nginx with grpc_pass and
 * ssl_verify_client on, certificates made with openssl) in front of a Temporal dev server, configured only through
 * Temporal's own variables (TEMPORAL_TLS_*, docs/cluster.md). The CLI is refused in one line without a client
 * certificate, with a wrong CA, with an expired certificate and over plain TCP; a `phase5 worker` and `phase5 infer`
 * run a workflow and its activities over mTLS, with the operator service refusing search-attribute registration.
 * Skipped, saying why, where nginx or openssl is not installed.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLocalEnv } from '../helpers/temporal';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { makeTestCerts, startTerminator, tlsTerminatorMissing, type Terminator, type TestCerts } from '../helpers/tls-terminator';
import { killWorker, spawnPhase5, spawnWorker, waitFor, writeConfig, writeInferenceInput } from '../e2e/harness';

const KEY = 'PHASE5_MTLS_TEST_KEY';

interface CliRun {
  code: number | null;
  stderr: string;
}

describe('Temporal over mutual TLS (nginx terminator, TEMPORAL_TLS_* variables)', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mtls-'));
  const configFile = path.join(dir, 'config.yaml');
  let env: TestWorkflowEnvironment | undefined;
  let terminator: Terminator | undefined;
  let certs: TestCerts;
  let sim: SimLlmServer | undefined;
  let worker: ChildProcess | undefined;

  /** The process environment with Temporal's TLS variables (and no stray TEMPORAL_* of the shell). */
  function tlsEnv(tls: { ca?: string; cert?: string; key?: string } | null): NodeJS.ProcessEnv {
    const e: NodeJS.ProcessEnv = { ...process.env, PHASE5_LOG_LEVEL: 'warn', CI: '1', HOME: dir };
    for (const k of Object.keys(e)) if (k.startsWith('TEMPORAL_') && k !== 'TEMPORAL_CLI') delete e[k];
    if (!tls) return e;
    return {
      ...e,
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      ...(tls.ca ? { TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.ca } : {}),
      ...(tls.cert ? { TEMPORAL_TLS_CLIENT_CERT_PATH: tls.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: tls.key } : {}),
    };
  }
  const good = () => tlsEnv({ ca: certs.ca, ...certs.client });

  function cli(args: string[], e: NodeJS.ProcessEnv): Promise<CliRun> {
    return new Promise((resolve, reject) => {
      const child = spawnPhase5(['--config', configFile, ...args], e);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout!.resume();
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  before(async function () {
    const missing = tlsTerminatorMissing();
    if (missing) {
      console.log(`    skipped: ${missing}`);
      this.skip();
    }
    env = await createLocalEnv();
    const upstream = (env.connection as unknown as { options: { address: string } }).options.address;
    certs = makeTestCerts(path.join(dir, 'certs'));
    terminator = await startTerminator(certs, upstream, { refuseOperator: true });
    sim = await startSimLlmServer({ baseMs: 5 });
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ sample_id: 's0', ocr_text: 'x', gt_text: 'x' }) + '\n');
    const port = terminator.address.split(':')[1];
    writeConfig(configFile, {
      run_name: 'mtls',
      paths: { results_dir: path.join(dir, 'results') },
      datasets: { lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') } },
      infer: { backend: 'openai', arms: ['zero_shot'], shard_size: 4, openai: { base_url: sim.url, model: 'sim', api_key_env: KEY } },
      temporal: { address: terminator.address, queues: { cpu: `mtls-cpu-${port}`, gpu: `mtls-gpu-${port}` } },
    });
  });

  after(async () => {
    if (worker) await killWorker(worker);
    await terminator?.stop();
    await sim?.close();
    await env?.teardown();
  });

  const oneLine = (r: CliRun, pattern: RegExp) => {
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr.trim().split('\n'), r.stderr).to.have.length(1);
    expect(r.stderr.trim(), r.stderr).to.match(pattern);
  };

  it('refused in one line without a client certificate', async () => {
    oneLine(
      await cli(['runs'], tlsEnv({ ca: certs.ca })),
      /^phase5: Temporal at 127\.0\.0\.1:\d+ refused the connection: it requires a client certificate .*TEMPORAL_TLS_CLIENT_CERT_PATH/,
    );
  });

  it('refused in one line with a wrong CA', async () => {
    oneLine(
      await cli(['runs'], tlsEnv({ ca: certs.otherCa, ...certs.client })),
      /^phase5: Temporal at 127\.0\.0\.1:\d+: the server's certificate \(issued by ca\) is not trusted by the configured CA/,
    );
  });

  it('refused in one line with an expired client certificate', async () => {
    oneLine(
      await cli(['runs'], tlsEnv({ ca: certs.ca, ...certs.expiredClient })),
      /^phase5: Temporal at 127\.0\.0\.1:\d+: the client certificate \(CN=expired-client\) expired on .* — renew it/,
    );
  });

  it('refused in one line over plain TCP', async () => {
    oneLine(
      await cli(['runs'], tlsEnv(null)),
      /^phase5: Temporal at 127\.0\.0\.1:\d+ speaks TLS but this connection is plain TCP — set TEMPORAL_TLS=true/,
    );
  });

  it('a worker and `phase5 infer` run over mTLS; the refused search-attribute registration is said in one line', async () => {
    let workerErr = '';
    worker = spawnWorker(configFile, { ...good(), [KEY]: 'k' }, ['ignore', 'ignore', 'pipe']);
    worker.stderr!.on('data', (d: Buffer) => (workerErr += d.toString()));
    await waitFor('the worker serving', () => /^worker: serving /m.test(workerErr) || worker!.exitCode !== null, 120_000, 200);
    expect(workerErr).to.match(/^worker: the cluster refused to register the search attributes Phase5Run, .* — runs start without them/m);
    expect(workerErr).to.match(/^worker: serving mtls-cpu-\d+, mtls-gpu-\d+ at 127\.0\.0\.1:\d+ over mutual TLS /m);
    const results = path.join(dir, 'results');
    const rows = Array.from({ length: 6 }, (_, i) => ({
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
    const r = await cli(['infer'], { ...good(), [KEY]: 'k' });
    expect(r.code, r.stderr + workerErr).to.equal(0);
    expect(r.stderr).to.match(/lacks the Phase5 search attributes — the run starts without them/);
    const out = readFileSync(path.join(results, 'phase2', 'corrections.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(out).to.have.length(6);
    expect(sim!.served()).to.equal(6);
  });
});
