/**
 * The Lines view's loading form (analysis/explorer/bundle.ts): the index holds the columns of every line and
 * arm (the CER derived in the page from edits / ref_chars, checked against lines.json for every line), the
 * lines and texts are cut into side files of one render id, and a lines.json whose CER is not its edits'
 * is refused naming the line.
 */
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { DETAIL_LINES, indexColumns, linesBundle, TEXT_LINES } from '../../../analysis/explorer/bundle';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function doc(n: number): Json {
  const arm = (i: number) =>
    i % 3 === 0
      ? null
      : {
          edits: i % 4,
          cer: Math.round(((i % 4) / 7) * 1e6) / 1e6,
          diff: ['ب'],
          failed: null,
          raw: null,
          guard: i % 2 ? 'kept' : null,
          retrieval: null,
        };
  return {
    meta: { baseline: 'a', arms: [{ name: 'a' }, { name: 'b' }], datasets: [{ name: 'D1' }, { name: 'D2' }], bands: ['low', 'high'] },
    lines: Array.from({ length: n }, (_, i) => ({
      dataset: i < n / 2 ? 'D1' : 'D2',
      sample_id: `s${i}`,
      band: i % 2 ? 'high' : 'low',
      ref_chars: 7,
      ocr: { edits: 2, cer: 0.285714, diff: [['ب', 'ت', 1], 'قال'] },
      arms: { a: arm(i), b: arm(i + 1) },
    })),
  };
}

describe('analysis/explorer/bundle: the index in the page, the lines in side files', () => {
  it('indexes every line: dataset and band as indices, edits (null: no line) and guards per arm', () => {
    const c = indexColumns(doc(6));
    expect(c.dataset).to.deep.equal([0, 0, 0, 1, 1, 1]);
    expect(c.band).to.deep.equal([0, 1, 0, 1, 0, 1]);
    expect(c.arms.a.edits).to.deep.equal([null, 1, 2, null, 0, 1]);
    expect(c.guards).to.deep.equal(['kept']);
    expect(c.arms.a.guard).to.deep.equal([-1, 0, -1, -1, -1, 0]);
  });

  it('refuses a line whose CER is not round(edits / ref_chars), naming it', () => {
    const d = doc(3);
    d.lines[1].arms.a.cer = 0.5;
    expect(() => indexColumns(d)).to.throw('lines.json line 2 (s1): a cer 0.5 is not round(edits 1 / ref_chars 7)');
  });

  it('cuts lines and texts into side files that carry the render id; the index has the same id', () => {
    const n = DETAIL_LINES * 2 + 1;
    const b = linesBundle(doc(n));
    const index = JSON.parse(gunzipSync(Buffer.from(b.index, 'base64')).toString('utf8'));
    expect(index.id).to.equal(b.id);
    expect(index.side).to.deep.equal({
      dir: 'report-lines',
      lines: { size: DETAIL_LINES, count: 3 },
      text: { size: TEXT_LINES, count: 1 },
    });
    expect([...b.files.keys()]).to.deep.equal([
      'report-lines/lines-0000.js',
      'report-lines/lines-0001.js',
      'report-lines/lines-0002.js',
      'report-lines/text-0000.js',
    ]);
    const call = /^openitiLinesChunk\("([0-9a-f]{16})","lines",2,"([^"]+)"\);\n$/.exec(b.files.get('report-lines/lines-0002.js')!)!;
    expect(call[1]).to.equal(b.id);
    expect(JSON.parse(gunzipSync(Buffer.from(call[2], 'base64')).toString('utf8'))).to.deep.equal([doc(n).lines[n - 1]]);
    const text = /"text",0,"([^"]+)"/.exec(b.files.get('report-lines/text-0000.js')!)![1];
    expect(JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8'))[0]).to.deep.equal(['بقال', 'تقال']);
    expect(linesBundle(doc(n)).id).to.equal(b.id); // byte-stable
  });
});
