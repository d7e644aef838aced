/**
 * `--batch-out` then `--batch-in` (src/stages/batch/): the requests are the ones infer sends online (the simulated
 * box records both), the records made from the batch answers equal the online run's (latency aside), and each
 * kind of bad output — a truncated file, a line of another study, a duplicate custom_id, an error line, an arm
 * whose request changed — is counted in one line while the good lines are all imported. A run whose failed, error
 * and missing lines are over `infer.max_failed_share` fails as the online stage does, its imported lines kept.
 */
import { expect } from 'chai';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import type { Config } from '../../../src/config/schema';
import { createBackend } from '../../../src/llm';
import { optionsFrom, run } from '../../../src/stages/infer/infer';
import { batchIn } from '../../../src/stages/batch/batch-in';
import { batchOut } from '../../../src/stages/batch/batch-out';
import { InferFailedError } from '../../../src/stages/infer/failures';
import { studyPlan } from '../../../src/stages/study/plan';
import { answerAll, forwardTo, outputLine } from '../../helpers/batch-answer';
import { inferenceInputRecord } from '../../helpers/records';
import { startSimLlmServer, type SimLlmServer } from '../../helpers/sim-llm-server';

const IDS = ['كتاب', 'قال', 'ـعلى', 'حتى', 'الى'];
const LIMITS = { maxLines: 4, maxBytes: 1 << 20 };

function studyConfig(url: string, root: string, arms: unknown[] = ARMS): Config {
  return parseConfig(
    {
      run_name: 'batch-test',
      paths: { results_dir: root },
      infer: {
        backend: 'openai',
        max_failed_share: 0.5,
        openai: { base_url: url, model: 'sim', api_key_env: 'BATCH_TEST_KEY', adaptive_concurrency: false, concurrency: 2 },
      },
      study: { arms },
    },
    'batch-test.yaml',
    { env: {} },
  );
}

const ARMS = [
  { name: 'zs', prompt: 'zero_shot', replicates: 2 },
  { name: 'ragarm', prompt: 'rag', decoding: { max_tokens: 64 } },
];

function writeInputs(config: Config): void {
  const rows = IDS.map((id, i) => JSON.stringify(inferenceInputRecord(id, i < 3 ? 'a' : 'b')));
  for (const a of studyPlan(config, {}).arms) {
    mkdirSync(path.dirname(a.input), { recursive: true });
    writeFileSync(a.input, rows.join('\n') + '\n');
  }
}

/** Every record of every run's corrections, keyed `<file>:<sample_id>`, without the latency (a batch has none). */
function records(root: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'corrections.jsonl')
        for (const line of readFileSync(p, 'utf8').split('\n').filter(Boolean)) {
          const { latency_ms: _l, ...r } = JSON.parse(line) as Record<string, unknown>;
          out.set(`${path.relative(root, p)}:${String(r.sample_id)}`, r);
        }
    }
  };
  walk(path.join(root, 'arms'));
  return out;
}

/** The outputs of every batch input file, answered by the box. */
async function answerSet(dir: string, sim: SimLlmServer): Promise<string[]> {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'batch_manifest.json'), 'utf8')) as { files: { file: string }[] };
  const outs: string[] = [];
  for (const f of manifest.files) {
    const out = path.join(dir, `${f.file}.out`);
    writeFileSync(out, await answerAll(readFileSync(path.join(dir, f.file), 'utf8'), forwardTo(sim.url)));
    outs.push(out);
  }
  return outs;
}

/** A file's non-empty lines. */
const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean);

/** A study of the two arms in a new folder: its batch files written and answered by the box (zs r0, zs r1, ragarm). */
async function answeredStudy(prefix: string, sim: SimLlmServer) {
  const config = studyConfig(sim.url, mkdtempSync(path.join(os.tmpdir(), prefix)));
  writeInputs(config);
  const dir = path.join(config.paths.results_dir, 'batch');
  await batchOut(optionsFrom(config, {}), dir, { maxLines: 100, maxBytes: 1 << 20 });
  const [zs0, zs1, rag] = await answerSet(dir, sim);
  return { config, dir, zs0, zs1, rag };
}

