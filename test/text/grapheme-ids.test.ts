import { expect } from 'chai';
import { graphemeIds } from '../../src/text/graphemes';
import { canonical } from '../../src/text/canonical';
import { ocrGsDatasets } from '../helpers/ocr-gs-study';
import { requireSharedData } from '../helpers/shared-data';

const segmenter = new Intl.Segmenter('ar', { granularity: 'grapheme' });

/** The clusters Intl.Segmenter finds, as ids: equal clusters must get equal ids, a one-code-point one its code point. */
function expectSegmenterClusters(text: string): void {
  const segments = [...segmenter.segment(text)].map((s) => s.segment);
  const ids = graphemeIds(text);
  expect(ids.length, JSON.stringify(text)).to.equal(segments.length);
  const idOf = new Map<string, number>();
  segments.forEach((s, i) => {
    if ([...s].length === 1) expect(ids[i], JSON.stringify(text)).to.equal(s.codePointAt(0));
    else expect(ids[i], JSON.stringify(text)).to.equal(idOf.get(s) ?? (idOf.set(s, ids[i]), ids[i]));
  });
}

describe('text/graphemes: cluster ids for edit distances (fast path for letters and marks)', () => {
  it('a letter with its marks is one id; a mark at the start or after a space clusters as the segmenter does', () => {
    const [ka, fatha, shadda] = ['\u0643', '\u064E', '\u0651'];
    expect(graphemeIds(`${ka}${fatha}${ka}`)).to.have.length(2);
    expect(graphemeIds(`${ka}${shadda}${fatha}`)).to.deep.equal(graphemeIds(`${ka}${shadda}${fatha}`));
    expect(graphemeIds(`${ka}${fatha}`)[0]).to.not.equal(graphemeIds(`${ka}${shadda}`)[0]);
    for (const t of [
      `${fatha}${shadda}${ka}`,
      ` ${fatha}x`,
      `a${fatha}`,
      '',
      ' ',
      `${ka}\u0670`,
      `\u06DD${ka}`,
      `${ka}\u200D${ka}`,
      'e\u0301',
      '\r\n',
    ])
      expectSegmenterClusters(t);
  });

  it('gives the clusters of Intl.Segmenter on every OCR_GS line, gold and OCR (../shared/data/ocr-gs)', function () {
    const root = requireSharedData(this, 'ocr-gs');
    const pairs = Object.values(ocrGsDatasets(root)).flat();
    expect(pairs.length).to.be.above(5000);
    for (const p of pairs) for (const t of [p.gt, p.ocr, canonical(p.gt), canonical(p.ocr)]) expectSegmenterClusters(t);
  });
});
