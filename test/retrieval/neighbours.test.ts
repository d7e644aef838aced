import { expect } from 'chai';
import path from 'node:path';
import { CorpusNeighbours, OpenITINeighbours } from '../../src/retrieval/neighbours';
import { findLine, readSourceLines } from '../../src/retrieval/source-lines';
import { corpusStoreFrom } from '../../src/retrieval/store';
import { FIXTURES, OPENITI_ROOT, requireSharedData } from '../helpers/shared-data';

const ROOT = path.join(FIXTURES, 'openiti', 'corpus');
const FIX004 = path.join(ROOT, 'data', '0200AuthorB', '0200AuthorB.Tarikh', '0200AuthorB.Tarikh.Fix004-ara1.completed');
const URI = '0200AuthorB.Tarikh.Fix004-ara1';
const L10 = 'وقال الأصمعي إن الوفاء زينة الرجال في المجالس';

describe('retrieval/neighbours (context windows)', () => {
  it('readSourceLines gives cleaned content lines with their physical line numbers', async () => {
    const lines = await readSourceLines(FIX004);
    expect(lines.slice(0, 3)).to.deep.equal([
      { line: 8, text: 'قال الشيخ أبو محمد إن الوفاء نور يهتدى به في الظلمات' }, // trailing verse number stripped
      { line: 9, text: 'وذكر الراوي عن أبيه إن الكرم مفتاح كل خير في الدنيا' },
      { line: 10, text: L10 },
    ]);
    expect(lines[5].line).to.equal(14); // the page marker on line 13 is not content
    expect(findLine(lines, 14)).to.equal(5);
    expect(findLine(lines, 13)).to.equal(-1);
  });

  it('OpenITI source: ±n content lines from the original file, placed by line or by text; one parse per file per batch', async () => {
    const nb = new OpenITINeighbours({ openitiRoot: ROOT });
    const [byText, byLine, first, missing, unknown] = await nb.lookup(
      [
        { idx: 40, source_uri: URI, text: L10 },
        { idx: 41, source_uri: URI, text: 'وقال الأصمعي إن العلم زينة الرجال في المجالس', line: 14 },
        { idx: 42, source_uri: URI, text: 'قال الشيخ أبو محمد إن الوفاء نور يهتدى به في الظلمات' },
        { idx: 43, source_uri: URI, text: 'جملة ليست في الملف' },
        { idx: 44, source_uri: '0300AuthorE.Lost.Fix007-ara1', text: 'x' },
      ],
      2,
    );
    expect(byText).to.deep.equal({
      before: ['قال الشيخ أبو محمد إن الوفاء نور يهتدى به في الظلمات', 'وذكر الراوي عن أبيه إن الكرم مفتاح كل خير في الدنيا'],
      after: ['وقال الأصمعي إن الصدق خير ما ورثه الآباء للأبناء', 'قال الشيخ أبو محمد إن الصبر حصن منيع لأهل المروءة'],
      line: 10,
      problem: null,
    });
    expect(byLine.line).to.equal(14);
    expect(byLine.before).to.deep.equal([
      'وقال الأصمعي إن الصدق خير ما ورثه الآباء للأبناء',
      'قال الشيخ أبو محمد إن الصبر حصن منيع لأهل المروءة',
    ]);
    expect(first.before).to.deep.equal([]);
    expect(missing.problem).to.match(/not found in 0200AuthorB/);
    expect(unknown.problem).to.match(/no readable file for 0300AuthorE/);
    expect(nb.filesParsed).to.equal(1);
    // A stale line number (text moved) falls back to the text.
    const [stale] = await nb.lookup([{ idx: 1, source_uri: URI, text: L10, line: 9 }], 1);
    expect(stale.line).to.equal(10);
    expect(nb.filesParsed).to.equal(1); // cached
  });

  it('corpus source: idx ± n within the same source_uri', async () => {
    const store = corpusStoreFrom([
      { text: 'a0', source_uri: 'A' },
      { text: 'b0', source_uri: 'B' },
      { text: 'b1', source_uri: 'B', line: 7 },
      { text: 'b2', source_uri: 'B' },
      { text: 'c0', source_uri: 'C' },
    ]);
    const [mid, outside] = await new CorpusNeighbours(store).lookup(
      [
        { idx: 2, source_uri: 'B', text: 'b1' },
        { idx: 9, source_uri: 'B', text: '?' },
      ],
      3,
    );
    expect(mid).to.deep.equal({ before: ['b0'], after: ['b2'], line: 7, problem: null });
    expect(outside.problem).to.match(/idx 9/);
  });

  it('real OpenITI: the window around a Tarikh line holds its neighbours in the printed text', async function () {
    requireSharedData(this, 'openiti');
    const nb = new OpenITINeighbours({ openitiRoot: OPENITI_ROOT });
    const [w] = await nb.lookup(
      [{ idx: 0, source_uri: '0292Yacqubi.Tarikh.JK001493-ara1', text: 'وأضيق الطريق التي تبلغ الناس النجاة' }],
      1,
    );
    expect(w.line).to.equal(1382);
    expect(w.before[0]).to.include('يبلغ الناس التلف وما اصغر الباب');
    expect(w.after).to.have.length(1);
  });
});
