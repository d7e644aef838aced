/**
 * The tidy table's probe columns (analysis/tidy/, analysis/probe/line-scores.ts) on the arms tree of ../arms-fixture.ts:
 * with study/memorisation.json and the probe's records, every arm row of model `m` carries its line's continuation CER
 * and `memorised`; a line the probe did not reach, and the shuffled texts and other models' records, leave them null;
 * without memorisation.json the table has no probe columns and its bytes do not depend on the probe folder.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { analyzeArms } from '../../../analysis/study/arms';
import type { ProbeRecord } from '../../../src/stages/probe/types';
import { writeArmsLinesTree } from '../arms-fixture';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const record = (over: Partial<ProbeRecord>): ProbeRecord => ({
  dataset: 'D1',
  model: 'm',
  kind: 'book',
  unit_id: 'l1',
  sample_ids: ['l1'],
  cluster: 0,
  rest_chars: 5,
  continuation: 'fghij',
  edits: 0,
  cer: 0,
  verbatim: true,
  likelihood: null,
  prompt_tokens: 3,
  completion_tokens: 4,
  ...over,
});

/** l1 continued almost verbatim (0.05), the window l2 + l3 not (0.4); a shuffled text and another model's D2 text. */
function writeProbe(root: string): void {
  const jsonl = (rs: ProbeRecord[]) => rs.map((r) => JSON.stringify(r)).join('\n') + '\n';
  mkdirSync(path.join(root, 'probe', 'm'), { recursive: true });
  mkdirSync(path.join(root, 'probe', 'other'), { recursive: true });
  writeFileSync(
    path.join(root, 'probe', 'm', 'D1.jsonl'),
    jsonl([
      record({ cer: 0.05, edits: 1, rest_chars: 20 }),
      record({ kind: 'shuffled', cer: 1, verbatim: false }),
      record({ unit_id: 'l2', sample_ids: ['l2', 'l3'], cer: 0.4, verbatim: false }),
    ]),
  );
  writeFileSync(
    path.join(root, 'probe', 'other', 'D2.jsonl'),
    jsonl([record({ model: 'other', dataset: 'D2', unit_id: 'm1', sample_ids: ['m1'] })]),
  );
}

const analyze = (root: string) =>
  analyzeArms({ resultsDir: root, baseline: 'zero_shot', bootstrap: { iterations: 20, seed: 1 }, permutations: 20 });
const parquet = (root: string) => path.join(root, 'study', 'lines.parquet');
const readRows = async (root: string) => (await parquetReadObjects({ file: await asyncBufferFromFile(parquet(root)) })) as Row[];

describe('analysis/tidy: the memorisation probe columns', function () {
  this.timeout(60000);
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'tidy-probe-'));
    writeArmsLinesTree(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('without memorisation.json: no probe columns, and the probe folder alone changes no byte', async () => {
    await analyze(root);
    const before = [readFileSync(parquet(root)), readFileSync(path.join(root, 'study', 'lines.csv.gz'))];
    const cols = Object.keys((await readRows(root))[0]);
    expect(cols).to.not.include('memorisation_cer');
    expect(cols).to.not.include('memorised');
    writeProbe(root);
    await analyze(root);
    expect(readFileSync(parquet(root)).equals(before[0])).to.equal(true);
    expect(readFileSync(path.join(root, 'study', 'lines.csv.gz')).equals(before[1])).to.equal(true);
  });

  it('with memorisation.json: each line of model m gets its text’s CER; unprobed lines are null', async () => {
    writeFileSync(path.join(root, 'study', 'memorisation.json'), '{}\n');
    await analyze(root);
    const rows = await readRows(root);
    const cols = Object.keys(rows[0]);
    expect(cols.slice(-2)).to.deep.equal(['memorisation_cer', 'memorised']);
    const of = (arm: string, id: string) => rows.find((r) => r.arm === arm && r.sample_id === id)!;
    for (const arm of ['zero_shot', 'rag', 'rag_k1', 'oracle']) {
      expect([of(arm, 'l1').memorisation_cer, of(arm, 'l1').memorised]).to.deep.equal([0.05, true]);
      expect([of(arm, 'l2').memorisation_cer, of(arm, 'l2').memorised]).to.deep.equal([0.4, false]);
      expect([of(arm, 'l3').memorisation_cer, of(arm, 'l3').memorised]).to.deep.equal([0.4, false]);
      // m1 was probed for model "other" only.
      expect([of(arm, 'm1').memorisation_cer, of(arm, 'm1').memorised]).to.deep.equal([null, null]);
    }
    const csv = gunzipSync(readFileSync(path.join(root, 'study', 'lines.csv.gz'))).toString('utf8');
    expect(csv.split('\n')[0].endsWith(',memorisation_cer,memorised')).to.equal(true);
  });

  it('a probe record without its CER is an error naming the file and line', async () => {
    const file = path.join(root, 'probe', 'm', 'D1.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8') + JSON.stringify({ ...record({}), cer: undefined }) + '\n');
    let err: Error | null = null;
    await analyze(root).catch((e: Error) => (err = e));
    expect(String(err)).to.include(`${file}:4: probe record lacks`);
  });
});
