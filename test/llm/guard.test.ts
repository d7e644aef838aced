import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorRateAccumulator, scorePair } from '../../src/text/distance';
import { requireSharedData } from '../helpers/shared-data';
import { cleanOutput } from '../../src/llm/clean';
import {
  applyGuard,
  fallbackReason,
  GUARD_DEFAULTS,
  GuardOverrideSchema,
  GuardSettingsSchema,
  resolveGuard,
  trimOutput,
  type GuardSettings,
} from '../../src/llm/guard';

// Real OCR_GS lines (kraken output as in the .png.rec.txt files, leading space included) and hand corrections.
const OCR_BULDAN_1 = ' قال: وقال عبد الله بن عمرو بن العاص: البركة عشر بركات، في مصر تسع.';
const FIX_BULDAN_1 = 'قال: وقال عبد الله بن عمرو بن العاص: البركة عشر بركات، في مصر تسع';
const FIX_BULDAN_2 = 'بركات وفي الأرضين بركة واحدة. والشر عشرة أجزاء، بمصر جزء واحد، وفي';
const OCR_BULDAN_3 = ' الأرض كلها تسعة أجزاء وأما معنى قولهم: عمر مصر الأممصار فإنه لم يحدث إلا.';
const FIX_BULDAN_3 = 'الأرض كلها تسعة أجزاء وأما معنى قولهم: عمر مصر الأمصار فإنه لم يحدث إلا';
const OCR_YACQUBI_20 = ' فوجه فٕف السجي، فقطع رأس يوحتا ووضضعه خق طبق،ء واقرب ثلاميقه،.';
const FIX_YACQUBI_20 = 'فوجه إلى السجن، فقطع رأس يوحنا ووضعه على طبق، واقترب تلاميذه،';
const OCR_JAHIZ_20 = ' وقد ذمكرقا ذلك ق موضضعه من باب القول قف ااشعر، وهذه ايخصال من.';
const FIX_JAHIZ_20 = 'وقد ذكرنا ذلك في موضعه من باب القول في الشعر، وهذه الخصال من';
const OCR_QUTAYBA_20 = ' قال أبو زيد: قثنية عزق ة النسا ه نسيان ونسوان، فتثنية ة الزضا ه.';
const FIX_QUTAYBA_20 = 'قال أبو زيد: تثنية عرق «النسا» نسيان ونسوان، وتثنية «الرضا»';

const ON: GuardSettings = { ...GUARD_DEFAULTS, enabled: true };

