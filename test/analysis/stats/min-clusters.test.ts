/**
 * analysis/stats/min-clusters.ts in both analyses: below `min_clusters` a comparison gives its estimate without CI, p or
 * detectable effect, with the reason; `significant` is p < α and nothing else; two arms that agree on every line
 * give no detectable effect. Each with a case that fails without the rule.
 */
import { expect } from 'chai';
import { blockRateInterval, pairedBlockDelta, type BlockDesign } from '../../../analysis/stats/block-stats';
import { comparePaired, type Scope } from '../../../analysis/study/compare';
import { emptyCellNote, mdeOr } from '../../../analysis/report/blocks';
import { interpretation } from '../../../analysis/documents/comparison';
import { ARMS_AGREE, ALPHA, fewClustersWarning, isSignificant, tooFewClusters } from '../../../analysis/stats/min-clusters';
import { mulberry32 } from '../../../analysis/stats/bootstrap';

/** `n` lines in clusters of `per` consecutive lines, one stratum. */
function design(n: number, per: number): BlockDesign {
  const block = Int32Array.from({ length: n }, (_, i) => Math.floor(i / per));
  return { block, stratumOfBlock: new Int32Array(Math.ceil(n / per)) };
}

/** Gold lengths and two conditions' edits per line: b is better than a on most lines, never identical throughout. */
function lines(n: number, seed = 5) {
  const rand = mulberry32(seed);
  const ref = Array.from({ length: n }, () => 20 + Math.floor(rand() * 30));
  const a = ref.map((r) => Math.floor(r * (0.1 + rand() * 0.1)));
  const b = a.map((x, i) => (i % 3 === 0 ? x + 1 : Math.max(0, x - 2)));
  return { ref, a, b };
}

const OPTS = { iterations: 400, permutations: 400, seed: 11 };

