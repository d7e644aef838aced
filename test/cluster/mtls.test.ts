/**
 * Temporal over mutual TLS through a real TLS terminator (test/helpers/tls-terminator.ts: nginx with grpc_pass and
 * ssl_verify_client on, certificates made with openssl) in front of a Temporal dev server, configured only through
 * Temporal's own variables (TEMPORAL_TLS_*, docs/cluster.md). The CLI is refused in one line without a client
 * certificate, with a wrong CA, with an expired certificate and over plain TCP; a `phase5 worker` and `phase5 infer`
 * run a workflow and its activities over mTLS, with the operator service refusing search-attribute registration;
 * and a whole study (`phase5 run`: build → export → infer → analyze, ./small-study.ts) runs over mTLS through a
 * second terminator that lets the operator service through, its workflows then listed by `phase5 runs`.
 * Skipped, saying why, where nginx or openssl (or, for the study, the E5 model) is not installed.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLocalEnv } from '../helpers/temporal';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';
import { makeTestCerts, startTerminator, tlsTerminatorMissing, type Terminator, type TestCerts } from '../helpers/tls-terminator';
import { killWorker, lineCount, spawnPhase5, waitFor, writeConfig, writeInferenceInput } from '../e2e/harness';
import { startWorkerProcess, waitServing, type WorkerProcess } from '../helpers/worker-process';
import { E5, requireModel } from '../embed/models';
import type { ArmResult } from '../../src/stages/infer/infer';
import type { Phase5Result } from '../../workflows/types';
import { REPO_ROOT } from '../helpers/shared-data';
import { CORPUS_RECORDS, OCR_LINES, studyConfig, writeStudyInputs } from './small-study';

const KEY = 'PHASE5_MTLS_TEST_KEY';
const STAGES = ['run', 'build', 'export', 'infer', 'analyze'];

interface CliRun {
  code: number | null;
  stdout: string;
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
  let worker: WorkerProcess | undefined;

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

  function cli(args: string[], e: NodeJS.ProcessEnv, file = configFile): Promise<CliRun> {
    return new Promise((resolve, reject) => {
      const child = spawnPhase5(['--config', file, ...args], e);
      let [stdout, stderr] = ['', ''];
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
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
    if (worker) await killWorker(worker.child);
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
    worker = startWorkerProcess(configFile, { env: { ...good(), [KEY]: 'k' } });
    await waitServing(worker);
    expect(worker.stderr()).to.match(
      /^worker: the cluster refused to register the search attributes Phase5Run, .* — runs start without them/m,
    );
    expect(worker.stderr()).to.match(/^worker: serving mtls-cpu-\d+, mtls-gpu-\d+ at 127\.0\.0\.1:\d+ over mutual TLS /m);
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
    const served = sim!.served();
    const r = await cli(['infer'], { ...good(), [KEY]: 'k' });
    expect(r.code, r.stderr + worker.stderr()).to.equal(0);
    expect(r.stderr).to.match(/lacks the Phase5 search attributes — the run starts without them/);
    const out = readFileSync(path.join(results, 'arms', 'zero_shot', 'corrections.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(out).to.have.length(6);
    expect(sim!.served() - served).to.equal(6);
  });

  describe('a whole study over mTLS: `phase5 run` (build → export → infer → analyze), listed by `phase5 runs`', () => {
    const studyFile = path.join(dir, 'study.yaml');
    let open: Terminator | undefined;
    let studyWorker: WorkerProcess | undefined;

    before(async function () {
      requireModel(this, E5);
      // A terminator that lets the operator service through, so the worker registers the Phase5* attributes.
      const upstream = (env!.connection as unknown as { options: { address: string } }).options.address;
      open = await startTerminator(certs, upstream);
      writeStudyInputs(dir);
      const port = open.address.split(':')[1];
      writeConfig(studyFile, studyConfig(dir, open.address, sim!.url, KEY, port));
      studyWorker = startWorkerProcess(studyFile, { env: { ...good(), [KEY]: 'k' } });
      await waitServing(studyWorker);
      expect(studyWorker.stderr()).to.match(
        /^worker: serving mtls-study-cpu-\d+, mtls-study-gpu-\d+ at 127\.0\.0\.1:\d+ over mutual TLS /m,
      );
    });

    after(async () => {
      if (studyWorker) await killWorker(studyWorker.child);
      await open?.stop();
    });

    it('every stage finishes; the corrections and the analysis are written; the runs are listed', async () => {
      const served = sim!.served();
      const r = await cli(['--json', 'run'], { ...good(), [KEY]: 'k' }, studyFile);
      expect(r.code, r.stderr + studyWorker!.stderr()).to.equal(0);
      const { workflowId, result } = JSON.parse(r.stdout) as { workflowId: string; result: Phase5Result };
      const { build, export: exported, infer, analyze } = result;
      expect(build?.corpus.sentences, 'corpus sentences').to.equal(CORPUS_RECORDS);
      expect(build?.index.vectors, 'index vectors').to.equal(CORPUS_RECORDS);
      expect(existsSync(build!.index.indexPath), build!.index.indexPath).to.equal(true);
      expect(exported?.merged.records, 'exported lines').to.equal(OCR_LINES);
      const arms = Object.values(infer ?? {}) as ArmResult[];
      expect(arms.map((a) => a.arm).sort()).to.deep.equal(['rag', 'zero_shot']);
      for (const arm of arms) {
        expect(arm.written + arm.skippedExisting, `${arm.arm} lines`).to.equal(OCR_LINES);
        expect(lineCount(arm.output), arm.output).to.equal(OCR_LINES);
      }
      expect(sim!.served() - served, 'one request per line and arm').to.equal(2 * OCR_LINES);
      expect(analyze?.datasets.map((d) => [d.dataset, d.n])).to.deep.equal([['ocr', OCR_LINES]]);
      expect(existsSync(analyze!.report), analyze!.report).to.equal(true);
      // Visibility is eventually consistent: list until the study and each of its stages show, completed.
      let rows: { workflowId: string; stage: string; state: string }[] = [];
      await waitFor(
        'the study in `phase5 runs`',
        async () => {
          const listed = await cli(['--json', '--run', 'mtls-study', 'runs'], good(), studyFile);
          expect(listed.code, listed.stderr).to.equal(0);
          rows = JSON.parse(listed.stdout) as typeof rows;
          const done = new Set(rows.filter((row) => row.state === 'COMPLETED').map((row) => row.stage));
          return STAGES.every((stage) => done.has(stage));
        },
        30_000,
        500,
      );
      expect(rows.find((row) => row.workflowId === workflowId)?.stage).to.equal('run');
      expect(
        rows.every((row) => row.state === 'COMPLETED'),
        JSON.stringify(rows),
      ).to.equal(true);
    });

    it('the certificates scripts/temporal-certs.sh makes (temporal-compose.tls.yml) carry mTLS: `phase5 runs` lists the study', async () => {
      const made = path.join(dir, 'script-certs');
      const r = spawnSync('sh', [path.join(REPO_ROOT, 'scripts', 'temporal-certs.sh'), made], { encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      const pair = (n: string) => ({ cert: path.join(made, `${n}.crt`), key: path.join(made, `${n}.key`) });
      const scriptCerts: TestCerts = { ...certs, dir: made, ca: path.join(made, 'ca.crt'), server: pair('server'), client: pair('client') };
      const upstream = (env!.connection as unknown as { options: { address: string } }).options.address;
      const theirs = await startTerminator(scriptCerts, upstream);
      try {
        // The server name the compose override and the script's certificate use.
        const e = { ...tlsEnv({ ca: scriptCerts.ca, ...scriptCerts.client }), TEMPORAL_TLS_SERVER_NAME: 'temporal' };
        const listed = await cli(['--address', theirs.address, '--run', 'mtls-study', 'runs'], e, studyFile);
        expect(listed.code, listed.stderr).to.equal(0);
        expect(listed.stdout).to.match(/^phase5-mtls-study-[0-9a-f]{8} +run +COMPLETED/m);
        // The test's own CA does not vouch for the script's server: refused in one line.
        oneLine(
          await cli(['--address', theirs.address, 'runs'], { ...e, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca }, studyFile),
          /is not trusted by the configured CA/,
        );
      } finally {
        await theirs.stop();
      }
    });
  });
});
