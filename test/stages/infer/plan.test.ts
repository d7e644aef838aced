/**
 * The infer plan's selection: `--limit N` keeps the first N distinct lines of each dataset, as a single run does;
 * a shard's lines are read back by their offsets.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readPlannedIds, readPlannedRows, writePlan } from '../../../src/stages/infer/plan';
import { inferenceInputRecord } from '../../helpers/records';

describe('infer plan selection', () => {
  let tmp: string;
  let input: string;
  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'infer-plan-'));
    input = path.join(tmp, 'inference_input.jsonl');
    const ids = [...['a', 'b'].flatMap((d) => Array.from({ length: 7 }, (_, i) => [d, `${d}/${i}`]))];
    writeFileSync(input, ids.map(([d, id]) => JSON.stringify(inferenceInputRecord(id, d))).join('\n') + '\n');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('--limit 5 keeps 5 lines of each dataset (not 5 offset/length entries)', async () => {
    const plan = await writePlan(input, { limit: 5 });
    expect(plan.datasets).to.deep.equal([
      { dataset: 'a', lines: 5 },
      { dataset: 'b', lines: 5 },
    ]);
    expect(plan.lines).to.equal(10);
  });

  it('without a limit every line is planned', async () => {
    expect((await writePlan(input, {})).datasets.map((d) => d.lines)).to.deep.equal([7, 7]);
  });

  it("reads a dataset's lines [start, end) back, interleaved with another dataset's and of different lengths", async () => {
    const mixed = path.join(tmp, 'mixed.jsonl');
    const records = Array.from({ length: 40 }, (_, i) => ({
      ...inferenceInputRecord(`${i % 3 ? 'a' : 'b'}/${i}`, i % 3 ? 'a' : 'b'),
      ocr_text: 'قال '.repeat(1 + ((i * 37) % 500)),
    }));
    writeFileSync(mixed, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const plan = await writePlan(mixed, {});
    const a = records.filter((r) => r.dataset === 'a');
    expect(readPlannedIds(plan, 'a', 5, 12)).to.deep.equal(a.slice(5, 12).map((r) => r.sample_id));
    expect(readPlannedRows(plan, 'a', 5, 12).map((r) => r.ocr_text)).to.deep.equal(a.slice(5, 12).map((r) => r.ocr_text));
    // The last shard ends past the dataset's end; a start past it reads nothing.
    expect(readPlannedIds(plan, 'b', 10, 20)).to.deep.equal(
      records
        .filter((r) => r.dataset === 'b')
        .slice(10)
        .map((r) => r.sample_id),
    );
    expect(readPlannedIds(plan, 'b', 20, 30)).to.deep.equal([]);
  });

  it('names the input, the byte offset and the field of a record that fails validation', async () => {
    const bad = path.join(tmp, 'bad.jsonl');
    const second = JSON.stringify({ ...inferenceInputRecord('x/1'), retrieved_k: 'two' });
    const first = JSON.stringify(inferenceInputRecord('x/0'));
    writeFileSync(bad, `${first}\n${second}\n`);
    const plan = await writePlan(bad, {});
    expect(readPlannedIds(plan, 'd', 0, 2)).to.deep.equal(['x/0', 'x/1']);
    expect(() => readPlannedRows(plan, 'd', 0, 2))
      .to.throw(`${bad} (byte ${Buffer.byteLength(first) + 1}, d): `)
      .and.to.match(/retrieved_k/);
  });
});