/** [name, model output, OCR line, expected corrected_text, expected guard decision]. */
const CASES: [string, string, string, string, string][] = [
  // Kept: the answer is a correction of the line, nothing around it (cleanOutput's cleaning may still apply).
  ['good correction is kept unchanged', FIX_BULDAN_1, OCR_BULDAN_1, FIX_BULDAN_1, 'kept'],
  ['a few letter fixes are kept', FIX_YACQUBI_20, OCR_YACQUBI_20, FIX_YACQUBI_20, 'kept'],
  ['a heavier but faithful correction is kept', FIX_JAHIZ_20, OCR_JAHIZ_20, FIX_JAHIZ_20, 'kept'],
  ['inner guillemets are content', FIX_QUTAYBA_20, OCR_QUTAYBA_20, FIX_QUTAYBA_20, 'kept'],
  ['the OCR line returned as is', OCR_BULDAN_1, OCR_BULDAN_1, OCR_BULDAN_1.trim(), 'kept'],
  [
    'think block (cleaning, not trimming)',
    `<think>\nالسطر فيه نقطة زائدة\n</think>\n\n${FIX_BULDAN_1}`,
    OCR_BULDAN_1,
    FIX_BULDAN_1,
    'kept',
  ],
  ['code fence (cleaning)', '```text\n' + FIX_BULDAN_3 + '\n```', OCR_BULDAN_3, FIX_BULDAN_3, 'kept'],
  [
    'label the cleaner knows: "Here is the corrected text:"',
    `Here is the corrected text:\n${FIX_BULDAN_1}`,
    OCR_BULDAN_1,
    FIX_BULDAN_1,
    'kept',
  ],
  ['wrapping quotes (cleaning)', `«${FIX_BULDAN_3}»`, OCR_BULDAN_3, FIX_BULDAN_3, 'kept'],
  ['a completed last word is not cut by the span', 'في مصر تسع بركات', ' في مصر تسع برك', 'في مصر تسع بركات', 'kept'],
  [
    'a marker word the OCR line holds stays',
    'قال أبو زيد (ملاحظة: الكلام لابن الأعرابي) نسيان ونسوان',
    ' قال أبو زيد (ملاحظة: الكلام لابن الاعرابي) نسيان ونسوان',
    'قال أبو زيد (ملاحظة: الكلام لابن الأعرابي) نسيان ونسوان',
    'kept',
  ],
  [
    'a line that starts like a preamble in the OCR stays',
    'هذا هو الصحيح: أن البركة عشر بركات',
    ' هذا هو الصحيح: أن البركة عشر بركاث',
    'هذا هو الصحيح: أن البركة عشر بركات',
    'kept',
  ],
  [
    '… also when the OCR misread the preamble-like words',
    'هذا هو الصحيح: أن البركة عشر بركات',
    ' هدا هو الصحيج: أن البركة عشر بركاث',
    'هذا هو الصحيح: أن البركة عشر بركات',
    'kept',
  ],
  [
    'a marker the OCR misread stays too',
    'وكتب في الهامش ملاحظة: إن البركة عشر',
    ' وكتب في الهامش ملاحضة: إن البركة عشر',
    'وكتب في الهامش ملاحظة: إن البركة عشر',
    'kept',
  ],
  // Trimmed: over-generation around the line is removed.
  [
    'English preamble the cleaner misses',
    `Sure! Here is the corrected Arabic text:\n\n${FIX_BULDAN_1}`,
    OCR_BULDAN_1,
    FIX_BULDAN_1,
    'trimmed',
  ],
  [
    'English preamble line without a colon',
    `Sure, I fixed the OCR errors in this line\n${FIX_YACQUBI_20}`,
    OCR_YACQUBI_20,
    FIX_YACQUBI_20,
    'trimmed',
  ],
  ['Arabic preamble on the same line', `إليك النص المصحح: ${FIX_BULDAN_1}`, OCR_BULDAN_1, FIX_BULDAN_1, 'trimmed'],
  ['Arabic preamble on its own line', `بالتأكيد، هذا هو النص بعد التصحيح:\n${FIX_BULDAN_3}`, OCR_BULDAN_3, FIX_BULDAN_3, 'trimmed'],
  ['Arabic preamble then quotes', `إليك النص المصحح: "${FIX_BULDAN_3}"`, OCR_BULDAN_3, FIX_BULDAN_3, 'trimmed'],
  [
    'English explanation after the line',
    `${FIX_BULDAN_1}\n\nExplanation: the OCR added a period at the end of the line.`,
    OCR_BULDAN_1,
    FIX_BULDAN_1,
    'trimmed',
  ],
  ['quoted line, then an explanation', `"${FIX_BULDAN_1}"\n\nNote: only punctuation changed.`, OCR_BULDAN_1, FIX_BULDAN_1, 'trimmed'],
  [
    'Arabic note after the line',
    `${FIX_BULDAN_3}\n\nملاحظة: تم تصحيح كلمة "الأممصار" إلى "الأمصار".`,
    OCR_BULDAN_3,
    FIX_BULDAN_3,
    'trimmed',
  ],
  [
    'Arabic list of corrections',
    `${FIX_JAHIZ_20}\n\nالتصحيحات:\n- ذمكرقا ← ذكرنا\n- ق ← في\n- ااشعر ← الشعر`,
    OCR_JAHIZ_20,
    FIX_JAHIZ_20,
    'trimmed',
  ],
  [
    'Arabic explanation phrase without a colon',
    `${FIX_JAHIZ_20}\nتم تصحيح الأخطاء الإملائية الناتجة عن التعرف الضوئي`,
    OCR_JAHIZ_20,
    FIX_JAHIZ_20,
    'trimmed',
  ],
  ['inline (Note: …) at the end', `${FIX_BULDAN_1} (Note: removed the trailing period)`, OCR_BULDAN_1, FIX_BULDAN_1, 'trimmed'],
  ['inline (ملاحظة: …) at the end', `${FIX_BULDAN_3} (ملاحظة: صححت كلمة الأممصار)`, OCR_BULDAN_3, FIX_BULDAN_3, 'trimmed'],
  [
    'an English line after the Arabic one',
    `${FIX_YACQUBI_20}\nI corrected several letters that the OCR misread.`,
    OCR_YACQUBI_20,
    FIX_YACQUBI_20,
    'trimmed',
  ],
  ['a markdown rule, then commentary', `${FIX_BULDAN_1}\n---\nهذا السطر من كتاب البلدان`, OCR_BULDAN_1, FIX_BULDAN_1, 'trimmed'],
  [
    'continuation with extra sentences on the same line',
    `${FIX_BULDAN_1} بركات وفي الأرضين بركة واحدة. والشر عشرة أجزاء`,
    OCR_BULDAN_1,
    FIX_BULDAN_1,
    'trimmed',
  ],
  ['continuation on the next line', `${FIX_BULDAN_1}\n${FIX_BULDAN_2}`, OCR_BULDAN_1, FIX_BULDAN_1, 'trimmed'],
  ['doubled line on one line keeps one copy', `${FIX_BULDAN_1} ${FIX_BULDAN_1}`, OCR_BULDAN_1, FIX_BULDAN_1, 'trimmed'],
  ['doubled line on two lines keeps one copy', `${FIX_YACQUBI_20}\n\n${FIX_YACQUBI_20}`, OCR_YACQUBI_20, FIX_YACQUBI_20, 'trimmed'],
  ['Arabic preamble without a colon before the line', `النص بعد التصحيح هو\n${FIX_BULDAN_3}`, OCR_BULDAN_3, FIX_BULDAN_3, 'trimmed'],
  // Fell back: the OCR line, verbatim, replaces the answer.
  ['empty answer', '', OCR_BULDAN_1, OCR_BULDAN_1, 'fell_back:empty'],
  ['only an unfinished think block', '<think>the line has a period at the end and', OCR_BULDAN_1, OCR_BULDAN_1, 'fell_back:empty'],
  ['all-Latin refusal', 'The text is already correct; no changes are needed.', OCR_BULDAN_1, OCR_BULDAN_1, 'fell_back:not_arabic'],
  [
    'Latin transliteration',
    "qala: wa-qala 'Abd Allah ibn 'Amr ibn al-'As: al-baraka 'ashr barakat",
    OCR_BULDAN_1,
    OCR_BULDAN_1,
    'fell_back:not_arabic',
  ],
  ['digits only is not "not Arabic" (a page number the OCR misread)', '407', ' ت407.', '407', 'kept'],
  ['digits only, but too far from the OCR line', '12', ' ت407.', ' ت407.', 'fell_back:length_ratio'],
  ['too short (half a line)', 'قال: وقال عبد الله', OCR_BULDAN_1, OCR_BULDAN_1, 'fell_back:length_ratio'],
  [
    'wildly different rewrite',
    'ثم رحل الأمير إلى الشام فأقام بها شهرا وكتب إلى الخليفة',
    OCR_JAHIZ_20,
    OCR_JAHIZ_20,
    'fell_back:edit_ratio',
  ],
  ['model writes text for an empty OCR line', 'قال أبو زيد', '', '', 'fell_back:empty_ocr'],
  ['empty OCR line, empty answer', '', '  ', '', 'kept'],
];

