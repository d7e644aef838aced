import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildWitnessDir,
  buildWitnessIndex,
  readWitnessWork,
  WitnessRetriever,
  witnessKeyString,
  type WitnessWork,
} from '../../src/witness';

const HEADER = '######OpenITI#\n#META# x :: y\n#META#Header#End#\n';
const A = 'قال أبو محمد عبد الله بن مسلم بن قتيبة أما بعد حمد الله بجميع محامده والثناء عليه بما هو أهله';
const B = 'فإني رأيت أكثر أهل زماننا هذا عن سبيل الأدب ناكبين ومن اسمه متطيرين ولأهله كارهين';
const C = 'أما الناشئ منهم فراغب عن التعليم والشادي تارك للازدياد والمتأدب في عنفوان الشباب ناس';
const D = 'وكان لباس آدم وحواء ثيابا من نور فلما ذاقا من الشجرة بدت لهما سوآتهما فزعم أهل الكتاب';

function work(uri: string, texts: string[], page: string[] = []): WitnessWork {
  return { uri, date: 276, lines: texts.map((text, i) => ({ line: i + 4, text, page: page[i] ?? null, ms: null })) };
}

describe('witness retrieval', () => {
  it('the key drops diacritics, tatweel, spaces and punctuation and unifies alef/yaa/taa marbuta/hamza seats', () => {
    expect(witnessKeyString('قَالَ: « أبـــو » مُحَمَّدٍ، على مدرسة ؤ')).to.equal('قالابومحمدعليمدرسهو');
  });

  it('a canonically equivalent (decomposed) query has the same key and the same hit and score', () => {
    const composed = 'فإني رأيت أكثر أهل زماننا هذا عن سبيل الأدب';
    const decomposed = composed.normalize('NFD'); // hamza on alef / yaa as base letter + combining hamza
    expect(decomposed).to.not.equal(composed);
    expect(witnessKeyString(decomposed)).to.equal(witnessKeyString(composed));
    const { data, texts } = buildWitnessIndex([work('0276IbnQutayba.Adab.v1', [A, B.normalize('NFD'), C])], { stride: 1 });
    const r = WitnessRetriever.inMemory(data, texts);
    const [a] = r.retrieve(composed, 1);
    const [b] = r.retrieve(decomposed, 1);
    expect({ line: b.line, score: b.score, text: b.text }).to.deep.equal({ line: a.line, score: a.score, text: a.text });
    expect(a.line).to.equal(5);
    expect(a.score).to.equal(1);
  });

  it('finds the passage an OCR-noisy line copies, across a line break, with its page and score', () => {
    const { data, texts } = buildWitnessIndex(
      [work('0001X.Other.v1', [D, C]), work('0276IbnQutayba.Adab.v1', [A, B, C], ['PageV01P003', 'PageV01P004', 'PageV01P004'])],
      { stride: 1 },
    );
    const r = WitnessRetriever.inMemory(data, texts);
    // the end of line A and the start of line B, with OCR errors: dots lost, a word split, a letter dropped
    const ocr = 'والثنا عليه بما هو اهله فاني رايت اكثر أهل زمان نا هذا';
    const [hit] = r.retrieve(ocr, 1);
    expect(hit.source_uri).to.equal('0276IbnQutayba.Adab.v1');
    expect(hit.line).to.equal(4);
    expect(hit.line_end).to.equal(5);
    expect(hit.page).to.equal('PageV01P003');
    expect(hit.text).to.equal('والثناء عليه بما هو أهله فإني رأيت أكثر أهل زماننا هذا');
    expect(hit.score).to.be.greaterThan(0.85).and.lessThan(1);
  });

  it('returns nothing for a line of text that is in no work, and nothing below minScore', () => {
    const { data, texts } = buildWitnessIndex([work('w.v1', [A, B])], { stride: 1 });
    const r = WitnessRetriever.inMemory(data, texts);
    expect(r.retrieve('xyz', 3)).to.deep.equal([]);
    const hits = r.retrieve('سبحان ربك رب العزة عما يصفون وسلام على المرسلين', 3, 0.8);
    expect(hits).to.deep.equal([]);
  });

  it('ranks the same passage in two works (two witnesses) before a different passage', () => {
    const { data, texts } = buildWitnessIndex([work('a.v1', [A, C]), work('b.v1', [D, C])], { stride: 2 });
    const hits = WitnessRetriever.inMemory(data, texts).retrieve('والشادى تارك للازدياد والمتادب في عنفوان', 3);
    expect(
      hits
        .slice(0, 2)
        .map((h) => h.source_uri)
        .sort(),
    ).to.deep.equal(['a.v1', 'b.v1']);
    expect(hits.slice(0, 2).every((h) => h.line === 5 && h.score > 0.8)).to.equal(true);
  });

  it('places a short line found verbatim in several places where its neighbouring OCR lines are', () => {
    const short = 'بيت المقدس';
    const { data, texts } = buildWitnessIndex([work('w.v1', [`ثم سار إلى ${short}`, D, A, short, B, `ونزل ${short}`])], { stride: 1 });
    const r = WitnessRetriever.inMemory(data, texts);
    const line = { text: 'بيت المقدس .', before: ['بما هو اهله', 'والثنا عليه'], after: ['فاني رايت اكثر أهل زمان نا هذا'] };
    // alone, the three places tie and the first wins; with its neighbours the line is the one between A and B
    expect(r.retrieve(line.text, 3).map((h) => [h.line, h.score])).to.deep.equal([
      [4, 1],
      [7, 1],
      [9, 1],
    ]);
    const [hit] = r.retrieveInContext(line, 3);
    expect({ line: hit.line, line_end: hit.line_end, text: hit.text, score: hit.score }).to.deep.equal({
      line: 7,
      line_end: 7,
      text: short,
      score: 1,
    });
    // a long line that alone is unambiguous keeps its hits whatever its neighbours say
    const long = { text: 'فإنى رأيت اكثر اهل زماننا هذا عن سبيل الادب ناكبين', before: [short], after: [D] };
    expect(r.retrieveInContext(long, 3)).to.deep.equal(r.retrieve(long.text, 3));
  });

  it('reads page and milestone markers (a marker closes its page) and round-trips through its directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'witness-'));
    try {
      const file = path.join(dir, 'w.txt');
      writeFileSync(file, `${HEADER}# ${A}\n~~${B} PageV01P005\n# ${C} ms01\n# PageV01P006\n# ${D}\n`);
      const w = await readWitnessWork(file, 'w.v1', 276);
      expect(w.lines.map((l) => [l.line, l.page, l.ms])).to.deep.equal([
        [4, 'PageV01P005', 'ms01'],
        [5, 'PageV01P005', 'ms01'],
        [6, 'PageV01P006', 'ms01'],
        [8, null, null],
      ]);
      const out = path.join(dir, 'idx');
      const m = await buildWitnessDir({ files: [{ uri: 'w.v1', date: 276, file }], dir: out, fingerprint: 'f1', params: { stride: 1 } });
      expect(m.lines).to.equal(4);
      const disk = WitnessRetriever.open(out);
      const mem = WitnessRetriever.inMemory(
        buildWitnessIndex([w], { stride: 1 }).data,
        w.lines.map((l) => l.text.normalize('NFC')),
      );
      const q = 'والمتادب فى عنفوان الشباب ناس وكان لباس ادم';
      expect(disk.retrieve(q, 2)).to.deep.equal(mem.retrieve(q, 2));
      expect(disk.retrieve(q, 1)[0].page).to.equal('PageV01P006');
      disk.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("source in the corpus (≥ 90 % of the gold line's 5-grams in the source work)", () => {
  it('is judged without diacritics, tatweel and whitespace but with punctuation, and needs 90 %', async () => {
    const { gramSet, gramCoverage, sourceInCorpus, coverageText } = await import('../../src/witness/source-coverage');
    expect(coverageText('قَالَ  أبـو ،')).to.equal('قالأبو،');
    const work = gramSet([A, B]);
    expect(sourceInCorpus('قَالَ أبـو مُحَمَّد عبد الله بن مسلم', work)).to.equal(true); // vocalised, stretched, spaced otherwise
    const line = 'عبد الله بن مسلم بن قتيبة';
    const changed = 'عبد الله بن مسلم بن قتيبه'; // ة → ه: the last 5-gram no longer occurs (no letter unification)
    expect(gramCoverage(line, work)).to.equal(1);
    const c = gramCoverage(changed, work)!;
    expect(c).to.be.within(0.9, 0.95);
    expect(sourceInCorpus(changed, work)).to.equal(true);
    expect(sourceInCorpus('عبد الله بن مسلم بن قتيبة، رحمه', work)).to.equal(false);
    expect(gramCoverage('قال', work)).to.equal(null);
  });
});

describe('hit provenance (same_passage ≥ 0.8 similarity to the gold / same_work / other_work)', () => {
  it('classes each hit of a context and says whether the gold passage is in it', async () => {
    const { lineProvenance, passageSimilarity, contextSentences } = await import('../../src/witness/provenance');
    const gold = 'فإني رأيت أكثر أهل زماننا';
    expect(passageSimilarity(gold, B)).to.equal(1); // the gold is a part of the hit
    expect(passageSimilarity(gold, 'فاني رايت اكثر اهل زمان')).to.be.within(0.8, 0.95);
    expect(passageSimilarity(gold, C)).to.be.below(0.8);
    expect(contextSentences('نصوص مرجعية صحيحة:\n1. أ ب\n2. ج د')).to.deep.equal(['أ ب', 'ج د']);
    expect(contextSentences('[#1] أ ب\n[#2] ج د')).to.deep.equal(['أ ب', 'ج د']);
    const record = {
      gt_text: gold,
      retrieval_context: `نصوص مرجعية صحيحة:\n1. ${C}\n2. ${A}\n3. ${B}`,
      retrieval_sources: [
        { source_uri: '0276IbnQutayba.Adab.v2' },
        { source_uri: '0300Other.Book.v1' },
        { source_uri: '0300Other.Book.v1' },
      ],
    };
    expect(lineProvenance(record, '0276IbnQutayba.Adab*')).to.deep.equal({
      gold_in_context: true,
      best: 'same_passage',
      classes: ['same_work', 'other_work', 'same_passage'],
    });
    expect(lineProvenance({ ...record, retrieval_context: `1. ${C}\n2. ${A}` }, '0276IbnQutayba.Adab*')).to.deep.equal({
      gold_in_context: false,
      best: 'same_work',
      classes: ['same_work', 'other_work'],
    });
    expect(lineProvenance({ ...record, retrieval_context: `1. ${C}` }, null).classes).to.deep.equal(['unknown_work']);
    expect(lineProvenance({ gt_text: gold, retrieval_context: '' }, null)).to.deep.equal({
      gold_in_context: false,
      best: 'no_context',
      classes: [],
    });
  });
});
