/**
 * Placebo retrieval (src/retrieval/placebo.ts): per-line draws seeded by sample_id and the corpus seed — the same
 * sentences in every run and shard split, different ones for another line or seed — k distinct sentences, and the
 * real context's length budget.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { drawDistinct, PlaceboSampler, placeboSeed } from '../../src/retrieval/placebo';
import { mulberry32 } from '../../src/util/random';

describe('retrieval/placebo', () => {
  let dir: string;
  let sampler: PlaceboSampler;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'placebo-'));
    const corpus = path.join(dir, 'corpus.jsonl');
    // 200 sentences of 10 to 49 characters.
    writeFileSync(
      corpus,
      Array.from({ length: 200 }, (_, i) =>
        JSON.stringify({ idx: i, text: `${'ق'.repeat(10 + (i % 40))}`, source_uri: `src${i % 7}`, date: 250 + i }),
      ).join('\n') + '\n',
    );
    sampler = await PlaceboSampler.open(corpus);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('draws k distinct corpus sentences, the same for the same line and seed, others for another line or seed', async () => {
    const a = sampler.draw('book/000001', 42, 3);
    expect(a).to.have.length(3);
    expect(new Set(a.map((s) => s.idx)).size).to.equal(3);
    expect(a.map((s) => s.rank)).to.deep.equal([1, 2, 3]);
    expect(sampler.draw('book/000001', 42, 3)).to.deep.equal(a);
    expect(sampler.draw('book/000002', 42, 3).map((s) => s.idx)).to.not.deep.equal(a.map((s) => s.idx));
    expect(sampler.draw('book/000001', 43, 3).map((s) => s.idx)).to.not.deep.equal(a.map((s) => s.idx));
    expect(placeboSeed('book/000001', 42)).to.equal(placeboSeed('book/000001', 42));
  });

  it("keeps the real context's budget: sentences in draw order while they fit max_chars", () => {
    const all = sampler.draw('book/000003', 42, 10);
    const budget = all[0].text.length + all[1].text.length + 1;
    const kept = sampler.draw('book/000003', 42, 10, budget);
    expect(kept.length).to.be.at.least(1).and.below(10);
    expect(kept.map((s) => s.idx)).to.deep.equal(all.slice(0, kept.length).map((s) => s.idx));
    expect(kept.reduce((n, s) => n + [...s.text].length, 0)).to.be.at.most(budget);
  });

  it('drawDistinct never repeats an index and takes all of a smaller pool', () => {
    const r = mulberry32(7);
    for (let t = 0; t < 50; t++) {
      const d = drawDistinct(20, 8, r);
      expect(new Set(d).size).to.equal(8);
      expect(d.every((i) => i >= 0 && i < 20)).to.equal(true);
    }
    expect(drawDistinct(3, 10, mulberry32(1)).sort()).to.deep.equal([0, 1, 2]);
  });
});
