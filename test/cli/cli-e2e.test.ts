/**
 * The CLI end to end, with real processes: a Temporal dev server on its own ports and db file, one worker
 * child process (`phase5 worker`) on queues of its own, and every command as a child process
 * (`phase5 --config X export …`). Two things are proved here:
 *
 *   run identity — a command whose inputs differ from a finished run's does the work again (other
 *   --results-dir, another --import file, a changed config value); the identical command attaches to / reports
 *   the finished run;
 *   errors reach the user — an activity's error is printed as its root cause in one line
 *   (`phase5: export failed: …`, never "Workflow execution failed") and the activity ran exactly once
 *   (non-retryable, although the config allows 3 attempts).
 *
 * The index is the bad-input suite's MiniLM index (built once in-process) passed with --corpus-path/--index-path.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, statSync, truncateSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import { REPO_ROOT, FIXTURES } from '../helpers/shared-data';
import { baseRaw, E5_DIR, MINILM_DIR, requireModel, sharedPaths } from '../bad-input/helpers';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());

/**
 * Correction rows for the lines of results-a's export (an import must name lines of the arm's export): the
 * fixture import's fields, with each exported line's sample_id, dataset and texts, corrected to the gold.
 */
function exportedImportRows(dir: string): string[] {
  const template = JSON.parse(lines(path.join(FIXTURES, 'llm', 'corrections-import.jsonl'))[0]) as Record<string, unknown>;
  const exported = lines(path.join(dir, 'results-a', 'arms', 'rag', 'inference_input.jsonl')).map(
    (l) => JSON.parse(l) as Record<string, string>,
  );
  return exported.map((e) =>
    JSON.stringify({
      ...template,
      sample_id: e.sample_id,
      dataset: e.dataset,
      ocr_text: e.ocr_text,
      gt_text: e.gt_text,
      corrected_text: e.gt_text,
      raw_output: e.gt_text,
    }),
  );
}

