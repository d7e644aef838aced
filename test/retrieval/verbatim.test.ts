/**
 * Verbatim-gold retrieval (src/retrieval/verbatim.ts): the normalised gold line found in the retrieved context
 * with character similarity ≥ 0.9 — the leakage measure every arm reports.
 */
import { expect } from 'chai';
import { goldSimilarity, isVerbatimGold, verbatimGoldRate } from '../../src/retrieval/verbatim';

const GOLD = 'وفي ربيع الأول منها تزوج عثمان بن عفان أم كلثوم';

describe('retrieval/verbatim', () => {
  it('finds the gold line inside a longer context, after normalisation (hamza, diacritics)', () => {
    const context = `نصوص مرجعية صحيحة:\n1. قال أبو رافع\n2. وَفي ربيع الاول منها تزوج عثمان بن عفان ام كلثوم بنت النبي`;
    expect(goldSimilarity(GOLD, context)).to.equal(1);
    expect(isVerbatimGold(GOLD, context)).to.equal(true);
  });

  it('counts a near copy (similarity ≥ 0.9) and not a different sentence', () => {
    const chars = [...GOLD];
    const twoEdits = [...chars.slice(0, 5), 'ز', ...chars.slice(6, 20), 'ك', ...chars.slice(21)].join('');
    const s = goldSimilarity(GOLD, twoEdits);
    expect(s).to.be.closeTo(1 - 2 / chars.length, 1e-9);
    expect(isVerbatimGold(GOLD, twoEdits)).to.equal(s >= 0.9);
    expect(isVerbatimGold(GOLD, 'فاضربه ضربا وجيعا بالغ فيه وأطل سجنه')).to.equal(false);
    expect(goldSimilarity(GOLD, '')).to.equal(0);
    expect(goldSimilarity('', 'نص')).to.equal(0);
  });

  it('rates lines overall and per dataset; an empty context is never a hit', () => {
    const r = verbatimGoldRate([
      { dataset: 'A', gt_text: GOLD, retrieval_context: GOLD },
      { dataset: 'A', gt_text: GOLD, retrieval_context: '' },
      { dataset: 'B', gt_text: GOLD, retrieval_context: 'قال أبو رافع' },
    ]);
    expect(r).to.deep.include({ lines: 3, hits: 1 });
    expect(r.rate).to.be.closeTo(1 / 3, 1e-12);
    expect(r.by_dataset).to.deep.equal({ A: { lines: 2, hits: 1, rate: 0.5 }, B: { lines: 1, hits: 0, rate: 0 } });
  });
});