describe('stages/batch: --batch-out and --batch-in', function () {
  this.timeout(60_000);
  let sim: SimLlmServer;
  before(async () => {
    process.env.BATCH_TEST_KEY = 'test-key';
    sim = await startSimLlmServer({
      reasoning: (ocr) => (ocr === 'قال' ? 'thinking' : null),
      truncate: (ocr) => ocr === 'حتى',
      servedModel: 'sim-served',
    });
  });
  after(() => sim.close());

  it('the batch requests are the online ones, and the records made from the answers equal the online records', async () => {
    const online = studyConfig(sim.url, mkdtempSync(path.join(os.tmpdir(), 'batch-online-')));
    writeInputs(online);
    const before = sim.requests().length;
    await run(optionsFrom(online, {}), {}, createBackend);
    const onlineBodies = sim
      .requests()
      .slice(before)
      .map((b) => JSON.stringify(b));

    const config = studyConfig(sim.url, mkdtempSync(path.join(os.tmpdir(), 'batch-')));
    writeInputs(config);
    const dir = path.join(config.paths.results_dir, 'batch');
    const out = await batchOut(optionsFrom(config, {}), dir, LIMITS);
    // 3 runs × 5 lines, 4 lines a file: 2 files per run.
    expect(out.files.map((f) => [f.file, f.lines])).to.deep.equal([
      ['zs.r0.0000.jsonl', 4],
      ['zs.r0.0001.jsonl', 1],
      ['zs.r1.0000.jsonl', 4],
      ['zs.r1.0001.jsonl', 1],
      ['ragarm.r0.0000.jsonl', 4],
      ['ragarm.r0.0001.jsonl', 1],
    ]);
    const batchBodies = out.files.flatMap((f) =>
      readFileSync(path.join(dir, f.file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.stringify((JSON.parse(l) as { body: unknown }).body)),
    );
    expect([...batchBodies].sort()).to.deep.equal([...onlineBodies].sort());
    const study = JSON.parse(readFileSync(path.join(config.paths.results_dir, 'study_manifest.json'), 'utf8')) as {
      batch: { sha256: string };
    };
    expect(study.batch.sha256).to.equal(out.sha256);

    const outs = await answerSet(dir, sim);
    const result = await batchIn(optionsFrom(config, {}), outs.reverse());
    expect(result.summary).to.equal('batch-in: 15 line(s) imported; nothing left out');
    const got = records(config.paths.results_dir);
    expect([...got.keys()].sort()).to.deep.equal([...records(online.paths.results_dir).keys()].sort());
    for (const [k, r] of records(online.paths.results_dir)) expect(got.get(k), k).to.deep.equal(r);
    const truncated = got.get('arms/zs/corrections.jsonl:حتى')!;
    expect((truncated.error as { reason: string }).reason).to.equal('truncated');
    expect(got.get('arms/zs/corrections.jsonl:قال')).to.include({ reasoning: 'thinking', served_model: 'sim-served' });
    const raw = readFileSync(path.join(config.paths.results_dir, 'arms', 'zs', 'corrections.jsonl'), 'utf8');
    expect(raw).to.include('"latency_ms":null');

    // A second --batch-out asks for nothing: every line is done.
    const again = await batchOut(optionsFrom(config, {}), dir, LIMITS);
    expect([again.files.length, again.alreadyDone]).to.deep.equal([0, 15]);
  });

  it('bad output lines are each counted in one line, nothing written for them, every good line imported', async () => {
    const { config, dir, zs0, zs1, rag } = await answeredStudy('batch-bad-', sim);
    // zs r0: the last line cut mid-way (a truncated download) and the first repeated (a duplicate custom_id).
    const z0 = lines(zs0);
    writeFileSync(zs0, [...z0.slice(0, 4), z0[4].slice(0, 40)].join('\n'));
    const dup = path.join(dir, 'dup.out');
    writeFileSync(dup, z0[0] + '\n');
    // zs r1: one error line, one of another study.
    const z1 = lines(zs1);
    const id1 = (JSON.parse(z1[1]) as { custom_id: string }).custom_id;
    const other = id1.replace(/^[0-9a-f]{12}/, '000000000000');
    writeFileSync(zs1, [z1[0], outputLine(id1, null, { code: 'server_error', message: 'boom' }).trim(), ...z1.slice(2)].join('\n') + '\n');
    appendFileSync(zs1, outputLine(other, { status: 200, body: {} }));
    // ragarm: its request changed since --batch-out (another max_tokens): the file answers another arm's requests.
    const changed = studyConfig(sim.url, config.paths.results_dir, [ARMS[0], { ...ARMS[1], decoding: { max_tokens: 32 } }]);
    const result = await batchIn(optionsFrom(changed, {}), [zs0, dup, zs1, rag]);
    expect(result.summary).to.match(/^batch-in: 8 line\(s\) imported; left out: /);
    const counts = Object.fromEntries(Object.entries(result.skipped).map(([k, v]) => [k, v.count]));
    expect(counts).to.deep.equal({
      'unreadable line (truncated file?)': 1,
      'duplicate custom_id': 1,
      'error line': 1,
      'line of another study': 1,
      'wrong arm (not in this run, or its request changed since --batch-out)': 5,
      'missing from the outputs': 1,
    });
    expect(result.summary).to.include('1 unreadable line (truncated file?) (zs.r0.0000.jsonl.out:5)');
    expect(result.runs.zs.written).to.equal(4);
    expect(result.runs['zs#1'].written).to.equal(4);
    expect(result.runs.ragarm.written).to.equal(0);
    // The lines left out are asked for again by the next --batch-out; the imported ones stay.
    const again = await batchOut(optionsFrom(changed, {}), dir, { maxLines: 100, maxBytes: 1 << 20 });
    expect(again.files.map((f) => [f.file, f.lines])).to.deep.equal([
      ['zs.r0.0000.jsonl', 1],
      ['zs.r1.0000.jsonl', 1],
      ['ragarm.r0.0000.jsonl', 5],
    ]);
  });
  it('a run over infer.max_failed_share fails as online, naming the run, its counts and --batch-out; under it passes', async () => {
    const { config, dir, zs0, zs1, rag } = await answeredStudy('batch-share-', sim);
    // zs r0: two answers held back (missing) besides the truncated حتى: 3 of 5 failed, over 50%.
    const z0 = lines(zs0);
    const held = path.join(dir, 'held.out');
    writeFileSync(held, [z0[0], z0[1]].join('\n') + '\n');
    writeFileSync(zs0, z0.slice(2).join('\n') + '\n');
    // zs r1: one error line besides the truncated حتى: 2 of 5, within the share.
    const z1 = lines(zs1);
    const id1 = (JSON.parse(z1[0]) as { custom_id: string }).custom_id;
    writeFileSync(zs1, [outputLine(id1, null, { code: 'server_error', message: 'boom' }).trim(), ...z1.slice(1)].join('\n') + '\n');
    const err = await batchIn(optionsFrom(config, {}), [zs0, zs1, rag]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(InferFailedError);
    expect((err as Error).message).to.equal(
      'infer zs: 3 of 5 lines failed (60%, over infer.max_failed_share 50%): 2 missing, 1 truncated — first: حتى: truncated — the answer was cut at max_tokens ' +
        '(finish_reason "length", 1 completion tokens) — raise decoding.max_tokens; ' +
        'fix the cause, then `phase5 infer --batch-out DIR` asks for the lines without a record again ' +
        '(lines already corrected are left out; `--retry-failed` asks for the failed ones too)',
    );
    // The imported lines stay written, every run's.
    const got = records(config.paths.results_dir);
    const count = (file: string) => [...got.keys()].filter((k) => k.startsWith(`${file}:`)).length;
    expect([
      count('arms/zs/corrections.jsonl'),
      count('arms/zs/replicates/1/corrections.jsonl'),
      count('arms/ragarm/corrections.jsonl'),
    ]).to.deep.equal([3, 4, 5]);
    // The held-back answers imported: zs has 1 failed of 5 and zs#1 (its error line missing now) 2 of 5 — within it.
    const result = await batchIn(optionsFrom(config, {}), [held]);
    expect(result.summary).to.equal(`batch-in: 2 line(s) imported; left out: 1 missing from the outputs (zs#1:${IDS[0]})`);
    expect(result.runs.zs.written).to.equal(2);
  });
});
