/**
 * analysis/score/profile-scores: every arm's lines scored under every profile, as scoreDistances scores a pair;
 * a line too far from its gold and too long to align is refused with an error naming its arm, dataset and
 * sample_id, never a bare alignment error.
 */
import { expect } from 'chai';
import { scoreProfiles } from '../../../analysis/score/profile-scores';
import type { AlignedLine } from '../../../analysis/study/alignment';
import type { CorrectionRecord } from '../../../src/llm/records';
import { scoreDistances } from '../../../src/text/distance';
import { resolveNormalization } from '../../../src/text/profiles';

const line = (sample_id: string, gt_text: string, ocr_text: string, corrected_text: string): AlignedLine => ({
  record: { sample_id, dataset: 'D1', gt_text, ocr_text, corrected_text, raw_output: corrected_text, error: null } as CorrectionRecord,
  rawText: null,
  guard: null,
  filled: false,
});

const profiles = (() => {
  const n = resolveNormalization({});
  return [n.primary, ...n.secondary];
})();

describe('analysis/score/profile-scores: the one line scorer', () => {
  it("counts each line's character and word edits as scoreDistances does, under every profile", () => {
    const gold = 'قال أبو عثمان والعرب تقول';
    const lines = new Map([['rag', [line('s1', gold, 'قال ابو عثمان والعربتقول', 'قال أبو عثمان والعرب تقول')]]]);
    const { scores } = scoreProfiles(lines, profiles, true);
    profiles.forEach((profile, p) => {
      const c = scores.get('rag')![p];
      const ocr = scoreDistances(gold, 'قال ابو عثمان والعربتقول', { collapseWhitespace: true, profile });
      expect(c.ocrCe[0], profile.name).to.equal(ocr.charEdits);
      expect(c.ocrWe[0], profile.name).to.equal(ocr.wordEdits);
      expect(c.ce[0], profile.name).to.equal(0);
      expect(c.refChars[0], profile.name).to.equal(ocr.refChars);
    });
  });

  it('refuses a line too long to align with an error naming its arm, dataset and sample_id', function () {
    this.timeout(60_000);
    // Every character wrong: the alignment's band is the whole table, past its limit.
    const gold = 'ا'.repeat(12_000);
    const lines = new Map([['zero_shot', [line('s1', 'كتاب', 'كتب', 'كتاب'), line('huge-7', gold, 'ب'.repeat(12_000), gold)]]]);
    expect(() => scoreProfiles(lines, profiles, true)).to.throw(/^arm zero_shot, dataset D1, sample_id huge-7: alignment too large/);
  });
});
