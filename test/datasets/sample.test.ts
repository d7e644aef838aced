/**
 * Random pilots (`--sample N --seed S`, src/datasets/sample.ts): N lines per dataset as whole clusters chosen
 * at random, the same for the same seed, and not the first lines (`--limit N` is the first lines, and fails
 * the "not the first lines" check below).
 */
import { expect } from 'chai';
import { loadDataset } from '../../src/datasets';
import { clusterIds } from '../../src/datasets/clusters';
import { drawSample, sampled } from '../../src/datasets/sample';
import { pilotOption } from '../../bin/cli/options';
import { pilotIds } from '../../src/stages/infer/infer';
import { readPlannedIds, writePlan } from '../../src/stages/infer/plan';
import { requireSharedData } from '../helpers/shared-data';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ids = Array.from({ length: 1000 }, (_, i) => `book/${String(i).padStart(6, '0')}`);
const blocks = { blockLines: 25 };
const firstN = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('datasets/sample: random pilots', () => {
  it('draws n lines as whole blocks (one cut), not the first n, the same for the same seed and others for another', () => {
    const a = drawSample(ids, { lines: 110, seed: 7 }, blocks, 'book');
    expect(a).to.have.length(110);
    expect(a).to.not.deep.equal(firstN(110));
    expect(drawSample(ids, { lines: 110, seed: 7 }, blocks, 'book')).to.deep.equal(a);
    expect(drawSample(ids, { lines: 110, seed: 8 }, blocks, 'book')).to.not.deep.equal(a);
    // Blocks of 25: four whole ones and one cut to 10 lines (its first lines), positions ascending.
    const perBlock = new Map<number, number[]>();
    for (const i of a) perBlock.set(Math.floor(i / 25), [...(perBlock.get(Math.floor(i / 25)) ?? []), i]);
    const sizes = [...perBlock.values()].map((l) => l.length).sort((x, y) => x - y);
    expect(sizes).to.deep.equal([10, 25, 25, 25, 25]);
    for (const [b, l] of perBlock) expect(l).to.deep.equal(Array.from({ length: l.length }, (_, k) => b * 25 + k));
    expect([...a].sort((x, y) => x - y)).to.deep.equal(a);
  });

  it('draws pages when the dataset names them, and each dataset apart', () => {
    const paged = Array.from({ length: 300 }, (_, i) => `p${Math.floor(i / 7)}-l${i % 7}`);
    const spec = { blockLines: 25, pagePatterns: { X: '^(p\\d+)-' } };
    const a = drawSample(paged, { lines: 21, seed: 3 }, spec, 'X');
    const pages = new Set(a.map((i) => paged[i].split('-')[0]));
    expect(pages.size).to.equal(3); // 3 whole pages of 7 lines
    expect(drawSample(paged, { lines: 21, seed: 3 }, spec, 'Y')).to.not.deep.equal(a); // blocks of 25 and another stream
  });

  it('takes a dataset of at most n lines whole, so a pilot drawn again from its own export is itself', () => {
    const a = sampled(
      ids.map((sample_id) => ({ sample_id })),
      { lines: 100, seed: 1 },
      blocks,
      'book',
    );
    expect(sampled(a, { lines: 100, seed: 1 }, blocks, 'book')).to.deep.equal(a);
  });

  it('on a real OCR_GS book: the pilot is not the first lines, and --limit is', async function () {
    const root = requireSharedData(this, 'ocr-gs');
    const spec = { key: 'Jahiz', type: 'paired_dir' as const, path: path.join(root, 'book_Jahiz.Hayawan') };
    const all = (await loadDataset(spec, { logProblems: false })).samples;
    const first = (await loadDataset(spec, { limit: 50, logProblems: false })).samples.map((s) => s.sample_id);
    const pilot = sampled(all, { lines: 50, seed: 42 }, blocks, 'Jahiz').map((s) => s.sample_id);
    expect(pilot).to.have.length(50);
    expect(pilot).to.not.deep.equal(first);
    expect(sampled(all, { lines: 50, seed: 42 }, blocks, 'Jahiz').map((s) => s.sample_id)).to.deep.equal(pilot);
    // 50 lines = two whole blocks of 25, which the analysis forms again on the pilot's lines.
    expect(clusterIds(pilot, blocks, 'Jahiz').count).to.equal(2);
  });

  it('infer draws the same pilot from a full export as the export draws from the dataset (both stage paths)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pilot-'));
    const rows = ['A', 'B'].flatMap((d) =>
      ids.slice(0, 300).map((id) => ({ sample_id: `${d}/${id}`, dataset: d, ocr_text: 'x', gt_text: 'y' })),
    );
    const input = path.join(dir, 'inference_input.jsonl');
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const sample = { spec: { lines: 60, seed: 9 }, clusters: blocks };
    const fromExport = ['A', 'B']
      .flatMap((d) =>
        sampled(
          rows.filter((r) => r.dataset === d),
          sample.spec,
          blocks,
          d,
        ),
      )
      .map((r) => r.sample_id);
    expect([...pilotIds(rows, sample)]).to.deep.equal(fromExport);
    const plan = await writePlan(input, { sample });
    expect(plan.lines).to.equal(120);
    expect(['A', 'B'].flatMap((d) => readPlannedIds(plan, d, 0, 60))).to.deep.equal(fromExport);
    expect(fromExport.slice(0, 60)).to.not.deep.equal(rows.slice(0, 60).map((r) => r.sample_id));
    rmSync(dir, { recursive: true, force: true });
  });

  it('the CLI takes --sample with --seed only, and never with --limit', () => {
    expect(pilotOption({ sample: '200', seed: '5' })).to.deep.equal({ lines: 200, seed: 5 });
    expect(pilotOption({})).to.equal(undefined);
    expect(() => pilotOption({ sample: '200' })).to.throw(/--sample needs --seed/);
    expect(() => pilotOption({ seed: '5' })).to.throw(/give --sample/);
    expect(() => pilotOption({ sample: '0', seed: '5' })).to.throw(/positive integer/);
  });
});
