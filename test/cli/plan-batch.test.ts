/**
 * `phase5 plan --batch` (bin/cli/plan-batch.ts): per arm × replicate, the files, lines and bytes it plans equal
 * those `phase5 infer --batch-out` then writes for the same config — read from the real files, cut at the line and
 * at the byte limit — with the lines already corrected left out, and the cost at the batch price from the
 * prompt tokens and every written line's max_tokens.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { batchSettings } from '../../src/stages/batch/batch-client';
import { batchOut } from '../../src/stages/batch/batch-out';
import { optionsFrom } from '../../src/stages/infer/infer';
import { studyPlan } from '../../src/stages/study/plan';
import { batchCost } from '../../bin/cli/batch-summary';
import { batchPlanLines, computeBatchPlan } from '../../bin/cli/plan-batch';
import { inferenceInputRecord } from '../helpers/records';
import { startSimLlmServer, type SimLlmServer } from '../helpers/sim-llm-server';

const IDS = ['كتاب', 'قال', 'ـعلى', 'حتى', 'الى', 'ثم', 'إلى'];
const PRICE = { input: 3, output: 12, batch_discount: 0.5 };

function studyConfig(url: string, root: string, batch: { max_lines: number; max_bytes: number }): Config {
  return parseConfig(
    {
      run_name: 'plan-batch-test',
      paths: { results_dir: root },
      infer: {
        backend: 'openai',
        price: PRICE,
        batch,
        openai: { base_url: url, model: 'sim', api_key_env: 'PLAN_BATCH_KEY', max_tokens: 200 },
      },
      study: {
        arms: [
          { name: 'zs', prompt: 'zero_shot', replicates: 2 },
          { name: 'ragarm', prompt: 'rag', decoding: { max_tokens: 64 } },
        ],
      },
    },
    'plan-batch-test.yaml',
    { env: {} },
  );
}

/** The export's lines for every arm, and two of zs r0's lines already corrected (one of them failed). */
function writeRun(config: Config): void {
  const rows = IDS.map((id, i) => JSON.stringify(inferenceInputRecord(id, i < 4 ? 'a' : 'b')));
  for (const a of studyPlan(config, {}).arms) {
    mkdirSync(path.dirname(a.input), { recursive: true });
    writeFileSync(a.input, rows.join('\n') + '\n');
  }
  const zs = studyPlan(config, {}).arms.find((a) => a.name === 'zs')!;
  const done = [
    { sample_id: IDS[1], dataset: 'a', corrected_text: IDS[1], error: null },
    { sample_id: IDS[5], dataset: 'b', corrected_text: IDS[5], error: { reason: 'server_error', message: 'boom' } },
  ];
  writeFileSync(zs.output, done.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** What --batch-out wrote, read from the files themselves: per file its lines, bytes and max_tokens summed. */
function written(dir: string) {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'batch_manifest.json'), 'utf8')) as { files: { file: string }[] };
  return manifest.files.map(({ file }) => {
    const lines = readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean);
    const maxTokens = lines.reduce((n, l) => n + (JSON.parse(l) as { body: { max_tokens: number } }).body.max_tokens, 0);
    return { file, lines: lines.length, bytes: statSync(path.join(dir, file)).size, maxTokens };
  });
}

describe('phase5 plan --batch: the files --batch-out writes, before it writes them', function () {
  this.timeout(60_000);
  let sim: SimLlmServer;
  const roots: string[] = [];
  before(async () => {
    process.env.PLAN_BATCH_KEY = 'test-key';
    sim = await startSimLlmServer({});
  });
  after(async () => {
    await sim.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  async function planAndWrite(batch: { max_lines: number; max_bytes: number }) {
    const root = mkdtempSync(path.join(os.tmpdir(), 'plan-batch-'));
    roots.push(root);
    const config = studyConfig(sim.url, root, batch);
    writeRun(config);
    const plan = await computeBatchPlan(config, {}, () => undefined);
    const dir = path.join(root, 'batch');
    const out = await batchOut(optionsFrom(config, {}), dir, batchSettings(config).limits);
    return { plan, out, files: written(dir) };
  }

  it('cut at max_lines: files, lines, bytes per run and in total are the written ones; corrected lines left out', async () => {
    const { plan, out, files } = await planAndWrite({ max_lines: 2, max_bytes: 1 << 20 });
    expect(plan.runs.flatMap((r) => r.files)).to.deep.equal(files.map(({ file, lines, bytes }) => ({ file, lines, bytes })));
    expect(plan.runs.map((r) => [r.arm, r.replicate, r.files.length, r.lines, r.already_done])).to.deep.equal([
      ['zs', 0, 3, 5, 2],
      ['zs', 1, 4, 7, 0],
      ['ragarm', 0, 4, 7, 0],
    ]);
    for (const r of plan.runs) {
      const mine = files.filter((f) => f.file.startsWith(`${r.arm}.r${r.replicate}.`));
      expect(r.bytes).to.equal(mine.reduce((n, f) => n + f.bytes, 0));
      expect(r.max_completion_tokens).to.equal(mine.reduce((n, f) => n + f.maxTokens, 0));
      expect(r.prompt_tokens).to.be.greaterThan(0);
      expect(r.cost).to.equal(batchCost(r.prompt_tokens, r.max_completion_tokens, PRICE));
    }
    const t = plan.totals;
    expect([t.files, t.lines, t.bytes, t.already_done]).to.deep.equal([
      files.length,
      files.reduce((n, f) => n + f.lines, 0),
      files.reduce((n, f) => n + f.bytes, 0),
      out.alreadyDone,
    ]);
    expect(t.cost).to.be.closeTo(
      plan.runs.reduce((n, r) => n + r.cost!, 0),
      1e-12,
    );
    const lines = batchPlanLines(plan);
    expect(lines[lines.length - 1 - plan.notes.length]).to.match(
      new RegExp(`^total: 11 file\\(s\\), 19 lines, ${t.bytes.toLocaleString('en')} bytes \\(2 already done; `),
    );
  });

  it('cut at max_bytes: the byte limit splits as --batch-out splits', async () => {
    const probe = await planAndWrite({ max_lines: 1000, max_bytes: 1 << 20 });
    const largest = Math.max(...probe.plan.runs.flatMap((r) => r.files.map((f) => f.bytes / f.lines)));
    // Two of the longest lines do not fit in one part; shorter ones may share one.
    const { plan, files } = await planAndWrite({ max_lines: 1000, max_bytes: Math.ceil(largest * 1.5) });
    expect(plan.runs.flatMap((r) => r.files)).to.deep.equal(files.map(({ file, lines, bytes }) => ({ file, lines, bytes })));
    expect(files.length).to.be.greaterThan(3);
  });
});
