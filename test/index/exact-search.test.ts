import { expect } from 'chai';
import { ExactSearcher } from '../../src/index/exact-search';
import { bruteForceTopK, clusteredUnitVectors } from './synthetic';

describe('index/exact-search (onnxruntime Gemm + TopK)', () => {
  const dims = 48;
  const data = clusteredUnitVectors(1000, dims, 7);
  const queries = clusteredUnitVectors(37, dims, 8);

  it('equals brute force across corpus blocks and query batches (blocks of 300 rows, batches of 8 queries)', async () => {
    const s = await ExactSearcher.create(data, dims, { blockRows: 300, queryBatch: 8, threads: 1 });
    const hits = await s.search(queries, 5);
    expect(hits.k).to.equal(5);
    for (let i = 0; i < 37; i++) {
      const want = bruteForceTopK(data, dims, queries.subarray(i * dims, (i + 1) * dims), 5);
      expect(Array.from(hits.keys.subarray(i * 5, i * 5 + 5)), `query ${i}`).to.deep.equal(want.keys);
      want.scores.forEach((sc, j) => expect(hits.scores[i * 5 + j]).to.be.closeTo(sc, 1e-5));
      expect(hits.counts[i]).to.equal(5);
    }
    await s.close();
  });

  it('finds each stored vector as its own top-1 with score 1', async () => {
    const s = await ExactSearcher.create(data, dims);
    const hits = await s.search(data.subarray(0, 50 * dims), 1);
    for (let i = 0; i < 50; i++) {
      expect(hits.keys[i]).to.equal(i);
      expect(hits.scores[i]).to.be.closeTo(1, 1e-5);
    }
    await s.close();
  });

  it('caps k at the corpus size and returns every row in score order', async () => {
    const small = data.subarray(0, 4 * dims);
    const s = await ExactSearcher.create(small, dims, { blockRows: 3 });
    const hits = await s.search(queries.subarray(0, dims), 10);
    expect(hits.k).to.equal(4);
    expect(Array.from(hits.keys).sort()).to.deep.equal([0, 1, 2, 3]);
    expect(Array.from(hits.keys)).to.deep.equal(bruteForceTopK(small, dims, queries.subarray(0, dims), 4).keys);
    await s.close();
  });

  it('rejects matrices that are not a multiple of dims', async () => {
    let err: Error | undefined;
    await ExactSearcher.create(new Float32Array(10), 3).catch((e: Error) => (err = e));
    expect(err?.message).to.match(/not a multiple of dims=3/);
  });
});
