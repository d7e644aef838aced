import { expect } from 'chai';
import { parseConfig } from '../../src/config/load';
import { cer, scorePair } from '../../src/text/distance';
import { applyProfile, BUILTIN_PROFILES, resolveNormalization, removeRange } from '../../src/text/profiles';

const { nfc, no_diacritics: noDiacritics, graphemes } = BUILTIN_PROFILES;

describe('text/profiles', () => {
  it('nfc: canonical form only — marks, alef forms, ة and ى stay', () => {
    expect(applyProfile(' كَتَبَ  إلى ', nfc)).to.equal('كَتَبَ إلى');
    expect(applyProfile('ا\u0654', nfc)).to.equal('أ');
    expect(applyProfile('مدينة', nfc)).to.equal('مدينة');
  });

  it('no_diacritics: tashkeel U+064B–U+065F and U+0670 and tatweel removed; آ أ إ ٱ → ا, ة → ه, ى → ي', () => {
    // Every character of the tashkeel range, the superscript alef and the tatweel disappear ...
    for (let cp = 0x064b; cp <= 0x065f; cp++)
      expect(applyProfile(`ب${String.fromCodePoint(cp)}ب`, noDiacritics), cp.toString(16)).to.equal('بب');
    expect(applyProfile('هٰذا', noDiacritics)).to.equal('هذا');
    expect(applyProfile('كـــتب', noDiacritics)).to.equal('كتب');
    // ... the neighbours of the range do not (KITAB-Bench's set, narrower than src/text/arabic's).
    expect(applyProfile('ب\u064aب', noDiacritics)).to.equal('بيب');
    expect(applyProfile('ب\u0660', noDiacritics)).to.equal('ب\u0660');
    expect(applyProfile('\u0610ب', noDiacritics)).to.equal('\u0610ب');
    for (const a of ['آ', 'أ', 'إ', 'ٱ']) expect(applyProfile(`${a}مر`, noDiacritics), a).to.equal('امر');
    expect(applyProfile('مدينة على', noDiacritics)).to.equal('مدينه علي');
    // A decomposed hamza is composed first (NFC), then unified — never left as a bare alef by losing a "mark" only.
    expect(applyProfile('و\u0654', noDiacritics)).to.equal('ؤ');
    expect(applyProfile('ا\u0654', noDiacritics)).to.equal('ا');
    expect(cer(['مَدِينَة عَلَى'], ['مدينه علي'], { profile: noDiacritics })).to.equal(0);
  });

  it('graphemes: a letter with its marks is one character (dinglehopper), the texts themselves are NFC only', () => {
    expect(applyProfile('كَتَبَ', graphemes)).to.equal('كَتَبَ');
    // One wrong haraka: 1 edit over 3 clusters, against 1 edit over 6 code points under nfc.
    const g = scorePair('كَتَبَ', 'كَتَبِ', { profile: graphemes });
    expect([g.charEdits, g.refChars]).to.deep.equal([1, 3]);
    const c = scorePair('كَتَبَ', 'كَتَبِ');
    expect([c.charEdits, c.refChars]).to.deep.equal([1, 6]);
    // A missing shadda + fatha on one letter: 2 code-point edits, 1 cluster edit.
    expect(scorePair('شَدَّ', 'شَدَ', { profile: graphemes }).charEdits).to.equal(1);
    expect(scorePair('شَدَّ', 'شَدَ').charEdits).to.equal(1);
    expect(scorePair('شَدَّ', 'شد').charEdits).to.equal(3);
    expect(scorePair('شَدَّ', 'شد', { profile: graphemes }).charEdits).to.equal(2);
    expect(scorePair('a b', 'a  b', { profile: graphemes }).charEdits).to.equal(0);
  });

  it('remove entries: one character or U+XXXX(-U+YYYY); anything else is a one-line error', () => {
    expect(removeRange('U+064B-U+065F')).to.deep.equal([0x064b, 0x065f]);
    expect(removeRange('U+0640')).to.deep.equal([0x0640, 0x0640]);
    expect(removeRange('ـ')).to.deep.equal([0x0640, 0x0640]);
    expect(() => removeRange('ab')).to.throw(/expected one character or a code-point range/);
    expect(() => removeRange('U+065F-U+064B')).to.throw(/XXXX <= YYYY/);
  });

  it('a user-defined profile from the config scores with its own rules, reported beside the built-in ones', () => {
    const config = parseConfig(
      {
        analysis: {
          normalization: {
            primary: 'nfc',
            secondary: ['no_diacritics', 'persian_letters'],
            profiles: { persian_letters: { rules: 'ی → ي, ک → ك; tatweel removed', map: { ی: 'ي', ک: 'ك' }, remove: ['U+0640'] } },
          },
        },
      },
      'profiles test',
      { env: {} },
    );
    const s = resolveNormalization(config.analysis.normalization);
    expect(s.primary.name).to.equal('nfc');
    expect(s.secondary.map((p) => p.name)).to.deep.equal(['no_diacritics', 'persian_letters']);
    const persian = s.secondary[1];
    expect(persian).to.deep.include({ rules: 'ی → ي, ک → ك; tatweel removed', unit: 'codepoint' });
    expect(applyProfile('کتـاب فی', persian)).to.equal('كتاب في');
    expect(cer(['كتاب في'], ['کتاب فی'], { profile: persian })).to.equal(0);
    expect(cer(['كتاب في'], ['کتاب فی'])).to.be.greaterThan(0);
  });

  it('the default config: primary nfc, secondary no_diacritics and graphemes', () => {
    const s = resolveNormalization(parseConfig({}, 'defaults', { env: {} }).analysis.normalization);
    expect([s.primary.name, ...s.secondary.map((p) => p.name)]).to.deep.equal(['nfc', 'no_diacritics', 'graphemes']);
  });

  it('config errors are one line naming the key: old switches, unknown profiles, a grapheme primary, a built-in name', () => {
    const bad = (normalization: unknown) => () => parseConfig({ analysis: { normalization } }, 'cfg.yaml', { env: {} });
    expect(bad({ remove_diacritics: true })).to.throw(
      /analysis\.normalization\.remove_diacritics: the Arabic switches are normalisation profiles: use analysis\.normalization\.secondary/,
    );
    expect(bad({ secondary: ['nope'] })).to.throw(
      /analysis\.normalization\.secondary\.0: unknown profile "nope" — the profiles are: nfc, no_diacritics, graphemes/,
    );
    expect(bad({ primary: 'graphemes' })).to.throw(/analysis\.normalization\.primary: profile "graphemes" counts grapheme clusters/);
    expect(bad({ profiles: { nfc: { rules: 'x' } } })).to.throw(/analysis\.normalization\.profiles\.nfc: "nfc" is a built-in profile/);
    expect(bad({ profiles: { mine: { rules: 'x', remove: ['xy'] } } })).to.throw(
      /analysis\.normalization\.profiles\.mine\.remove\.0: "xy": expected one character/,
    );
  });
});

