import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { TextTokenizer } from '../../src/embed/tokenizer';
import { FIXTURES } from '../helpers/shared-data';
import { TEST_MODELS } from './models';

interface Reference {
  model: string;
  max_length: number;
  ids: number[][];
  ids_max32: number[][];
}

const cases: string[] = JSON.parse(readFileSync(path.join(FIXTURES, 'embed', 'tokenizer-cases.json'), 'utf8'));

describe('embed/tokenizer (tokenizers.js vs the Rust tokenizers reference)', () => {
  for (const m of TEST_MODELS) {
    describe(m.name, function () {
      let tok: TextTokenizer;
      let ref: Reference;
      before(function () {
        const file = path.join(m.dir, 'tokenizer.json');
        const refFile = path.join(FIXTURES, 'embed', `reference-${m.name}.json`);
        if (!existsSync(file) || !existsSync(refFile)) {
          console.log(`    (skipped: ${file} or ${refFile} missing)`);
          this.skip();
        }
        tok = TextTokenizer.load(file);
        ref = JSON.parse(readFileSync(refFile, 'utf8'));
      });

      it('gives the same ids as the Rust tokenizer for every case (diacritics, tatweel, Persian letters, Latin, emoji, empty)', () => {
        const mismatches = cases
          .map((c, i) => ({ i, c, got: tok.encode(c, ref.max_length), want: ref.ids[i] }))
          .filter((r) => JSON.stringify(r.got) !== JSON.stringify(r.want));
        expect(mismatches.map((r) => `${r.i}: ${r.c.slice(0, 40)}`)).to.deep.equal([]);
      });

      it('truncates like HF truncation: content cut, leading and trailing special tokens kept', () => {
        for (let i = 0; i < cases.length; i++) expect(tok.encode(cases[i], 32), `case ${i}`).to.deep.equal(ref.ids_max32[i]);
        const long = cases[cases.length - 1];
        const full = tok.encode(long, 100000);
        const cut = tok.encode(long, 32);
        expect(full.length).to.be.greaterThan(32);
        expect(cut).to.have.length(32);
        expect(cut.at(-1)).to.equal(full.at(-1));
        expect(cut.slice(0, 31)).to.deep.equal(full.slice(0, 31));
      });
    });
  }

  describe('bad tokenizer files', () => {
    let dir: string;
    before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'tok-'))));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('names the file when tokenizer.json is not valid JSON', () => {
      const f = path.join(dir, 'bad.json');
      writeFileSync(f, '{"model": {"type": "WordPiece"');
      expect(() => TextTokenizer.load(f)).to.throw(/bad\.json is not valid JSON/);
    });

    it('rejects JSON that is not a tokenizer', () => {
      const f = path.join(dir, 'other.json');
      writeFileSync(f, '{"hello": 1}');
      expect(() => TextTokenizer.load(f)).to.throw(/has no "model" section/);
    });
  });
});
