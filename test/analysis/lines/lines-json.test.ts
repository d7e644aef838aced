/**
 * lines.json on disk (analysis/lines/lines-json.ts): written a line at a time as exactly the bytes of
 * JSON.stringify(doc) + '\n', read back a line at a time to the same document; a file of another layout
 * (pretty-printed) is parsed whole; a broken one is a one-line error naming the file.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readLinesJson, writeLinesJson } from '../../../analysis/lines/lines-json';

describe('analysis/lines-json: lines.json written and read a line at a time', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lines-json-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Strings with the characters a byte scanner could trip on: quotes, backslashes, braces, brackets, Arabic.
  const line = (i: number) => ({
    dataset: 'D',
    sample_id: `s${i}`,
    ref_chars: i,
    ocr: { edits: 1, cer: 0.5, diff: ['قال "}]', ['ب', 'ت\\', 1], '{[,'] },
    arms: { rag: i % 2 ? null : { edits: 0, cer: 0, raw: null, guard: undefined, retrieval: [{ text: 'a"b\\"c}', score: null }] } },
  });
  const doc = { meta: { baseline: 'rag', note: '"lines":[ inside meta' }, lines: Array.from({ length: 2503 }, (_, i) => line(i)) };

  it('writes the bytes of JSON.stringify(doc) + newline, and reads the same document back', () => {
    const file = path.join(dir, 'lines.json');
    writeLinesJson(file, doc);
    expect(readFileSync(file, 'utf8')).to.equal(JSON.stringify(doc) + '\n');
    expect(readLinesJson(file)).to.deep.equal(JSON.parse(JSON.stringify(doc)));
  });

  it('an empty study: "lines":[] both ways', () => {
    const file = path.join(dir, 'empty.json');
    writeLinesJson(file, { meta: {}, lines: [] });
    expect(readFileSync(file, 'utf8')).to.equal('{"meta":{},"lines":[]}\n');
    expect(readLinesJson(file)).to.deep.equal({ meta: {}, lines: [] });
  });

  it('parses a file of another layout whole, and names the file when it is not JSON', () => {
    const pretty = path.join(dir, 'pretty.json');
    writeFileSync(pretty, JSON.stringify({ lines: doc.lines.slice(0, 3), meta: doc.meta }, null, 2));
    expect(readLinesJson(pretty).lines).to.have.length(3);
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"meta":{},"lines":[{"a":1},');
    expect(() => readLinesJson(broken)).to.throw(`${broken}: not valid JSON`);
  });
});