describe('text/profiles: benchmark steps', () => {
  const { hipe2026 } = BUILTIN_PROFILES;

  it("hipe2026: the HIPE-OCRepair scorer's norm() — lower-cased, ligatures mapped, non-word characters → space, collapsed", () => {
    // Expected strings are hipe_ocrepair_scorer.ocrepair_eval.norm's output for the same inputs.
    expect(applyProfile('Straße ꝛ Œuvre æ aͤ oͤ uͤ — \n', hipe2026)).to.equal('strasse r oeuvre ae ä ö ü');
    expect(applyProfile('foo—\nbar ¬\nbaz', hipe2026)).to.equal('foobar baz');
    expect(applyProfile('a_b  c\u00a0d\u2028e', hipe2026)).to.equal('a b c d e');
    expect(applyProfile('Ⅳ ½ x² é ﬁ İ', hipe2026)).to.equal('ⅳ ½ x² é ﬁ i');
    expect(applyProfile('naïve — «quoted» 12,5%', hipe2026)).to.equal('naïve quoted 12 5');
  });

  it('a user profile may case-fold and replace a Unicode class; the steps run in the stated order', () => {
    const { secondary } = resolveNormalization({
      secondary: ['bench'],
      profiles: { bench: { rules: 'test', case_fold: true, map: { ss: 'ß' }, replace: [{ class: '\\p{P}', with: '' }] } },
    });
    const [bench] = secondary;
    // case_fold before map: "SS" is folded first, then mapped; punctuation goes last.
    expect(applyProfile('STRASSE, «Weg»!', bench)).to.equal('straße weg');
    // Without the class rule the punctuation stays (the rule is what removes it).
    expect(applyProfile('STRASSE, «Weg»!', { ...bench, replace: [] })).to.equal('straße, «weg»!');
  });

  it('a bad class is a one-line config error naming the key', () => {
    const bad = () => resolveNormalization({ profiles: { bench: { rules: 'x', replace: [{ class: 'ab', with: '' }] } } });
    expect(bad).to.throw(/analysis\.normalization\.profiles\.bench\.replace\.0\.class: "ab": expected a character class/);
    const cfg = { analysis: { normalization: { profiles: { bench: { rules: 'x', replace: [{ class: '[\\W]', with: '' }] } } } } };
    expect(() => parseConfig(cfg, 'cfg.yaml', { env: {} })).to.throw(
      /analysis\.normalization\.profiles\.bench\.replace\.0\.class: .*not allowed inside brackets/,
    );
  });
});
