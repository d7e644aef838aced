/**
 * An X.509 v1 client certificate (what `openssl x509 -req` writes without extensions) through a real TLS terminator
 * (nginx, test/helpers/tls-terminator.ts) in front of a Temporal dev server. The CLI's client (grpc-js) would
 * connect with it and the worker's (rustls) refuses it, so a doctor or a run waited for workers that never came;
 * every command refuses it in one line instead, before it connects (src/temporal/cert-version.ts). The same
 * terminator takes a v3 certificate of the same CA (the control: the refusal is the version's).
 * Skipped, saying why, where nginx or openssl is not installed.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLocalEnv } from '../helpers/temporal';
import { makeTestCerts, startTerminator, tlsTerminatorMissing, type Terminator, type TestCerts } from '../helpers/tls-terminator';
import { spawnPhase5, writeConfig } from '../e2e/harness';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('an X.509 v1 client certificate (nginx terminator, TEMPORAL_TLS_* variables)', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tls-v1-'));
  const configFile = path.join(dir, 'config.yaml');
  let env: TestWorkflowEnvironment | undefined;
  let terminator: Terminator | undefined;
  let certs: TestCerts;

  /** `phase5 ARGS` with Temporal's TLS variables for `client`; the hang guard stops it after 60 s. */
  function cli(args: string[], client: { cert: string; key: string }): Promise<CliRun> {
    const e: NodeJS.ProcessEnv = { ...process.env, PHASE5_LOG_LEVEL: 'warn', CI: '1', HOME: dir };
    for (const k of Object.keys(e)) if (k.startsWith('TEMPORAL_') && k !== 'TEMPORAL_CLI') delete e[k];
    Object.assign(e, {
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca,
      TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: client.key,
    });
    return new Promise((resolve, reject) => {
      const child = spawnPhase5(['--config', configFile, ...args], e);
      let [stdout, stderr] = ['', ''];
      const stop = setTimeout(() => child.kill('SIGTERM'), 60_000);
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (clearTimeout(stop), resolve({ code, stdout, stderr })));
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
    terminator = await startTerminator(certs, upstream);
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ sample_id: 's0', ocr_text: 'x', gt_text: 'x' }) + '\n');
    const port = terminator.address.split(':')[1];
    writeConfig(configFile, {
      paths: { results_dir: path.join(dir, 'results') },
      datasets: { lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') } },
      temporal: { address: terminator.address, queues: { cpu: `v1-cpu-${port}`, gpu: `v1-gpu-${port}` } },
    });
  });

  after(async () => {
    await terminator?.stop();
    await env?.teardown();
  });

  const refusal = () =>
    new RegExp(
      `^phase5: the client certificate ${certs.v1Client.cert.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is X\\.509 v1; Temporal's TLS needs v3 — re-issue it with extensions: \`openssl x509 -req … -extfile client\\.ext\``,
    );

  for (const args of [['doctor'], ['runs'], ['worker'], ['status', 'phase5-any']]) {
    it(`\`phase5 ${args.join(' ')}\` refuses it in one line`, async () => {
      const r = await cli(args, certs.v1Client);
      expect(r.code, r.stderr).to.equal(1);
      expect(r.stdout, 'nothing else printed').to.equal('');
      expect(r.stderr.trim().split('\n'), r.stderr).to.have.length(1);
      expect(r.stderr.trim(), r.stderr).to.match(refusal());
    });
  }

  it('the control: a v3 certificate of the same CA connects (`phase5 doctor` reaches Temporal, finds no worker)', async () => {
    const r = await cli(['doctor'], certs.client);
    expect(r.stdout, r.stderr).to.match(/^ ok {3}temporal reachable /m);
    expect(r.stdout, r.stderr).to.match(/^FAIL {2}worker on v1-cpu-\d+ +no worker is polling/m);
  });
});
