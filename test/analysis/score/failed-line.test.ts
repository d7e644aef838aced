/** The failed-line rule (analysis/score/failed-line.ts): the one definition every scorer uses. */
import { expect } from 'chai';
import { failureKind, isBlank, scoredText } from '../../../analysis/score/failed-line';
import { canonical } from '../../../src/text/canonical';

const line = (corrected_text: string, error: string | null = null, ocr_text = 'كتب الرجل') => ({ ocr_text, corrected_text, error });

describe('analysis/score/failed-line', () => {
  it('a correction with an error fails and is scored as its OCR text', () => {
    expect(failureKind(line('كتاب', 'timeout'))).to.equal('error');
    expect(scoredText(line('كتاب', 'timeout'))).to.equal('كتب الرجل');
  });

  it('an empty or whitespace-only output for a non-empty OCR line fails as empty_output', () => {
    for (const out of ['', '  ', '\n\t']) {
      expect(failureKind(line(out)), JSON.stringify(out)).to.equal('empty_output');
      expect(scoredText(line(out))).to.equal('كتب الرجل');
    }
  });

  it('a usable correction is scored as itself, an empty one of an empty OCR line too', () => {
    expect(failureKind(line('كتب الرجل.'))).to.equal(null);
    expect(scoredText(line('كتب الرجل.'))).to.equal('كتب الرجل.');
    expect(failureKind(line('', null, ' '))).to.equal(null);
    expect(scoredText(line('', null, ' '))).to.equal('');
  });

  it('an empty error string is no error', () => {
    expect(failureKind(line('كتاب', ''))).to.equal(null);
  });

  it('isBlank is the canonical form being empty, for every code point alone and beside a space', () => {
    const differ: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      for (const text of [c, ` ${c}\u00a0`]) if (isBlank(text) !== (canonical(text) === '')) differ.push(cp.toString(16));
    }
    expect(differ).to.deep.equal([]);
  });
});
