/** The infer plan's selection: `--limit N` keeps the first N distinct lines of each dataset, as a single run does. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writePlan } from '../../src/stages/infer-plan';
import { inferenceInputRecord } from '../helpers/records';

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
});
