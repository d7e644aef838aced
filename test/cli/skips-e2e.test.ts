/**
 * Skipped inputs reach the operator, end to end with real processes (a Temporal dev server on its own ports,
 * a `phase5 worker` child process, every command a child process): a paired dir and a JSONL file built here
 * from bad files (cp1256 text, BOM, CRLF, empty OCR, empty gold, a 0-byte gold file, a gold file without OCR,
 * a directory where a file is expected, invalid / incomplete / mistyped / duplicate JSONL lines) export
 * without a crash; every good line is exported; the CLI summary names every kind with its count; skipped.json
 * is written; `phase5 status` shows the skips of the finished export; the worker logs each dataset's problems
 * once. Then `phase5 infer --limit 2 --datasets lines` (a fake OpenAI server) corrects only the first 2 lines
 * of that dataset, and another --limit is another run.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import { REPO_ROOT } from '../helpers/shared-data';
import { baseRaw, MINILM_DIR, requireModel, sharedPaths } from '../bad-input/helpers';
import { startFakeServer, type FakeServer } from '../llm/fake-openai-server';

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { sample_id: string; dataset: string });
const KEY_ENV = 'SKIPS_E2E_FAKE_KEY';
/** "الكتاب" in Windows-1256: not valid UTF-8. */
const CP1256 = Buffer.from([0xc7, 0xe1, 0xdf, 0xca, 0xc7, 0xc8]);
const gold = (i: number) => `قال أبو عثمان في كتاب الحيوان ${i}`;
const ocr = (i: number) => `قال ابو عتمان فى كتاب الحيوان ${i}`;

/** book/: 3 good pairs (one with BOM + CRLF, one with an empty OCR file) and 6 bad ones. */
function badPairedDir(dir: string): void {
  mkdirSync(dir);
  const w = (name: string, data: string | Buffer) => writeFileSync(path.join(dir, name), data);
  (w('001.gt.txt', gold(1)), w('001.png.rec.txt', ocr(1)));
  (w('002.gt.txt', `\uFEFF${gold(2)}\r\n`), w('002.png.rec.txt', `${ocr(2)}\r\n`)); // BOM + CRLF: repaired, kept
  (w('003.gt.txt', gold(3)), w('003.png.rec.txt', '')); // empty OCR: kept (zero-shot fallback)
  (w('004.gt.txt', CP1256), w('004.png.rec.txt', ocr(4))); // unreadable
  (w('005.gt.txt', ' \r\n'), w('005.png.rec.txt', ocr(5))); // empty gold
  (w('006.gt.txt', ''), w('006.png.rec.txt', ocr(6))); // 0-byte gold
  w('007.gt.txt', gold(7)); // no OCR twin
  (w('008.gt.txt', gold(8)), mkdirSync(path.join(dir, '008.png.rec.txt'))); // a directory where the OCR file should be
  (mkdirSync(path.join(dir, '009.gt.txt')), w('009.png.rec.txt', ocr(9))); // a directory named like a gold file
  w('manifest.txt', 'not part of the dataset\n');
}

