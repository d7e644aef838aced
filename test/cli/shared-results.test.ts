/**
 * One results dir, several runs (docs/cluster-files.md): real processes — a Temporal dev server on its own ports,
 * one `phase5 worker`, every command a child process.
 *
 *   two exports with other settings (top_k 3 and 5) started at once into one results dir each exit 0 with
 *   their own records only (each under its settings' fingerprint), and the documented
 *   phase5/inference_input.jsonl is one of them whole;
 *   a command that attaches to a finished export whose file was since replaced notices it and runs again,
 *   ending with the records that run writes (the identical command with the file intact just reports it).
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import { REPO_ROOT, FIXTURES } from '../helpers/shared-data';
import { baseRaw, MINILM_DIR, requireModel, sharedResults } from '../bad-input/helpers';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `phase5 --config FILE ARGS…` as a child process, awaited (several may run at once). */
function phase5(file: string, ...args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', file, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', PHASE5_LOG_FORMAT: '', CI: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The file the export's summary points at (`→ <path>`). */
function exportedFile(r: Ran): string {
  const m = /→ (\S+inference_input\.jsonl)/.exec(r.stdout);
  expect(m, r.stdout + r.stderr).to.not.equal(null);
  return m![1];
}

const maxK = (file: string) => Math.max(...lines(file).map((l) => (JSON.parse(l) as { retrieved_k: number }).retrieved_k));

describe('one results dir, several exports (real server, worker process)', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shared-results-'));
  const results = path.join(dir, 'results');
  let config: Config;
  let files: { top3: string; top5: string };
  let args: string[];
  let worker: ChildProcess | undefined;

  before(async function () {
    requireModel(this, MINILM_DIR);
    const shared = await sharedResults();
    args = [
      'export',
      '--corpus-path',
      path.join(shared, 'phase5', 'corpus.jsonl'),
      '--index-path',
      path.join(shared, 'phase5', 'index.usearch'),
    ];
    const [port, uiPort] = [await freePort(), await freePort()];
    const raw = (k: number) => ({
      ...baseRaw(results),
      run_name: 'shared',
      datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `shared-cpu-${port}`, gpu: `shared-gpu-${port}` },
        retry: { maximum_attempts: 3, initial_interval: '200ms', maximum_interval: '1s' },
      },
      ...(baseRaw(results).phase5 as object),
      retrieval: { top_k: k, min_score: 0 },
    });
    files = { top3: path.join(dir, 'top3.yaml'), top5: path.join(dir, 'top5.yaml') };
    writeFileSync(files.top3, YAML.stringify(raw(3)));
    writeFileSync(files.top5, YAML.stringify(raw(5)));
    config = loadConfig(files.top3, { env: {} }).config;
    await startServer(config);
    worker = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', files.top3, 'worker'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'error' },
      stdio: 'ignore',
    });
  });

  after(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGTERM');
    if (config) await stopServer(config);
    rmSync(dir, { recursive: true, force: true });
  });

  it('top_k 3 and top_k 5 started at once: each ends with its own records, the documented name is one of them', async () => {
    const [a, b] = await Promise.all([phase5(files.top3, ...args), phase5(files.top5, ...args)]);
    expect(a.code, a.stderr).to.equal(0);
    expect(b.code, b.stderr).to.equal(0);
    const [fileA, fileB] = [exportedFile(a), exportedFile(b)];
    expect(fileA).to.not.equal(fileB);
    expect(lines(fileA)).to.have.length(10);
    expect(lines(fileB)).to.have.length(10);
    expect(maxK(fileA), 'top_k 3 records').to.equal(3);
    expect(maxK(fileB), 'top_k 5 records').to.equal(5);
    const pointer = readFileSync(path.join(results, 'phase5', 'inference_input.jsonl'), 'utf8');
    expect([readFileSync(fileA, 'utf8'), readFileSync(fileB, 'utf8')]).to.include(pointer);
  });

  it('an attach to a finished export whose file was replaced runs it again; with the file intact it reports it', async () => {
    const first = await phase5(files.top3, ...args);
    expect(first.stderr).to.match(/already finished; showing its result/);
    const file = exportedFile(first);
    const written = readFileSync(file, 'utf8');
    writeFileSync(file, lines(path.join(path.dirname(file), '..', '..', 'inference_input.jsonl'))[0] + '\n'); // another run's record
    const again = await phase5(files.top3, ...args);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/finished before, but \S+inference_input\.jsonl is not the file it wrote .*: running it again/);
    expect(readFileSync(exportedFile(again), 'utf8')).to.equal(written);
  });
});
