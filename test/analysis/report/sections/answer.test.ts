/**
 * The report's answer sentences (analysis/report/sections/answer.ts): each says the estimate, its interval and what
 * it means — fewer / more errors when the interval excludes 0, no difference the study can tell otherwise (with its
 * detectable effect), or too few clusters to say.
 */
import { expect } from 'chai';
import { answerSentence, type Estimate } from '../../../../analysis/report/sections/answer';

const est = (e: Partial<Estimate>): Estimate => ({ delta: -0.012, ci: null, reason: null, mde: null, pHolm: null, n: 400, ...e });

describe('analysis/report/sections/answer: one sentence per contrast', () => {
  it('an interval below 0: the arm makes fewer errors; above 0: more; the estimate, interval and p (Holm) are given', () => {
    expect(answerSentence('rag − zero_shot', 'rag', 'zero_shot', est({ ci: [-0.02, -0.004], pHolm: 0.003 }))).to.equal(
      '**rag − zero_shot** (400 paired lines): ΔCER −1.20 pp [−2.00, −0.40 pp], p (Holm) 0.0030: rag makes fewer character errors than zero_shot (the interval excludes 0).',
    );
    expect(answerSentence('a − b', 'a', 'b', est({ delta: 0.01, ci: [0.002, 0.02], pHolm: 0.00001 }))).to.match(
      /ΔCER \+1\.00 pp \[\+0\.20, \+2\.00 pp\], p \(Holm\) < 0\.0001: a makes more character errors than b/,
    );
  });

  it('an interval across 0: no difference the study can tell, with the smallest it would detect', () => {
    const s = answerSentence('a − b', 'a', 'b', est({ ci: [-0.03, 0.006], mde: 0.025, pHolm: 0.4 }));
    expect(s).to.include('no difference between a and b that this study can tell from 0; this study detects |ΔCER| ≥ 2.50 pp.');
    expect(s).to.not.include('fewer');
  });

  it('too few clusters: the estimate alone and "too few clusters to say", never an interval', () => {
    const s = answerSentence('a − b', 'a', 'b', est({ reason: 'too few clusters: 3 (at least 10)' }));
    expect(s).to.equal(
      '**a − b** (400 paired lines): ΔCER −1.20 pp — too few clusters to say (3 clusters of lines, at least 10 needed): the estimate alone, no interval or test.',
    );
    expect(answerSentence('a − b', 'a', 'b', est({ delta: null, reason: null, n: 0 }))).to.equal(
      '**a − b** (0 paired lines): ΔCER — — no estimate: no paired lines.',
    );
  });
});
