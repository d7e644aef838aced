/**
 * The lexicon corrector on real OCR_GS lines (skipped without ../shared/data): the vocabulary of the three OpenITI
 * versions of Ibn Qutayba's Adab al-Kātib, the confusion model of the dev split (every fifth line of each book),
 * applied to held-out lines of that book. Settings are given explicitly (min_count 3, margin 0) so the cases test
 * the mechanism, not the defaults chosen by bench/baselines.ts.
 */
import { expect } from 'chai';
import { ConfusionModel } from '../../src/correctors/confusion';
import { bestCandidate, lexiconCorrectLine, type LexiconModel, type LexiconSettings } from '../../src/correctors/lexicon';
import { lexiconKey, splitToken, wordKeys } from '../../src/correctors/lexicon-key';
import { deletions, SymmetricDeleteIndex } from '../../src/correctors/symmetric-delete';
import { Vocabulary } from '../../src/correctors/vocabulary';
import { scorePair } from '../../src/text/distance';
import { readWitnessWork, selectWorkFiles } from '../../src/witness';
import { loadOcrGsLines, type OcrGsLine } from '../helpers/ocr-gs-lines';
import { requireSharedData } from '../helpers/shared-data';

const SETTINGS: LexiconSettings = { min_count: 3, margin: 0 };

describe('correctors/lexicon (real OCR_GS lines)', function () {
  this.timeout(120000);
  let model: LexiconModel;
  let adab: OcrGsLine[];
  before(async function () {
    const openiti = requireSharedData(this, 'openiti');
    const ocrGs = requireSharedData(this, 'ocr-gs');
    const vocabulary = new Vocabulary();
    const { files } = await selectWorkFiles({ openitiRoot: openiti, include: ['0276IbnQutaybaDinawari.AdabKatib*'] });
    for (const f of files) for (const l of (await readWitnessWork(f.file, f.uri, f.date)).lines) vocabulary.addText(l.text);
    const confusion = new ConfusionModel();
    const lines = loadOcrGsLines(ocrGs);
    for (const l of lines) if (l.index % 5 === 0) confusion.add(l.ocr, l.gt);
    model = { vocabulary, confusion };
    adab = lines.filter((l) => l.book === 'IbnQutayba.Adab');
  });
  const line = (id: string) => adab.find((l) => l.id === id)!;

  it('the confusion model learned the OCR reading a final hamza as ه', () => {
    const hamza = 'ء'.codePointAt(0)!;
    expect(model.confusion.logSub(hamza, 'ه'.codePointAt(0)!)).to.be.greaterThan(model.confusion.logSub(hamza, 'ط'.codePointAt(0)!));
  });

  it('corrects a known OCR confusion: Adab 000001 «الفاه» (a non-word) → «الفاء», and the line gets closer to its gold', () => {
    const l = line('000001');
    expect(model.vocabulary.count('الفاه')).to.equal(0);
    const d = lexiconCorrectLine(l.ocr, model, SETTINGS);
    expect(d.changes).to.deep.include({ from: 'الفاه', to: 'الفاء', count: 0 });
    expect(wordKeys(l.gt)).to.include('الفاء');
    expect(scorePair(l.gt, d.text).charEdits).to.be.lessThan(scorePair(l.gt, l.ocr).charEdits);
  });

  it('leaves an in-vocabulary word alone: «إلي» of Adab 000704 (as the print has it); untrusted, it would become «إلى»', () => {
    const l = line('000704');
    expect(wordKeys(l.gt)).to.include('إلي');
    expect(model.vocabulary.count('إلي')).to.be.at.least(SETTINGS.min_count);
    const kept = lexiconCorrectLine(l.ocr, model, SETTINGS);
    expect(kept.changes.map((c) => c.from)).to.not.include('إلي');
    // Without the in-vocabulary rule, the noisy channel alone would prefer the more frequent «إلى».
    const best = bestCandidate('إلي', model, SETTINGS.min_count)!;
    expect(best.word).to.equal('إلى');
    expect(best.gain).to.be.greaterThan(SETTINGS.margin);
  });
});

describe('correctors/lexicon-key and symmetric-delete', () => {
  it('keys fold diacritics and tatweel (through the profile function) and keep hamza seats; punctuation stays aside', () => {
    expect(lexiconKey('الكِتَـــابُ')).to.equal('الكتاب');
    expect(lexiconKey('أتت')).to.not.equal(lexiconKey('اتت'));
    expect(splitToken('«الفاه».')).to.deep.equal({ lead: '«', core: 'الفاه', trail: '».' });
    expect(wordKeys('قال: «الفاه» 12 و')).to.deep.equal(['قال', 'الفاه']);
  });

  it('finds the words within two edits, with their Levenshtein distance, and none further', () => {
    const idx = new SymmetricDeleteIndex(['الفاء', 'الفا', 'القاف', 'كتب']);
    const found = idx.candidates('الفاه').sort((a, b) => a.distance - b.distance || (a.word < b.word ? -1 : 1));
    expect(found).to.deep.equal([
      { word: 'الفا', distance: 1 },
      { word: 'الفاء', distance: 1 },
      { word: 'القاف', distance: 2 },
    ]);
    expect(deletions('abc', 1)).to.deep.equal(new Set(['abc', 'bc', 'ac', 'ab']));
  });
});