describe('llm/guard: applyGuard on hand-written model outputs', () => {
  for (const [name, raw, ocr, text, decision] of CASES) {
    it(`${decision}: ${name}`, () => {
      expect(applyGuard(raw, ocr, ON)).to.deep.equal({ corrected_text: text, guard: decision });
    });
  }
});

describe('llm/guard: trimOutput', () => {
  it("returns exactly cleanOutput's text when it trims nothing (the same bytes)", () => {
    const raw = `<think>x</think>\n${FIX_BULDAN_1}\n`;
    expect(trimOutput(raw, OCR_BULDAN_1)).to.deep.equal({ text: cleanOutput(raw, { source: OCR_BULDAN_1 }), trimmed: false });
    // A line the model wrapped in two keeps its bytes (joining would change them, not the scoring form).
    const wrapped = 'قال: وقال عبد الله بن عمرو\nبن العاص: البركة عشر بركات، في مصر تسع';
    expect(trimOutput(wrapped, OCR_BULDAN_1)).to.deep.equal({ text: wrapped, trimmed: false });
  });

  it('keeps the span that aligns with the OCR line when the answer runs on', () => {
    const out = trimOutput(`وهذا ما ذكره المؤلف في كتابه: ${FIX_BULDAN_3} ثم قال بعد ذلك`, OCR_BULDAN_3);
    expect(out).to.deep.equal({ text: FIX_BULDAN_3, trimmed: true });
  });
});

