/**
 * The collate corrector on real OCR_GS lines (skipped without ../shared/data): Ibn Qutayba's Adab al-Kātib
 * collated with one OpenITI version of its source (witness retrieval in an index of that work, each line with its
 * OCR neighbours), and an al-Jāḥiẓ line, whose book is not that work, against the same index.
 */
import { expect } from 'chai';
import path from 'node:path';
import { collateLine, DEFAULT_COLLATE_MIN_SIMILARITY } from '../../src/correctors/collate';
import { voteCharacters } from '../../src/correctors/vote';
import { canonical } from '../../src/text/canonical';
import { scorePair } from '../../src/text/distance';
import { buildWitnessIndex, linesInContext, readWitnessWork, WitnessRetriever } from '../../src/witness';
import { loadOcrGsLines, type OcrGsLine } from '../helpers/ocr-gs-lines';
import { requireSharedData } from '../helpers/shared-data';

const SOURCE = '0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1';

describe('correctors/collate (real OCR_GS lines)', function () {
  this.timeout(120000);
  let retriever: WitnessRetriever;
  let books: Map<string, OcrGsLine[]>;
  before(async function () {
    const openiti = requireSharedData(this, 'openiti');
    const ocrGs = requireSharedData(this, 'ocr-gs');
    const file = path.join(openiti, 'data', '0276IbnQutaybaDinawari', '0276IbnQutaybaDinawari.AdabKatib', SOURCE);
    const index = buildWitnessIndex([await readWitnessWork(file, SOURCE, 276)]);
    retriever = WitnessRetriever.inMemory(index.data, index.texts);
    books = new Map();
    for (const l of loadOcrGsLines(ocrGs)) books.set(l.book, [...(books.get(l.book) ?? []), l]);
  });

  /** The witness hits of a book's line, searched with its OCR neighbours. */
  const hitsOf = (book: string, id: string) => {
    const lines = books.get(book)!;
    const i = lines.findIndex((l) => l.id === id);
    return {
      line: lines[i],
      hits: retriever.retrieveInContext(
        linesInContext(
          lines.map((l) => l.ocr),
          1,
        )[i],
        3,
      ),
    };
  };

  it('corrects a line whose witness is known: Adab 000208 becomes its gold text (4 OCR errors → 0)', () => {
    const { line, hits } = hitsOf('IbnQutayba.Adab', '000208');
    const d = collateLine(line.ocr, hits);
    expect(scorePair(line.gt, line.ocr).charEdits).to.equal(4);
    expect(d.reason).to.equal('one_witness');
    expect(d.witnesses.map((w) => w.source_uri)).to.deep.equal([SOURCE]);
    expect(d.text).to.equal(canonical(line.gt));
    expect(scorePair(line.gt, d.text).charEdits).to.equal(0);
  });

  it('a line without a witness stays the OCR line; without the threshold a passage of another book would replace it', () => {
    const { line, hits } = hitsOf('Jahiz.Hayawan', '000004');
    expect(hits.length).to.be.greaterThan(0);
    const d = collateLine(line.ocr, hits);
    expect(d.reason).to.equal('below_threshold');
    expect(d.best_similarity!).to.be.lessThan(DEFAULT_COLLATE_MIN_SIMILARITY);
    expect(d.text).to.equal(canonical(line.ocr));
    expect(d.witnesses).to.deep.equal([]);
    expect(collateLine(line.ocr, hits, 0).text).to.not.equal(canonical(line.ocr));
  });

  it('no context: the OCR line, reason no_hit', () => {
    const line = books.get('IbnQutayba.Adab')![1];
    expect(collateLine(line.ocr, [])).to.deep.equal({ text: canonical(line.ocr), reason: 'no_hit', best_similarity: null, witnesses: [] });
  });
});

describe('correctors/vote', () => {
  it('two witnesses outvote the OCR where it errs and outvote an edition variant; one witness comes out as it is', () => {
    // OCR misreads ق as ف; witness 1 has an edition variant (محمود), witness 2 agrees with the print.
    expect(voteCharacters('فال أبو محمد', ['قال أبو محمود', 'قال أبو محمد'])).to.equal('قال أبو محمد');
    // Copying the first witness alone would keep its variant: the vote is what removes it.
    expect(voteCharacters('فال أبو محمد', ['قال أبو محمود'])).to.equal('قال أبو محمود');
  });

  it('collateLine votes when several distinct witnesses fit, and counts identical spans once', () => {
    const hits = [
      { text: 'قال أبو محمود بن قتيبة', source_uri: 'a' },
      { text: 'قال أبو محمد بن قتيبة', source_uri: 'b' },
      { text: 'قال أبو محمد بن قتيبة', source_uri: 'c' },
    ];
    const d = collateLine('فال أبو محمد بن قتيبة', hits, 0.5);
    expect(d.reason).to.equal('vote');
    expect(d.witnesses.map((w) => w.source_uri)).to.deep.equal(['b', 'a']);
    expect(d.text).to.equal('قال أبو محمد بن قتيبة');
  });
});
