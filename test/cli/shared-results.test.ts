/**
 * One results dir, several runs (docs/cluster-files.md): real processes — a Temporal dev server on its own ports,
 * one `phase5 worker`, every command a child process.
 *
 *   two builds with other corpus settings (max_sentences 20 and 30) started at once into one results dir each
 *   keep their own corpus and index (each under its settings' fingerprint, corpora/<fp>/), and the export
 *   that follows each retrieves from its own;
 *   two exports with other settings (top_k 3 and 5) started at once into one results dir each exit 0 with
 *   their own records only (each under its settings' fingerprint, exports/<fp>/), and each default arm's
 *   inference_input.jsonl (arms/<arm>/) is one of them whole;
 *   a command that attaches to a finished export whose file was since replaced notices it and runs again,
 *   ending with the records that run writes (the identical command with the file intact just reports it);
 *   the same for an arm's corrections.jsonl (an infer: here an import) replaced after the run finished.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config/load';
import { stagePaths } from '../../src/stages/study/layout';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import { REPO_ROOT, FIXTURES } from '../helpers/shared-data';
import { baseRaw, MINILM_DIR, requireModel, sharedPaths } from '../bad-input/helpers';

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

/** The line-identifying fields of an export record, as a correction repeats them. */
const pick = (e: Record<string, string>) => ({ sample_id: e.sample_id, dataset: e.dataset, ocr_text: e.ocr_text, gt_text: e.gt_text });

const maxK = (file: string) => Math.max(...lines(file).map((l) => (JSON.parse(l) as { retrieved_k: number }).retrieved_k));

describe('one results dir, several exports (real server, worker process)', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shared-results-'));
  const results = path.join(dir, 'results');
  let config: Config;
  let files: { top3: string; top5: string; small: string; large: string };
  let args: string[];
  let worker: ChildProcess | undefined;

  before(async function () {
    requireModel(this, MINILM_DIR);
    const shared = await sharedPaths();
    args = ['export', '--corpus-path', shared.corpus, '--index-path', shared.index];
    const [port, uiPort] = [await freePort(), await freePort()];
    const raw = (k: number, sentences = 40) => ({
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
      corpus: { ...base.corpus, max_sentences: sentences },
      retrieval: { top_k: k, min_score: 0 },
    });
    const base = baseRaw(results) as { corpus: object };
    files = {
      top3: path.join(dir, 'top3.yaml'),
      top5: path.join(dir, 'top5.yaml'),
      small: path.join(dir, 'small.yaml'),
      large: path.join(dir, 'large.yaml'),
    };
    writeFileSync(files.top3, YAML.stringify(raw(3)));
    writeFileSync(files.top5, YAML.stringify(raw(5)));
    writeFileSync(files.small, YAML.stringify(raw(3, 20)));
    writeFileSync(files.large, YAML.stringify(raw(3, 30)));
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
    const made = [readFileSync(fileA, 'utf8'), readFileSync(fileB, 'utf8')];
    for (const arm of ['rag', 'zero_shot'])
      expect(made).to.include(readFileSync(path.join(results, 'arms', arm, 'inference_input.jsonl'), 'utf8'));
  });

  it('builds with max_sentences 20 and 30 started at once: each keeps its own corpus and index, and each export reads its own', async () => {
    const built = await Promise.all([phase5(files.small, 'build'), phase5(files.large, 'build')]);
    for (const r of built) expect(r.code, r.stderr).to.equal(0);
    const [small, large] = [files.small, files.large].map((f) => stagePaths(loadConfig(f, { env: {} }).config, {}));
    expect(path.dirname(small.corpus)).to.not.equal(path.dirname(large.corpus));
    for (const p of [small, large])
      expect(path.dirname(p.corpus)).to.equal(path.join(results, 'corpora', path.basename(path.dirname(p.corpus))));
    const corpora = [small, large].map((p) => lines(p.corpus).map((l) => JSON.parse(l) as { idx: number; text: string }));
    expect(corpora.map((c) => c.length)).to.deep.equal([20, 30]);
    const exported = await Promise.all([phase5(files.small, 'export'), phase5(files.large, 'export')]);
    exported.forEach((r, i) => {
      expect(r.code, r.stderr).to.equal(0);
      const records = lines(exportedFile(r)).map(
        (l) => JSON.parse(l) as { retrieval_context?: string; retrieval_sources?: { idx: number }[] },
      );
      const hits = records.flatMap((rec) => (rec.retrieval_sources ?? []).map((hit) => ({ hit, context: rec.retrieval_context ?? '' })));
      expect(hits.length, `export ${i}`).to.be.above(0);
      // every hit is the sentence at its idx in this build's corpus (the other corpus holds other sentences there)
      for (const { hit, context } of hits) expect(context, `hit ${hit.idx}`).to.contain(corpora[i][hit.idx].text);
    });
    expect(exportedFile(exported[0])).to.not.equal(exportedFile(exported[1]));
  });

  it('an attach to a finished export whose file was replaced runs it again; with the file intact it reports it', async () => {
    const first = await phase5(files.top3, ...args);
    expect(first.stderr).to.match(/already finished; showing its result/);
    const file = exportedFile(first);
    const written = readFileSync(file, 'utf8');
    writeFileSync(file, lines(path.join(results, 'arms', 'rag', 'inference_input.jsonl'))[0] + '\n'); // another run's record
    const again = await phase5(files.top3, ...args);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/finished before, but \S+inference_input\.jsonl is not the file it wrote .*: running it again/);
    expect(readFileSync(exportedFile(again), 'utf8')).to.equal(written);
  });
  it("an attach to a finished infer whose arm's corrections.jsonl was replaced runs it again; intact, it reports it", async () => {
    const template = JSON.parse(lines(path.join(FIXTURES, 'llm', 'corrections-import.jsonl'))[0]) as Record<string, unknown>;
    const exported = lines(path.join(results, 'arms', 'rag', 'inference_input.jsonl')).map((l) => JSON.parse(l) as Record<string, string>);
    const rows = exported.map((e) => ({ ...template, ...pick(e), corrected_text: e.gt_text, raw_output: e.gt_text }));
    const importFile = path.join(dir, 'import.jsonl');
    writeFileSync(importFile, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const corrections = path.join(results, 'arms', 'rag', 'corrections.jsonl');
    const first = await phase5(files.top3, 'infer', '--import', importFile);
    expect(first.code, first.stderr).to.equal(0);
    const written = readFileSync(corrections, 'utf8');
    expect(lines(corrections)).to.have.length(exported.length);
    const intact = await phase5(files.top3, 'infer', '--import', importFile);
    expect(intact.stderr).to.match(/already finished; showing its result/);
    expect(intact.stderr).to.not.match(/finished before, but/);
    writeFileSync(corrections, lines(corrections)[0] + '\n'); // what another run (or a hand edit) left there
    const again = await phase5(files.top3, 'infer', '--import', importFile);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.contain(`finished before, but ${corrections} is not the file it wrote`);
    expect(again.stderr).to.match(/: running it again/);
    expect(readFileSync(corrections, 'utf8')).to.equal(written);
  });
});