describe('analysis/min-clusters', () => {
  it('a one-cluster and a nine-cluster comparison give the estimate alone, with the reason (arms path)', () => {
    for (const [n, per, clusters] of [
      [6, 6, 1],
      [54, 6, 9],
    ]) {
      const { ref, a, b } = lines(n);
      const r = pairedBlockDelta(ref, a, b, design(n, per), OPTS).pooled;
      expect(r.delta).to.be.a('number').and.not.equal(0);
      expect([r.ci95, r.se, r.mde, r.p]).to.deep.equal([null, null, null, null]);
      expect(r.reason).to.equal(`too few clusters: ${clusters} (at least 10)`);
    }
    // Ten clusters: every number is there; a lower configured minimum gives nine clusters theirs.
    const ten = lines(60);
    const r10 = pairedBlockDelta(ten.ref, ten.a, ten.b, design(60, 6), OPTS).pooled;
    expect(r10.ci95![1]).to.be.greaterThan(r10.ci95![0]);
    expect([r10.se! > 0, r10.mde! > 0, r10.p! > 0, r10.reason]).to.deep.equal([true, true, true, null]);
    const nine = lines(54);
    expect(pairedBlockDelta(nine.ref, nine.a, nine.b, design(54, 6), { ...OPTS, minClusters: 9 }).pooled.ci95).to.not.equal(null);
  });

  it('comparePaired (arms.json, contrasts, score bands) carries the reason and keeps the estimate', () => {
    const { ref, a, b } = lines(6);
    const scope: Scope = { key: 'D', from: 0, to: 6, design: design(6, 6), macro: false };
    const c = comparePaired(ref, a, b, scope, OPTS, 'k');
    expect(c.delta_cer).to.not.equal(null);
    expect([c.ci, c.se, c.mde, c.p, c.reason]).to.deep.equal([null, null, null, null, 'too few clusters: 1 (at least 10)']);
  });

  it('a one-cluster and a nine-cluster comparison give null intervals with the reason (comparison.json path)', () => {
    for (const [n, clusters] of [
      [6, 1],
      [54, 9],
    ]) {
      const { ref, a, b } = lines(n);
      const d = design(n, 6);
      const c = comparePaired(
        ref,
        a,
        b,
        { key: 'D', from: 0, to: n, design: d, macro: false },
        { iterations: 300, permutations: 300, seed: 2 },
        'k',
      );
      const reason = `too few clusters: ${clusters} (at least 10)`;
      expect(c.delta_cer).to.be.a('number').and.not.equal(0);
      expect([c.ci, c.p, isSignificant(c.p), c.se, c.mde, c.reason]).to.deep.equal([null, null, null, null, null, reason]);
      const rate = blockRateInterval(ref, b, d, 300, 2);
      expect([rate.ci95, rate.reason]).to.deep.equal([null, reason]);
      // The sentence gives the estimate and the reason, not an interval.
      const text = interpretation(0.1, 0.09, { ci95: c.ci, significant: isSignificant(c.p), reason: c.reason });
      expect(text).to.include(`no interval or p-value: ${reason}`).and.not.include('95% CI');
    }
  });

  it('significant is p < α: false at p ≥ α even where the bootstrap interval excludes 0, null without a p', () => {
    // Two one-line clusters that both get worse by one edit: every resample gives +0.1 (the interval excludes 0),
    // while the sign-flip p is about ½. The interval rule called this significant.
    const two: Scope = { key: 'D', from: 0, to: 2, design: design(2, 1), macro: false };
    const r = comparePaired([10, 10], [1, 1], [2, 2], two, { iterations: 200, permutations: 200, seed: 1, minClusters: 1 }, 'k');
    expect(r.ci![0]).to.be.greaterThan(0);
    expect(r.p).to.be.at.least(ALPHA);
    expect(isSignificant(r.p)).to.equal(false);
    // On many comparisons with enough clusters, a p is there and significant is exactly p < α.
    for (let seed = 1; seed <= 12; seed++) {
      const { ref, a, b } = lines(120, seed);
      const scope: Scope = { key: 'D', from: 0, to: 120, design: design(120, 6), macro: false };
      const d = comparePaired(ref, a, b, scope, { iterations: 200, permutations: 200, seed }, 'k');
      expect(d.p).to.be.a('number');
      expect(isSignificant(d.p)).to.equal(d.p! < ALPHA);
    }
    expect([isSignificant(null), isSignificant(0.05), isSignificant(0.0499), isSignificant(1)]).to.deep.equal([null, false, true, false]);
  });

  it('identical arms give no detectable effect: the reason says the arms agree on every line', () => {
    const { ref, a } = lines(120);
    const r = pairedBlockDelta(ref, a, a, design(120, 6), OPTS, false).pooled;
    expect([r.delta, r.se, r.p, r.mde, r.reason]).to.deep.equal([0, 0, 1, null, ARMS_AGREE]);
    const scope: Scope = { key: 'D', from: 0, to: 120, design: design(120, 6), macro: false };
    const c = comparePaired(ref, a, a, scope, OPTS, 'same');
    expect([c.mde, c.reason]).to.deep.equal([null, ARMS_AGREE]);
    // The cell says "—" and the table's one note gives the reason.
    expect(mdeOr(c.mde)).to.equal('—');
    expect(emptyCellNote([c.reason, c.reason])).to.deep.equal([
      { kind: 'p', text: `— = no interval, p-value or detectable effect: ${ARMS_AGREE}.` },
    ]);
    // Arms that differ keep their number.
    const other = lines(120);
    const d = comparePaired(other.ref, other.a, other.b, scope, OPTS, 'differ');
    expect(d.mde).to.be.greaterThan(0);
    expect(mdeOr(d.mde)).to.match(/^≥ \d+\.\d\d pp$/);
  });

  it('one warning line per output, whatever the number of figures', () => {
    expect(tooFewClusters(10)).to.equal(null);
    expect(tooFewClusters(3, 4)).to.equal('too few clusters: 3 (at least 4)');
    const w = fewClustersWarning('study/arms.json', [tooFewClusters(1), tooFewClusters(5), ARMS_AGREE, null, tooFewClusters(1)]);
    expect(w).to.match(/^study\/arms\.json: 3 figure\(s\) over too few clusters of lines \(1–5; at least 10\)/);
    expect(fewClustersWarning('x', [ARMS_AGREE, null])).to.equal(null);
    // A table's note: the too-few-clusters reasons as one range, each other reason once; none without a reason.
    const note = emptyCellNote([tooFewClusters(1), tooFewClusters(5), ARMS_AGREE, null, tooFewClusters(1), ARMS_AGREE]);
    expect(note).to.have.length(1);
    expect((note[0] as { text: string }).text).to.equal(
      `— = no interval, p-value or detectable effect: too few clusters of lines (1–5; at least 10, docs/statistics.md); ${ARMS_AGREE}.`,
    );
    expect(emptyCellNote([null, undefined])).to.deep.equal([]);
  });
});
