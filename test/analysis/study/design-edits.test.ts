/**
 * analysis/study/design-edits: a line's character alignments as the design files read them — each text's
 * substitutions / deletions / insertions add up to the scorer's character edits, a failed correction is the OCR
 * text, zero_shot's error changes exist only where its gold is rag's, and canonically equivalent text aligns alike.
 */
import { expect } from 'chai';
import { lineEdits } from '../../../analysis/study/design-edits';
import type { CorrectionRecord } from '../../../src/llm/records';
import { scorePair } from '../../../src/text/distance';
import { armCorrectionRecord } from '../../helpers/records';

const prep = { collapseWhitespace: true, profile: null };
const GOLD = 'قال أبو عثمان والعرب تقول';
const OCR = 'قال ابو عثمان والعربتقول';

const line = (corrected: string, extra: Partial<CorrectionRecord> = {}): CorrectionRecord =>
  ({ ...armCorrectionRecord({ id: 's1', ocr: OCR, gt: GOLD }, 'D1', 'rag', { corrected }), ...extra }) as CorrectionRecord;

const edits = (e: { substitutions: number; deletions: number; insertions: number }) => e.substitutions + e.deletions + e.insertions;

describe('analysis/study/design-edits: the alignments the design files read', () => {
  it("gives each text's S + D + I as the scorer's character edits, and the OCR errors each arm fixed", () => {
    const e = lineEdits(line(GOLD), line('قال ابو عثمان والعرب تقول', { prompt_type: 'zero_shot' } as never), prep);
    expect(edits(e.ocr))
      .to.equal(scorePair(GOLD, OCR, prep).char.distance)
      .and.to.equal(2);
    expect(edits(e.rag)).to.equal(0);
    expect(edits(e.zeroShot!)).to.equal(1);
    expect(e.ragChanges!.fixed.length).to.equal(2);
    expect(e.zeroShotChanges!.fixed.length).to.equal(1);
    expect(e.zeroShotChanges!.unchanged.length).to.equal(1);
  });

  it('aligns canonically equivalent texts alike: the NFD form of every text gives the same edits and changes', () => {
    const nfd = (t: string) => t.normalize('NFD');
    expect(nfd(GOLD)).to.not.equal(GOLD); // أ decomposes: the case is real
    const z = line('قال ابو عثمان والعرب تقول', { prompt_type: 'zero_shot' } as never);
    const decomposed = (r: CorrectionRecord) =>
      ({ ...r, gt_text: nfd(r.gt_text), ocr_text: nfd(r.ocr_text), corrected_text: nfd(r.corrected_text) }) as CorrectionRecord;
    expect(lineEdits(decomposed(line(GOLD)), decomposed(z), prep)).to.deep.equal(lineEdits(line(GOLD), z, prep));
  });

  it('counts a failed correction as the OCR text: its errors unchanged, none fixed', () => {
    const e = lineEdits(line('', { error: 'timeout' } as never), null, prep);
    expect(e.rag).to.deep.equal(e.ocr);
    expect(e.zeroShot).to.equal(null);
    expect(e.ragChanges!.fixed).to.deep.equal([]);
    expect(e.ragChanges!.unchanged.length).to.equal(2);
  });

  it("leaves zero_shot's error changes out where its gold text is not rag's, but keeps its breakdown against its own gold", () => {
    const z = line('قال أبو عثمان', { gt_text: 'قال أبو عثمان' });
    const e = lineEdits(line(GOLD), z, prep);
    expect(edits(e.zeroShot!)).to.equal(0);
    expect(e.zeroShotChanges).to.equal(null);
    expect(e.ragChanges).to.not.equal(null);
  });
});
