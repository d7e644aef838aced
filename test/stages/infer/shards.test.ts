/**
 * A parts dir made for a new shard size is seeded from the arm's existing output (finished lines are not redone):
 * each planned line goes to its shard's part, lines outside the plan stay where they are, and a merge of the seeded
 * parts gives back every line, in input order, with the others in front.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import * as inference from '../../../src/stages/infer/infer';
import { mergeArm, partFile, planInfer } from '../../../src/stages/infer/shards';
import { inferenceInputRecord } from '../../helpers/records';

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const corrected = (id: string, dataset: string) =>
  JSON.stringify({ sample_id: id, dataset, prompt_type: 'rag', ocr_text: id, gt_text: id, corrected_text: `${id} ✓`, error: null });

describe('stages/infer-shards: seeding parts from an existing output', () => {
  let results: string;
  before(() => (results = mkdtempSync(path.join(os.tmpdir(), 'infer-shards-'))));
  after(() => rmSync(results, { recursive: true, force: true }));

  it('puts each planned line of the output into its part; the merge of the seeded parts returns them in input order', async () => {
    const rag = path.join(results, 'arms', 'rag');
    mkdirSync(rag, { recursive: true });
    // Datasets a (7 lines) and b (5 lines), interleaved in the input.
    const input = Array.from({ length: 12 }, (_, i) => (i % 2 && i < 10 ? ['b', `b/${(i - 1) / 2}`] : ['a', `a/${i}`]));
    writeFileSync(
      path.join(rag, 'inference_input.jsonl'),
      input.map(([d, id]) => JSON.stringify(inferenceInputRecord(id, d))).join('\n') + '\n',
    );
    const dataset = path.join(results, 'd.jsonl');
    writeFileSync(dataset, '');
    const config = parseConfig(
      { paths: { results_dir: results }, datasets: { d: { type: 'jsonl', path: dataset } }, infer: { arms: ['rag'], shard_size: 3 } },
      'infer-shards test',
      { env: {} },
    );
    const options = inference.optionsFrom(config, {});
    // The output of an earlier run: every planned line, out of input order, and one line of a dataset no longer in the input.
    const finished = [...input].reverse().map(([d, id]) => corrected(id, d));
    const elsewhere = corrected('gone/1', 'gone');
    const output = options.arms[0].output;
    mkdirSync(path.dirname(output), { recursive: true });
    writeFileSync(output, [finished[3], elsewhere, ...finished.filter((_, i) => i !== 3)].join('\n') + '\n');

    const [arm] = await planInfer(options);
    const inOutputOrder = (ids: string[]) => lines(output).filter((l) => ids.includes(JSON.parse(l).sample_id));
    const a = input.filter(([d]) => d === 'a').map(([, id]) => id);
    const b = input.filter(([d]) => d === 'b').map(([, id]) => id);
    for (const [name, ids] of [
      ['a', a],
      ['b', b],
    ] as const) {
      for (let shard = 0; shard * 3 < ids.length; shard++) {
        expect(lines(partFile(arm.output, name, shard)), `${name}#${shard}`).to.deep.equal(
          inOutputOrder(ids.slice(shard * 3, shard * 3 + 3)),
        );
      }
    }

    const merged = await mergeArm(options, arm);
    expect(merged).to.include({ records: 12, failed: 0 });
    expect(lines(output)).to.deep.equal([elsewhere, ...input.map(([d, id]) => corrected(id, d))]);
  });
});