describe('llm/guard: the checks', () => {
  it('trim_overgeneration off: a continuation is not trimmed, so the length check rejects it', () => {
    const raw = `${FIX_BULDAN_1}\n${FIX_BULDAN_2}`;
    expect(applyGuard(raw, OCR_BULDAN_1, { ...ON, trim_overgeneration: false })).to.deep.equal({
      corrected_text: OCR_BULDAN_1,
      guard: 'fell_back:length_ratio',
    });
    expect(applyGuard(`«${FIX_BULDAN_1}»`, OCR_BULDAN_1, { ...ON, trim_overgeneration: false })).to.deep.equal({
      corrected_text: FIX_BULDAN_1,
      guard: 'kept',
    });
  });

  it('edit_ratio is a strict bound on Levenshtein / len(ocr); length_ratio bounds are inclusive', () => {
    const ocr = 'ابجدهوزحطي'; // 10 letters
    const fiveEdits = 'ابجدهسسسسس';
    expect(fallbackReason(fiveEdits, ocr, { max_edit_ratio: 0.5, length_ratio: [0.6, 1.5] })).to.equal(null);
    expect(fallbackReason(fiveEdits, ocr, { max_edit_ratio: 0.4, length_ratio: [0.6, 1.5] })).to.equal('edit_ratio');
    expect(fallbackReason('ابجدهو', ocr, { max_edit_ratio: 1, length_ratio: [0.6, 1.5] })).to.equal(null);
    expect(fallbackReason('ابجده', ocr, { max_edit_ratio: 1, length_ratio: [0.6, 1.5] })).to.equal('length_ratio');
    expect(fallbackReason(`${ocr}ابجده`, ocr, { max_edit_ratio: 1, length_ratio: [0.6, 1.5] })).to.equal(null);
    expect(fallbackReason(`${ocr}ابجدهو`, ocr, { max_edit_ratio: 1, length_ratio: [0.6, 1.5] })).to.equal('length_ratio');
  });

  it('measures lengths in code points of the scoring form (outer spaces and space runs do not count)', () => {
    expect(fallbackReason('  ابجد   هوز  ', ' ابجد هوز', { max_edit_ratio: 0, length_ratio: [1, 1] })).to.equal(null);
  });
});

describe('llm/guard: settings', () => {
  it('GuardSettingsSchema fills the defaults and rejects bad bounds and unknown keys', () => {
    expect(GuardSettingsSchema.parse({})).to.deep.equal({
      enabled: false,
      max_edit_ratio: 0.5,
      length_ratio: [0.6, 1.5],
      trim_overgeneration: true,
    });
    expect(GuardSettingsSchema.parse({ enabled: true, length_ratio: [0.5, 2] })).to.deep.equal({
      enabled: true,
      max_edit_ratio: 0.5,
      length_ratio: [0.5, 2],
      trim_overgeneration: true,
    });
    expect(GuardSettingsSchema.safeParse({ length_ratio: [1.5, 0.6] }).success).to.equal(false);
    expect(GuardSettingsSchema.safeParse({ max_edit_ratio: -0.1 }).success).to.equal(false);
    expect(GuardSettingsSchema.safeParse({ enable: true }).success).to.equal(false);
  });

  it('an arm override sets only the keys it names', () => {
    const study = GuardSettingsSchema.parse({ enabled: true, max_edit_ratio: 0.3 });
    const arm = GuardOverrideSchema.parse({ length_ratio: [0.8, 1.2] });
    expect(arm).to.deep.equal({ length_ratio: [0.8, 1.2] });
    expect(resolveGuard(study, arm)).to.deep.equal({
      enabled: true,
      max_edit_ratio: 0.3,
      length_ratio: [0.8, 1.2],
      trim_overgeneration: true,
    });
    expect(resolveGuard(undefined, { enabled: true })).to.deep.equal({ ...GUARD_DEFAULTS, enabled: true });
    expect(resolveGuard(study, null)).to.deep.equal(study);
  });
});

describe('llm/guard: on real OCR_GS lines (Ibn Qutayba, Adab al-katib; 790 lines)', function () {
  let lines: { gt: string; ocr: string }[] = [];
  before(function () {
    const dir = path.join(requireSharedData(this, 'ocr-gs'), 'book_IbnQutayba.Adab');
    lines = readdirSync(dir)
      .filter((f) => f.endsWith('.gt.txt'))
      .sort()
      .map((f) => ({
        gt: readFileSync(path.join(dir, f), 'utf8'),
        ocr: readFileSync(path.join(dir, f.replace('.gt.txt', '.png.rec.txt')), 'utf8'),
      }));
  });

  it('the OCR line given back as the answer is always kept, as cleanOutput leaves it', () => {
    for (const l of lines)
      expect(applyGuard(l.ocr, l.ocr, ON), l.ocr).to.deep.equal({ corrected_text: cleanOutput(l.ocr, { source: l.ocr }), guard: 'kept' });
  });

  it('trimming leaves the gold line whole on at least 98 % of lines and undoes a doubled line (CER vs gold < 3 %)', () => {
    const cut = lines.filter((l) => trimOutput(l.gt, l.ocr).trimmed).length;
    expect(cut / lines.length).to.be.below(0.02);
    // Doubled, the answers are at 100 % CER against the gold lines; trimmed, near the gold (a detached " ،"
    // at the end of a copy may go, a very short line may stay doubled).
    const doubled = new ErrorRateAccumulator();
    const trimmed = new ErrorRateAccumulator();
    for (const l of lines) {
      const raw = `${l.gt.trim()} ${l.gt.trim()}`;
      doubled.add(scorePair(l.gt, raw));
      trimmed.add(scorePair(l.gt, trimOutput(raw, l.ocr).text));
    }
    expect(doubled.cer.rate).to.be.above(1);
    expect(trimmed.cer.rate).to.be.below(0.03);
  });
});
