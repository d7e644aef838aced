import { expect } from 'chai';
import { mergeWithinBudget } from '../../src/retrieval/budget';
import { effectiveFetchK, resolvePipelineOptions } from '../../src/retrieval/config';
import { reciprocalRankFusion, weightedFusion } from '../../src/retrieval/fusion';
import { mmrSelect } from '../../src/retrieval/mmr';
import { windowText } from '../../src/retrieval/pipeline';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return xs.map((x) => x / n);
};

describe('retrieval stages: fusion, MMR, budget, options', () => {
  it('reciprocal-rank fusion sums 1/(k+rank) and scales rank 1 in both lists to 1', () => {
    const fused = reciprocalRankFusion(
      [
        { idx: 5, score: 0.9 },
        { idx: 7, score: 0.8 },
      ],
      [
        { idx: 7, score: 12 },
        { idx: 9, score: 3 },
      ],
      60,
    );
    const max = 2 / 61;
    expect(fused.map((f) => f.idx)).to.deep.equal([7, 5, 9]);
    expect(fused[0].score).to.be.closeTo((1 / 62 + 1 / 61) / max, 1e-12);
    expect(fused[1].score).to.be.closeTo(1 / 61 / max, 1e-12);
    expect(fused[0]).to.deep.include({ denseRank: 2, lexicalRank: 1 });
    expect(fused[2]).to.deep.include({ denseRank: null, lexicalRank: 2 });
    expect(reciprocalRankFusion([{ idx: 1, score: 1 }], [{ idx: 1, score: 1 }])[0].score).to.equal(1);
  });

  it('weighted fusion mixes cosine with max-normalised BM25 and needs a cosine for every item', () => {
    const cos = new Map([
      [1, 0.8],
      [2, 0.6],
      [3, 0.5],
    ]);
    const f = weightedFusion(
      [
        { idx: 1, score: 0.8 },
        { idx: 2, score: 0.6 },
      ],
      [
        { idx: 3, score: 10 },
        { idx: 2, score: 5 },
      ],
      cos,
      0.5,
    );
    const byIdx = Object.fromEntries(f.map((x) => [x.idx, x.score]));
    expect(byIdx[1]).to.be.closeTo(0.4, 1e-12);
    expect(byIdx[2]).to.be.closeTo(0.3 + 0.25, 1e-12);
    expect(byIdx[3]).to.be.closeTo(0.25 + 0.5, 1e-12);
    expect(f.map((x) => x.idx)).to.deep.equal([3, 2, 1]);
    expect(() => weightedFusion([], [{ idx: 4, score: 1 }], cos, 0.5)).to.throw(/no cosine for item 4/);
    expect(() => weightedFusion([], [], cos, 2)).to.throw(/dense_weight/);
  });

  it('MMR skips a near-duplicate of a picked item for a different one; λ = 1 is relevance order', () => {
    const vecs = Float32Array.from([...unit(1, 0, 0), ...unit(0.99, 0.05, 0), ...unit(0, 1, 0), ...unit(0, 0, 1)]);
    const rel = [0.9, 0.89, 0.7, 0.5];
    expect(mmrSelect(rel, vecs, 3, 0.5, 3)).to.deep.equal([0, 2, 3]);
    expect(mmrSelect(rel, vecs, 3, 1, 3)).to.deep.equal([0, 1, 2]);
    expect(mmrSelect(rel, vecs, 3, 0.5, 10)).to.have.length(4);
    expect(() => mmrSelect(rel, vecs, 3, 1.5, 2)).to.throw(/lambda/);
  });

  it('budgeted merge keeps items in order and stops at the first that does not fit', () => {
    const items = ['aaaa', 'bb', 'cccccc', 'd'];
    const r = mergeWithinBudget(items, (x) => x, { limit: 7 });
    expect(r).to.deep.equal({ kept: ['aaaa', 'bb'], dropped: 2, used: 6 });
    expect(mergeWithinBudget(items, (x) => x, { limit: null }).kept).to.deep.equal(items);
    expect(mergeWithinBudget(items, (x) => x, { limit: 7, separatorCost: 2 }).kept).to.deep.equal(['aaaa']);
    expect(mergeWithinBudget(items, (x) => x, { limit: 3 }).kept).to.deep.equal([]);
    expect(mergeWithinBudget(['a b c', 'd'], (x) => x, { limit: 3, measure: (t) => t.split(' ').length }).kept).to.deep.equal(['a b c']);
  });

  it('windowText keeps the hit, adds neighbours nearest first and whole, in source order', () => {
    expect(windowText('HIT', ['b2', 'b1'], ['a1', 'a2'], 100)).to.equal('b2 b1 HIT a1 a2');
    expect(windowText('HIT', ['b2', 'b1'], ['a1', 'a2'], 12)).to.equal('b2 b1 HIT a1');
    expect(windowText('HIT', ['b2', 'b1'], ['a1', 'a2'], 11)).to.equal('b1 HIT a1'); // ' b2' would make 12
    expect(windowText('HIT', ['long neighbour'], ['a1'], 10)).to.equal('HIT a1');
    expect(windowText('a much longer hit text', [], [], 10)).to.equal('a much');
  });

  it('options: defaults are all off; errors name the key; fetch_k grows only when a stage needs candidates', () => {
    const d = resolvePipelineOptions();
    expect([d.hybrid.enabled, d.rerank.enabled, d.mmr.enabled, d.dedup, d.citations]).to.deep.equal([false, false, false, false, false]);
    expect(d.rerank.embedding_weight).to.equal(0.7);
    expect(d.context_window.lines).to.equal(0);
    expect(effectiveFetchK(d, 3)).to.equal(3);
    expect(effectiveFetchK(resolvePipelineOptions({ rerank: { enabled: true } }), 3)).to.equal(20);
    expect(effectiveFetchK(resolvePipelineOptions({ mmr: { enabled: true }, fetch_k: 8 }), 3)).to.equal(8);
    expect(effectiveFetchK(resolvePipelineOptions({ fetch_k: 2 }), 5)).to.equal(5);
    expect(() => resolvePipelineOptions({ rerank: { embedding_weight: 1.5 } })).to.throw(/rerank\.embedding_weight/);
    expect(() => resolvePipelineOptions({ mmr: { lamda: 0.5 } } as never)).to.throw(/mmr/);
  });
});