describe('phase5 CLI end to end (real server, worker process): run identity and errors', function () {
  this.timeout(300000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-e2e-'));
  let raw: Record<string, unknown>;
  let config: Config;
  let configFile: string;
  let index: { corpus: string; index: string };
  let worker: ChildProcess | undefined;
  let client: Client;
  let connection: Connection;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the raw config as loose YAML, patched by key
  function writeConfig(name: string, patch: (r: Record<string, any>) => void = () => {}): string {
    const r = structuredClone(raw) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    patch(r);
    const file = path.join(dir, name);
    writeFileSync(file, YAML.stringify(r));
    return file;
  }

  function phase5(file: string, ...args: string[]) {
    return phase5With({}, file, ...args);
  }

  /** A command as a child process: stdout and stderr are pipes (not a terminal), as in CI or `| tee`. */
  function phase5With(env: NodeJS.ProcessEnv, file: string, ...args: string[]) {
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', file, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120000,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'warn', PHASE5_LOG_FORMAT: '', CI: '1', ...env },
    });
    const workflowId = /(?:started|attached to the running) (phase5-\S+)|(phase5-\S+) already finished/.exec(r.stderr);
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, workflowId: workflowId?.[1] ?? workflowId?.[2] };
  }

  const exportArgs = () => ['export', '--corpus-path', index.corpus, '--index-path', index.index];

  /** The attempt of every activity in the workflow's history (its ActivityTaskStarted event carries the last attempt). */
  async function activityAttempts(workflowId: string): Promise<number[]> {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 0] : [],
    );
  }

  /** The failure contract: exit 1, the root cause in one `phase5:` line, no Temporal wrapper text, one attempt. */
  async function expectOneLineFailure(r: ReturnType<typeof phase5>, pattern: RegExp): Promise<string> {
    expect(r.code, r.stderr).to.equal(1);
    const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('phase5:'));
    expect(errorLines, r.stderr).to.have.length(1);
    expect(errorLines[0]).to.match(pattern);
    expect(r.stderr).to.not.contain('Workflow execution failed');
    expect(r.workflowId, r.stderr).to.be.a('string');
    // Every activity (the failing one included: the config allows 3 attempts) ran exactly once.
    const attempts = await activityAttempts(r.workflowId!);
    expect(attempts.length, 'activities ran').to.be.greaterThan(0);
    expect(attempts, 'no activity was retried (non-retryable)').to.satisfy((a: number[]) => a.every((n) => n === 1));
    return errorLines[0];
  }

  before(async function () {
    requireModel(this, MINILM_DIR);
    index = await sharedPaths();
    const [port, uiPort] = [await freePort(), await freePort()];
    const empty = path.join(dir, 'empty-book');
    mkdirSync(empty);
    writeFileSync(path.join(empty, 'manifest.txt'), 'not a dataset file\n');
    raw = {
      ...baseRaw(path.join(dir, 'results-a')),
      run_name: 'e2e',
      datasets: {
        demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') },
        gone: { type: 'jsonl', path: path.join(dir, 'no-such.jsonl') },
        empty: { type: 'paired_dir', path: empty },
      },
      temporal: {
        address: `127.0.0.1:${port}`,
        ui_port: uiPort,
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: `e2e-cpu-${port}`, gpu: `e2e-gpu-${port}` },
        retry: { maximum_attempts: 3, initial_interval: '200ms', maximum_interval: '1s' },
      },
    };
    configFile = writeConfig('config.yaml');
    config = loadConfig(configFile, { env: {} }).config;
    await startServer(config);
    connection = await Connection.connect({ address: config.temporal.address });
    client = new Client({ connection, namespace: config.temporal.namespace });
    worker = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'worker'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PHASE5_LOG_LEVEL: 'error' },
      stdio: 'ignore',
    });
  });

  after(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGTERM');
    await connection?.close();
    if (config) await stopServer(config);
  });

  describe('run identity', () => {
    let firstId: string;

    it('an export runs; the identical command reports the finished run', () => {
      const first = phase5(configFile, ...exportArgs(), '--datasets', 'demo');
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stderr).to.match(/started phase5-e2e-[0-9a-f]{8}-export/);
      firstId = first.workflowId!;
      expect(lines(path.join(dir, 'results-a', 'arms', 'rag', 'inference_input.jsonl'))).to.have.length(10);
      const again = phase5(configFile, ...exportArgs(), '--datasets', 'demo');
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stderr).to.contain(`${firstId} already finished`);
      const status = phase5(configFile, 'status', firstId);
      expect(status.code, status.stderr).to.equal(0);
      expect(status.stdout).to.contain(`${firstId}: COMPLETED`);
    });

    it('another --results-dir is a new run that writes there', () => {
      const other = path.join(dir, 'results-b');
      const r = phase5(configFile, '--results-dir', other, ...exportArgs(), '--datasets', 'demo');
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.match(/started phase5-e2e-[0-9a-f]{8}-export/);
      expect(r.workflowId).to.not.equal(firstId);
      expect(lines(path.join(other, 'arms', 'rag', 'inference_input.jsonl'))).to.have.length(10);
    });

    it('a changed config value is a new run with the new value applied', () => {
      const file = writeConfig('top2.yaml', (r) => (r.retrieval = { top_k: 2 }));
      const r = phase5(file, '--results-dir', path.join(dir, 'results-c'), ...exportArgs(), '--datasets', 'demo');
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.match(/started phase5-e2e-[0-9a-f]{8}-export/);
      const records = lines(path.join(dir, 'results-c', 'arms', 'rag', 'inference_input.jsonl')).map(
        (l) => JSON.parse(l) as { retrieved_k: number },
      );
      expect(Math.max(...records.map((x) => x.retrieved_k))).to.equal(2);
    });

    it('another --import file is imported; the same file again reports the finished run', () => {
      const unique = exportedImportRows(dir);
      const a = path.join(dir, 'import-a.jsonl');
      const b = path.join(dir, 'import-b.jsonl');
      writeFileSync(a, unique.slice(0, 2).join('\n') + '\n');
      writeFileSync(b, unique.slice(0, 1).join('\n') + '\n');
      const corrections = path.join(dir, 'results-a', 'arms', 'rag', 'corrections.jsonl');
      const first = phase5(configFile, 'infer', '--import', a);
      expect(first.code, first.stderr).to.equal(0);
      expect(lines(corrections)).to.have.length(2);
      const second = phase5(configFile, 'infer', '--import', b);
      expect(second.code, second.stderr).to.equal(0);
      expect(second.stderr).to.match(/started phase5-e2e-[0-9a-f]{8}-infer/);
      expect(second.workflowId).to.not.equal(first.workflowId);
      expect(lines(corrections)).to.have.length(1);
      const same = phase5(configFile, 'infer', '--import', b);
      expect(same.stderr).to.contain(`${second.workflowId} already finished`);
    });
  });

  describe('output without a terminal: plain lines by default, JSON on request', () => {
    const jsonLines = (text: string) => text.split('\n').filter((l) => /^\s*\{.*\}\s*$/.test(l));
    const query = () => (JSON.parse(lines(path.join(FIXTURES, 'demo', 'ocr.jsonl'))[0]) as { ocr_text: string }).ocr_text;
    const retrieveArgs = () => ['retrieve', query(), '--k', '2', '--corpus-path', index.corpus, '--index-path', index.index];

    it('a stage command prints plain lines and a human summary; --json prints the result document', () => {
      const r = phase5With({ PHASE5_LOG_LEVEL: 'info' }, configFile, ...exportArgs(), '--datasets', 'demo', '--force');
      expect(r.code, r.stderr).to.equal(0);
      expect(jsonLines(r.stdout + r.stderr), r.stdout + r.stderr).to.deep.equal([]);
      expect(r.stderr).to.match(/^started phase5-e2e-[0-9a-f]{8}-export — watch it at http/m);
      expect(r.stdout).to.match(/^export: 10 records in 3 shards \(demo 10\); 2 without retrieval/m);
      expect(r.stdout).to.contain(path.join(dir, 'results-a', 'arms', 'rag', 'inference_input.jsonl'));
      const json = phase5(configFile, ...exportArgs(), '--datasets', 'demo', '--json');
      expect(json.code, json.stderr).to.equal(0);
      const doc = JSON.parse(json.stdout) as { workflowId: string; result: { merged: { records: number } } };
      expect(doc.workflowId).to.equal(r.workflowId);
      expect(doc.result.merged.records).to.equal(10);
    });

    it('retrieve: plain log lines before its hits; --log-format json (or PHASE5_LOG_FORMAT=json) gives pino lines', () => {
      const human = phase5With({ PHASE5_LOG_LEVEL: 'info' }, configFile, ...retrieveArgs());
      expect(human.code, human.stderr).to.equal(0);
      expect(jsonLines(human.stdout + human.stderr), human.stderr).to.deep.equal([]);
      expect(human.stderr.split('\n')).to.include('index loaded');
      expect(human.stdout).to.match(/^1\. \d\.\d{4} {2}\S+/);
      for (const r of [
        phase5With({ PHASE5_LOG_LEVEL: 'info' }, configFile, '--log-format', 'json', ...retrieveArgs()),
        phase5With({ PHASE5_LOG_LEVEL: 'info', PHASE5_LOG_FORMAT: 'json' }, configFile, ...retrieveArgs()),
      ]) {
        expect(r.code, r.stderr).to.equal(0);
        const records = jsonLines(r.stderr).map((l) => JSON.parse(l) as { msg: string; level: number });
        expect(records.map((x) => x.msg)).to.include('index loaded');
        expect(r.stdout).to.match(/^1\. /);
      }
      const json = phase5(configFile, ...retrieveArgs(), '--json');
      expect((JSON.parse(json.stdout) as unknown[]).length).to.equal(2);
    });
  });

  describe('errors reach the user in one line, without retries', () => {
    it('a dataset path that does not exist', async () => {
      const r = phase5(configFile, ...exportArgs(), '--datasets', 'gone');
      await expectOneLineFailure(r, new RegExp(`^phase5: export failed: dataset gone: ${path.join(dir, 'no-such.jsonl')} not found`));
    });

    it('an empty dataset folder names the folder and the suffixes', async () => {
      const r = phase5(configFile, ...exportArgs(), '--datasets', 'empty');
      await expectOneLineFailure(
        r,
        /^phase5: export failed: dataset "empty": no OCR\/gold pairs in .*empty-book \(looked for <name>\.png\.rec\.txt beside <name>\.gt\.txt/,
      );
    });

    it('an index built with another model', async function () {
      requireModel(this, E5_DIR);
      const file = writeConfig('e5.yaml', (r) => {
        r.rag = { embedding_model: 'intfloat/multilingual-e5-small', embedding: { model_dir: E5_DIR, max_length: 128, threads: 2 } };
      });
      const r = phase5(file, '--results-dir', path.join(dir, 'results-e5'), ...exportArgs(), '--datasets', 'demo');
      await expectOneLineFailure(
        r,
        /^phase5: export failed: index at .*index-[0-9a-f]{16}\.usearch was built with .* — rebuild with `phase5 build --force`/,
      );
    });

    it('a truncated index file', async () => {
      const copy = path.join(dir, 'truncated');
      cpSync(path.dirname(index.index), copy, { recursive: true });
      const truncated = path.join(copy, path.basename(index.index));
      truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
      const r = phase5(
        configFile,
        '--results-dir',
        path.join(dir, 'results-t'),
        'export',
        '--corpus-path',
        path.join(copy, 'corpus.jsonl'),
        '--index-path',
        truncated,
        '--datasets',
        'demo',
      );
      await expectOneLineFailure(
        r,
        new RegExp(`^phase5: export failed: index file ${truncated} is unusable: .* — rebuild with \`phase5 build --force\``),
      );
    });

    it('a results dir that is a file', async () => {
      const file = path.join(dir, 'a-file');
      writeFileSync(file, 'x');
      const r = phase5(configFile, '--results-dir', file, ...exportArgs(), '--datasets', 'demo');
      await expectOneLineFailure(r, new RegExp(`^phase5: export failed: results dir ${file} is a file, not a directory`));
    });

    it('an --import file with a row missing corrected_text, invalid JSON and a duplicate row; --verbose adds the chain', async () => {
      const bad = path.join(dir, 'import-bad.jsonl');
      const good = exportedImportRows(dir)[0];
      const row = JSON.parse(good) as Record<string, unknown>;
      delete row.corrected_text;
      writeFileSync(bad, [good, JSON.stringify(row), '{"sample_id": ', good].join('\n') + '\n');
      const r = phase5(configFile, 'infer', '--import', bad);
      const line = await expectOneLineFailure(r, /^phase5: infer failed: import rejected — /);
      // Grouped by kind, each with its line (src/util/line-problems.ts).
      expect(line).to.match(/import-bad\.jsonl: 4 line\(s\), /);
      expect(line).to.match(/1 line lacks corrected_text \(line 2\) — add it/);
      expect(line).to.match(/1 line is not valid JSON \(line 3: /);
      expect(line).to.match(/1 line repeats a sample_id \(line 4: /);
      const verbose = phase5(configFile, '--verbose', 'infer', '--import', bad);
      expect(verbose.code).to.equal(1);
      expect(verbose.stderr).to.contain('failure chain:');
      expect(verbose.stderr).to.match(/ActivityFailure: activity importCorrections failed/);
      expect(verbose.stderr).to.match(/ApplicationFailure UserInputError \(non-retryable\): import rejected/);
    });
  });
});
