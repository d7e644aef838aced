import { expect } from 'chai';
import { lineChanges } from '../../analysis/score/error-changes';
import { fallbackReason, GUARD_DEFAULTS, applyGuard } from '../../src/llm/guard';
import { goldSimilarity } from '../../src/retrieval/verbatim';
import { dedupDigest, matchKey } from '../../src/retrieval/text';
import { errorClassOf } from '../../src/text/arabic';
import { canonical } from '../../src/text/canonical';
import { levenshtein, scorePair, type ScoringOptions } from '../../src/text/distance';
import { toCodePoints } from '../../src/text/tokens';
import { BUILTIN_PROFILES } from '../../src/text/profiles';
import { OCR_GS_ROOT, requireSharedData } from '../helpers/shared-data';
import { loadOcrGsLines, type OcrGsLine } from '../helpers/ocr-gs-lines';

/** alef + U+0654 HAMZA ABOVE, and the composed أ it is canonically equivalent to. */
const DECOMPOSED = 'ا\u0654مر';
const COMPOSED = 'أمر';

/** A canonically equivalent spelling of `s` that differs from it wherever it can: NFC of a decomposed text, else NFD. */
const equivalent = (s: string) => (s === s.normalize('NFC') ? s.normalize('NFD') : s.normalize('NFC'));

describe('text/canonical', () => {
  it('is NFC, trimmed, whitespace runs collapsed (or only trimmed), and idempotent', () => {
    expect(canonical(` ${DECOMPOSED}  \u00a0 قال\n`)).to.equal(`${COMPOSED} قال`);
    expect(canonical(' a  b ', false)).to.equal('a  b');
    for (const s of [DECOMPOSED, ' و\u0654  ي\u0654 ', 'ا\u0653']) expect(canonical(canonical(s))).to.equal(canonical(s));
    expect(canonical('و\u0654')).to.equal('ؤ');
    expect(canonical('ي\u0654')).to.equal('ئ');
    expect(canonical('ا\u0653')).to.equal('آ');
    expect(canonical('ا\u0655')).to.equal('إ');
  });

  it('scores a decomposed hamza as the composed letter: one character, no error (the scoring before NFC saw 2 edits)', () => {
    expect(scorePair(DECOMPOSED, COMPOSED).charEdits).to.equal(0);
    expect(scorePair(DECOMPOSED, COMPOSED).refChars).to.equal(3);
    expect(scorePair(COMPOSED, DECOMPOSED).wordEdits).to.equal(0);
    // Without NFC the code points differ: alef+U+0654 against أ is one substitution and one deletion.
    expect(scorePair('x', 'x').charEdits).to.equal(0);
    expect([...DECOMPOSED].length).to.equal(4);
  });

  it('guard ratios, verbatim-gold and the retrieval keys see canonically equivalent text as the same', () => {
    const ocr = 'قال ا\u0654بو بكر';
    const answer = 'قال أبو بكر';
    expect(fallbackReason(answer, ocr, GUARD_DEFAULTS)).to.equal(null);
    // A one-letter line: decomposed, the answer would be half the OCR's length and fall back on length_ratio.
    expect(fallbackReason('أ', 'ا\u0654', { max_edit_ratio: 0.5, length_ratio: [0.9, 1.1] })).to.equal(null);
    expect(goldSimilarity(ocr, answer)).to.equal(1);
    expect(matchKey(ocr)).to.equal(matchKey(answer));
    expect(dedupDigest(ocr)).to.equal(dedupDigest(answer));
  });
});

describe('text/canonical: on real OCR_GS lines', function () {
  this.timeout(240_000);
  let lines: OcrGsLine[];
  before(function () {
    requireSharedData(this, 'ocr-gs');
    lines = loadOcrGsLines(OCR_GS_ROOT);
  });

  it('the data holds non-NFC text (3,305 gold and 3,519 OCR lines of 5,092), so this test has teeth', () => {
    expect(lines).to.have.length(5092);
    expect(lines.filter((l) => l.gt !== l.gt.normalize('NFC'))).to.have.length(3305);
    expect(lines.filter((l) => l.ocr !== l.ocr.normalize('NFC'))).to.have.length(3519);
  });

  it('NFC(OCR) scores exactly as the OCR line, and NFC(gold) has CER 0, line by line, under every profile', () => {
    // The primary profile (nfc) on every line; the secondary ones on every fifth (the same code path, slower to run).
    const profiles: Array<[ScoringOptions, number]> = [
      [{}, 1],
      [{ profile: BUILTIN_PROFILES.no_diacritics }, 5],
      [{ profile: BUILTIN_PROFILES.graphemes }, 5],
    ];
    for (const [opts, every] of profiles) {
      for (const l of lines.filter((_, i) => i % every === 0)) {
        const ocr = scorePair(l.gt, l.ocr, opts);
        expect(scorePair(l.gt, l.ocr.normalize('NFC'), opts), `${l.book}/${l.id}`).to.deep.equal(ocr);
        const gold = scorePair(l.gt, l.gt.normalize('NFC'), opts);
        expect(gold.charEdits, `${l.book}/${l.id}`).to.equal(0);
        expect(gold.wordEdits, `${l.book}/${l.id}`).to.equal(0);
      }
    }
  });

  it('canonically equivalent text scores exactly as the original: CER, WER, error classes, guard, verbatim-gold', () => {
    let differing = 0;
    for (const l of lines.filter((_, i) => i % 4 === 0)) {
      const alt = equivalent(l.ocr);
      if (alt !== l.ocr) differing++;
      expect(scorePair(l.gt, alt), l.id).to.deep.equal(scorePair(l.gt, l.ocr));
      expect(scorePair(equivalent(l.gt), l.ocr), l.id).to.deep.equal(scorePair(l.gt, l.ocr));
      const classes = (ocr: string) =>
        lineChanges(canonical(l.gt), canonical(ocr), canonical(l.gt)).fixed.map((e) => `${e.key}:${errorClassOf(e.ref, e.hyp)}`);
      expect(classes(alt), l.id).to.deep.equal(classes(l.ocr));
      const settings = { ...GUARD_DEFAULTS, enabled: true };
      expect(applyGuard(l.gt, alt, settings).guard, l.id).to.equal(applyGuard(l.gt, l.ocr, settings).guard);
      expect(fallbackReason(equivalent(l.gt), alt, settings), l.id).to.equal(fallbackReason(l.gt, l.ocr, settings));
      expect(goldSimilarity(equivalent(l.gt), l.ocr), l.id).to.equal(goldSimilarity(l.gt, l.ocr));
    }
    expect(differing).to.be.greaterThan(500);
  });

  it('before NFC, composed gold scored about 5 % CER against the stored gold (the defect this fixes)', () => {
    let edits = 0,
      chars = 0;
    const trimOnly = (s: string) => toCodePoints(s.trim().replace(/\s+/gu, ' '));
    for (const l of lines) {
      const ref = trimOnly(l.gt);
      chars += ref.length;
      edits += levenshtein(ref, trimOnly(l.gt.normalize('NFC')));
    }
    expect(edits / chars).to.be.within(0.04, 0.07);
  });
});
