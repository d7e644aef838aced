import { expect } from 'chai';
import { referenceScorer, scoreDistances } from '../../src/text/distance';
import { BUILTIN_PROFILES } from '../../src/text/profiles';
import { ocrGsDatasets } from '../helpers/ocr-gs-study';
import { requireSharedData } from '../helpers/shared-data';

const PROFILES = [null, ...Object.values(BUILTIN_PROFILES)];

describe('text/distance: referenceScorer (many hypotheses against one reference)', () => {
  it('gives scoreDistances for every hypothesis and profile, a repeated one included, and with whitespace kept', () => {
    const ref = 'قَالَ  أبو  الْفَرَجِ';
    const hyps = ['قال ابو الفرج', ref, 'قَالَ أبو الْفَرَجِ', '', 'قال  أبو  الفرج الفرج', 'قال ابو الفرج', ' قَالَ  أبو  الْفَرَجِ '];
    for (const profile of PROFILES)
      for (const collapseWhitespace of [true, false]) {
        const opts = { profile, collapseWhitespace };
        const scorer = referenceScorer(ref, opts);
        for (const h of hyps)
          expect(scorer.score(h), `${profile?.name} ${collapseWhitespace} ${h}`).to.deep.equal(scoreDistances(ref, h, opts));
      }
  });

  it('with a twin that prepares text alike (nfc for graphemes), gives scoreDistances of its own unit', () => {
    const ref = 'شَدَّ  قَالَ';
    const { nfc, graphemes } = BUILTIN_PROFILES;
    for (const collapseWhitespace of [true, false]) {
      const twin = referenceScorer(ref, { profile: nfc, collapseWhitespace });
      const scorer = referenceScorer(ref, { profile: graphemes, collapseWhitespace }, twin);
      for (const h of ['شَدَ قال', 'شد  قَالَ', ref, '', 'شَدَّ قَالَ قال'])
        expect(scorer.score(h), h).to.deep.equal(scoreDistances(ref, h, { profile: graphemes, collapseWhitespace }));
    }
  });

  it('gives scoreDistances on OCR_GS lines: each gold against its OCR text and the next line’s gold', function () {
    const root = requireSharedData(this, 'ocr-gs');
    const pairs = Object.values(ocrGsDatasets(root))
      .flat()
      .filter((_, i) => i % 10 === 0);
    for (const profile of PROFILES)
      pairs.forEach((p, i) => {
        const scorer = referenceScorer(p.gt, { profile });
        for (const h of [p.ocr, pairs[(i + 1) % pairs.length].gt, p.gt])
          expect(scorer.score(h), `${profile?.name} ${p.id}`).to.deep.equal(scoreDistances(p.gt, h, { profile }));
      });
  });
});
