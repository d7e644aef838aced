/**
 * arms.json's `when.by_memorisation` (analysis/study/when-memorisation.ts) on the arms tree of ../arms-fixture.ts,
 * with the probe finding l1 and l2 memorised by model m, l3 not, and m1 not probed. Hand-worked ΔCER vs zero_shot
 * (edits zero_shot / arm per line; gold 10, 20, 10, 50 characters):
 *   rag     l1 0/0, l2 1/0, l3 3/2 → memorised (0 − 1) / 30 = −1/30, not memorised (2 − 3) / 10 = −0.1
 *   rag_k1  l1 0/2, l2 1/1, l3 3/3 → memorised (3 − 1) / 30 = +2/30, not memorised 0
 * One cluster a line: the memorised group's interval resamples {l1, l2}, so it lies within [−0.05, 0] for rag.
 * Without study/memorisation.json the key is absent and the report has no such table.
 */
import { expect } from 'chai';
import Ajv from 'ajv';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeArms, type AnalyzeArmsOptions, type ArmsAnalysis } from '../../../analysis/study/arms';
import { whenBlocks } from '../../../analysis/report/sections/findings';
import { writeArmsLinesTree } from '../arms-fixture';
import { REPO_ROOT } from '../../helpers/shared-data';

const probeRecord = (unit: string, ids: string[], cer: number) => ({
  ...{ dataset: 'D1', model: 'm', kind: 'book', unit_id: unit, sample_ids: ids, cluster: 0, rest_chars: 10 },
  ...{
    continuation: 'x',
    edits: Math.round(cer * 10),
    cer,
    verbatim: cer <= 0.1,
    likelihood: null,
    prompt_tokens: 1,
    completion_tokens: 1,
  },
});

function writeProbe(root: string): void {
  mkdirSync(path.join(root, 'probe', 'm'), { recursive: true });
  mkdirSync(path.join(root, 'study'), { recursive: true });
  const recs = [probeRecord('l1', ['l1'], 0), probeRecord('l2', ['l2'], 0.05), probeRecord('l3', ['l3'], 0.4)];
  writeFileSync(path.join(root, 'probe', 'm', 'D1.jsonl'), recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(path.join(root, 'study', 'memorisation.json'), '{}\n');
}

const options = (root: string, extra: Partial<AnalyzeArmsOptions> = {}): AnalyzeArmsOptions => ({
  resultsDir: root,
  baseline: 'zero_shot',
  bootstrap: { iterations: 200, seed: 1 },
  permutations: 50,
  clusters: { blockLines: 1 },
  minClusters: 2,
  ...extra,
});

const arm = (a: ArmsAnalysis, name: string) => a.arms.find((r) => r.name === name)!;

describe('arms.json when.by_memorisation', function () {
  this.timeout(60000);
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'when-memo-'));
    writeArmsLinesTree(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('no probe: the key is absent from every arm, and the report has no memorisation table', async () => {
    const a = await analyzeArms(options(root));
    for (const r of a.arms) expect(r.when).to.not.have.property('by_memorisation');
    expect(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8')).to.not.include('by_memorisation');
    expect(whenBlocks(a).map((b) => ('text' in b ? b.text : ''))).to.not.include('ΔCER vs the baseline by memorisation (all datasets)');
  });

  it('with a probe: ΔCER of memorised and not-memorised lines, with their block-bootstrap CIs', async () => {
    writeProbe(root);
    const a = await analyzeArms(options(root));
    expect(arm(a, 'zero_shot').when.by_memorisation).to.equal(null);
    const rag = arm(a, 'rag').when.by_memorisation!;
    expect([rag.memorised.lines, rag.not_memorised.lines, rag.unprobed_lines]).to.deep.equal([2, 1, 1]);
    expect(rag.memorised.delta_cer).to.be.closeTo(-1 / 30, 1e-4);
    expect(rag.not_memorised.delta_cer).to.be.closeTo(-0.1, 1e-4);
    const [lo, hi] = rag.memorised.ci!;
    expect(lo).to.be.at.least(-0.05 - 1e-9);
    expect(hi).to.be.at.most(1e-9);
    expect(lo).to.be.below(hi);
    // One cluster is below minClusters 2: no interval, the reason says why.
    expect(rag.not_memorised.ci).to.equal(null);
    expect(rag.not_memorised.reason).to.match(/^too few clusters: 1/);
    const k1 = arm(a, 'rag_k1').when.by_memorisation!;
    expect(k1.memorised.delta_cer).to.be.closeTo(2 / 30, 1e-4);
    expect(k1.not_memorised.delta_cer).to.be.closeTo(0, 1e-9);
    const doc = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8')) as ArmsAnalysis;
    expect(doc.arms.find((r) => r.name === 'rag')!.when.by_memorisation!.memorised.lines).to.equal(2);
    const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, 'analysis', 'arms.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
    // The schema checks the split's shape: a cell without its lines fails.
    delete (doc.arms.find((r) => r.name === 'rag')!.when.by_memorisation!.memorised as Partial<{ lines: number }>).lines;
    expect(validate(doc)).to.equal(false);
  });

  it('with a probe: the report\'s "when" tables show the split per arm', async () => {
    writeProbe(root);
    const blocks = whenBlocks(await analyzeArms(options(root)));
    const at = blocks.findIndex((b) => 'text' in b && b.text === 'ΔCER vs the baseline by memorisation (all datasets)');
    expect(at).to.be.above(-1);
    const table = blocks.slice(at).find((b) => b.kind === 'table')!;
    if (table.kind !== 'table') throw new Error('no table');
    expect(table.head).to.deep.equal(['Arm', 'Memorised', 'Not memorised', 'Not probed']);
    const rag = table.rows.find((r) => r[0] === 'rag')!;
    expect(rag[1]).to.match(/^−3\.33 pp .*\(n=2\)$/);
    expect(rag[2]).to.match(/^−10\.00 pp .*\(n=1\)$/);
    expect(rag[3]).to.equal('1');
    expect(table.rows.map((r) => r[0])).to.not.include('zero_shot');
  });
});
