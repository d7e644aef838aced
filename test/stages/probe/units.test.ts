/** Probe texts: the cut at the space nearest the middle, windows within a cluster, the seeded shuffle, and Min-K% / Min-K%++ on known numbers. */
import assert from 'node:assert/strict';
import { likelihoodScore, logprobMoments, meanOfLowest } from '../../../src/stages/probe/likelihood';
import { continuationScore } from '../../../src/stages/probe/score';
import { shuffleWords } from '../../../src/stages/probe/shuffle';
import { probeUnits, splitHalf } from '../../../src/stages/probe/units';

const sample = (i: number, gt: string) => ({ sample_id: `d/${i}`, dataset: 'd', ocr_text: gt, gt_text: gt });

describe('probe texts', () => {
  it('cuts at the space nearest the middle, or the middle character of one word', () => {
    assert.deepEqual(splitHalf('قال أبو عثمان الجاحظ'), { prompt: 'قال أبو', rest: 'عثمان الجاحظ' });
    assert.deepEqual(splitHalf('abcdef'), { prompt: 'abc', rest: 'def' });
  });

  it('joins windows of consecutive lines without crossing a cluster, and counts texts too short to cut', () => {
    const samples = ['a b', 'c d', 'e f', 'g h', 'x'].map((t, i) => sample(i, t));
    const { units, tooShort } = probeUnits('d', samples, { windowLines: 2, clusters: { blockLines: 3 }, shuffleSeed: 0, control: true });
    assert.deepEqual(
      units.map((u) => [u.sample_ids, u.text]),
      [
        [['d/0', 'd/1'], 'a b c d'],
        [['d/2'], 'e f'],
        [['d/3', 'd/4'], 'g h x'],
      ],
    );
    assert.equal(tooShort, 0);
    assert.equal(
      probeUnits('d', [sample(0, 'x')], { windowLines: 1, clusters: { blockLines: 3 }, shuffleSeed: 0, control: true }).tooShort,
      1,
    );
  });

  it('shuffles words with a seed: the same order again, never the line’s own order', () => {
    const line = 'one two three four five';
    assert.equal(shuffleWords(line, 7, 'd/1'), shuffleWords(line, 7, 'd/1'));
    for (let seed = 0; seed < 50; seed++) assert.notEqual(shuffleWords('a b', seed, 'x'), 'a b');
    assert.deepEqual(shuffleWords(line, 3, 'd/1').split(' ').sort(), line.split(' ').sort());
  });

  it('scores the continuation cut to the rest’s length, in canonical form', () => {
    assert.deepEqual(continuationScore('abc def', '  abc def and more', 0.1), {
      continuation: 'abc def',
      edits: 0,
      rest_chars: 7,
      cer: 0,
      verbatim: true,
    });
    assert.equal(continuationScore('abcdefghij', 'abcdefgxyz', 0.1).verbatim, false);
  });
});

describe('Min-K% Prob and Min-K%++', () => {
  it('averages the lowest ⌈k·n⌉ values', () => {
    assert.equal(meanOfLowest([-1, -5, -3, -2, -4], 0.4), -4.5);
    assert.equal(meanOfLowest([-1, -2], 0.01), -2);
  });

  it('μ and σ of log p under p: a uniform distribution has σ 0, two outcomes at ¾ / ¼ the known values', () => {
    const u = logprobMoments([Math.log(0.25), Math.log(0.25), Math.log(0.25), Math.log(0.25)])!;
    assert.ok(Math.abs(u.mu - Math.log(0.25)) < 1e-12 && u.sigma < 1e-9);
    const m = logprobMoments([Math.log(0.75), Math.log(0.25)])!;
    const mu = 0.75 * Math.log(0.75) + 0.25 * Math.log(0.25);
    assert.ok(Math.abs(m.mu - mu) < 1e-12);
    assert.ok(Math.abs(m.sigma - Math.sqrt(0.75 * 0.25) * Math.log(3)) < 1e-12);
  });

  it('Min-K%++ standardises each token by its position’s distribution', () => {
    const d = [Math.log(0.75), Math.log(0.25)];
    const s = likelihoodScore(
      [
        { logprob: Math.log(0.25), distribution: d },
        { logprob: Math.log(0.75), distribution: d },
      ],
      0.5,
      true,
    )!;
    assert.equal(s.min_k, Math.log(0.25));
    assert.ok(Math.abs(s.min_k_pp - -Math.sqrt(3)) < 1e-9, String(s.min_k_pp));
  });
});