/** lines.jsonl: 3 good lines (the first with BOM + CRLF) and 6 bad ones. */
function badJsonl(file: string): void {
  const line = (id: string, i: number) => JSON.stringify({ sample_id: id, ocr_text: ocr(i), gt_text: gold(i) });
  const parts: (string | Buffer)[] = [
    `\uFEFF${line('L1', 1)}\r\n`,
    `${line('L2', 2)}\n`,
    '{"ocr_text": "x",\n', // 3: invalid JSON
    `${JSON.stringify({ sample_id: 'L4', ocr_text: ocr(4) })}\n`, // 4: no gt_text
    `${JSON.stringify({ sample_id: 'L5', ocr_text: ocr(5), gt_text: 5 })}\n`, // 5: wrong type
    `${line('L2', 6)}\n`, // 6: duplicate sample_id
    Buffer.concat([Buffer.from('{"ocr_text": "'), CP1256, Buffer.from('", "gt_text": "x"}\n')]), // 7: cp1256
    `${JSON.stringify({ sample_id: 'L8', ocr_text: ocr(8), gt_text: '  ' })}\n`, // 8: empty gold
    `${line('L9', 9)}\n`,
  ];
  writeFileSync(file, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
}

describe('skipped inputs, end to end (real server, worker process, bad dataset files)', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skips-e2e-'));
  const workerLog = path.join(dir, 'worker.log');
  let config: Config;
  let configFile: string;
  let index: { corpus: string; index: string };
  let worker: ChildProcess | undefined;
  let llm: FakeServer;
  let exportId: string;

  function phase5(...args: string[]) {
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120000,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', CI: '1', [KEY_ENV]: 'k' },
    });
    const id = /(?:started|attached to the running) (phase5-\S+)|(phase5-\S+) already finished/.exec(r.stderr);
    return {
      code: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
      workflowId: id?.[1] ?? id?.[2],
      started: /started phase5-/.test(r.stderr),
    };
  }

  /** The same, without blocking this process's event loop (the fake LLM server lives here). */
  function phase5Async(...args: string[]): Promise<ReturnType<typeof phase5>> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', CI: '1', [KEY_ENV]: 'k' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        const id = /(?:started|attached to the running) (phase5-\S+)|(phase5-\S+) already finished/.exec(stderr);
        resolve({ code, stdout, stderr, workflowId: id?.[1] ?? id?.[2], started: /started phase5-/.test(stderr) });
      });
    });
  }

  before(async function () {
    requireModel(this, MINILM_DIR);
    index = await sharedPaths();
    badPairedDir(path.join(dir, 'book'));
    badJsonl(path.join(dir, 'lines.jsonl'));
    llm = await startFakeServer();
    const [port, uiPort] = [await freePort(), await freePort()];
    const raw = {
      ...baseRaw(path.join(dir, 'results')),
      run_name: 'skips',
      datasets: {
        book: { type: 'paired_dir', path: path.join(dir, 'book') },
        lines: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') },
      },
      infer: {
        backend: 'openai',
        arms: ['rag'],
        openai: { base_url: llm.url, model: 'fake-model', api_key_env: KEY_ENV, max_retries: 0, concurrency: 2 },
      },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `skips-cpu-${port}`, gpu: `skips-gpu-${port}` },
        retry: { maximum_attempts: 1 },
      },
    };
    configFile = path.join(dir, 'config.yaml');
    writeFileSync(configFile, YAML.stringify(raw));
    config = loadConfig(configFile, { env: {} }).config;
    await startServer(config);
    const out = openSync(workerLog, 'w');
    worker = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'worker'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', [KEY_ENV]: 'k' },
      stdio: ['ignore', out, out],
    });
    closeSync(out);
  });

  after(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGTERM');
    await llm?.close();
    if (config) await stopServer(config);
  });

  it('exports every good line and the CLI summary names every skipped kind with its count', () => {
    const r = phase5('--json', 'export', '--corpus-path', index.corpus, '--index-path', index.index);
    expect(r.code, r.stderr).to.equal(0);
    exportId = r.workflowId!;
    const exported = records(path.join(dir, 'results', 'arms', 'rag', 'inference_input.jsonl'));
    expect(exported.map((x) => x.sample_id)).to.deep.equal(['book/001', 'book/002', 'book/003', 'L1', 'L2', 'L9']);
    const lines = r.stderr.split('\n');
    expect(lines, r.stderr).to.include('export skipped 12 input line(s)/file(s) in 2 dataset(s):');
    const book = lines.find((l) => l.startsWith('  book — '));
    expect(book, r.stderr).to.equal(
      '  book — 2 gold file without OCR file (007.gt.txt, 008.gt.txt), 1 OCR file without gold file (009.png.rec.txt), ' +
        '1 unreadable / not UTF-8 (004.gt.txt (not valid UTF-8)), 2 empty gold text (005.gt.txt, 006.gt.txt)',
    );
    const jsonl = lines.find((l) => l.startsWith('  lines — '));
    const file = path.join(dir, 'lines.jsonl'); // outside the cwd: printed as is
    expect(jsonl, r.stderr).to.equal(
      `  lines — 1 unreadable / not UTF-8 (${file}:7), 1 empty gold text (${file}:8), 3 invalid line (${file}:3, :4, :5), 1 duplicate sample_id (${file}:6)`,
    );
    // The result carries the same counts; skipped.json has them for the report.
    const result = JSON.parse(r.stdout).result;
    expect(result.merged.skipped.book.emptyGt).to.deep.equal({ count: 2, examples: ['005.gt.txt', '006.gt.txt'] });
    const skippedJson = JSON.parse(readFileSync(path.join(path.dirname(result.merged.path), 'skipped.json'), 'utf8')); // beside the export
    expect(skippedJson).to.deep.equal(result.merged.skipped);
    expect(skippedJson.lines.badLines.count).to.equal(3);
  });

  it('phase5 status shows the skips of the finished export', () => {
    const s = phase5('status', exportId);
    expect(s.code, s.stderr).to.equal(0);
    expect(s.stdout).to.contain(`${exportId}: COMPLETED`);
    expect(s.stdout).to.contain('export skipped 12 input line(s)/file(s) in 2 dataset(s):');
    expect(s.stdout).to.contain('  lines — 1 unreadable / not UTF-8');
  });

  it("the worker logs each dataset's problems once (the plan, not every shard)", () => {
    const log = readFileSync(workerLog, 'utf8');
    expect(log.split('dataset book: 6 problem(s) counted and skipped').length - 1, log).to.equal(1);
    expect(log.split('dataset lines: 6 problem(s) counted and skipped').length - 1, log).to.equal(1);
  });

  it('phase5 infer --limit 2 --datasets lines corrects only the first 2 lines of that dataset', async () => {
    const r = await phase5Async('infer', '--limit', '2', '--datasets', 'lines');
    expect(r.code, r.stderr).to.equal(0);
    const corrections = records(path.join(dir, 'results', 'arms', 'rag', 'corrections.jsonl'));
    expect(corrections.map((c) => c.sample_id)).to.deep.equal(['L1', 'L2']);
    expect(llm.requests.filter((q) => q.method === 'POST')).to.have.length(2); // the worker's start-up check also GETs /models
    // Another limit is another run (another workflow id), which corrects one more line.
    const more = await phase5Async('infer', '--limit', '3', '--datasets', 'lines');
    expect(more.code, more.stderr).to.equal(0);
    expect(more.started, more.stderr).to.equal(true);
    expect(more.workflowId).to.not.equal(r.workflowId);
    expect(records(path.join(dir, 'results', 'arms', 'rag', 'corrections.jsonl')).map((c) => c.sample_id)).to.deep.equal([
      'L1',
      'L2',
      'L9',
    ]);
    expect(existsSync(path.join(dir, 'results', 'arms', 'zero_shot', 'corrections.jsonl')), 'zero_shot not configured').to.equal(false);
  });
});
