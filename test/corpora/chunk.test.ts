import { expect } from 'chai';
import { chunkText } from '../../src/corpora/chunk';

const words = (n: number, dot = 0) => Array.from({ length: n }, (_, i) => `w${i}${dot && (i + 1) % dot === 0 ? '.' : ''}`).join(' ');

describe('corpora/chunkText', () => {
  it('cuts into windows of at most `size` tokens that overlap by at most `overlap` tokens, covering every word', () => {
    const text = words(100);
    const cs = chunkText(text, { size: 30, overlap: 10, sentenceBias: 0 });
    for (const c of cs) {
      expect(c.tokens).to.be.at.most(30);
      expect(c.text).to.equal(text.slice(c.char_start, c.char_end));
      expect(c.tokens).to.equal(c.text.split(' ').length);
    }
    expect(cs[0].text.split(' ')).to.have.length(30);
    // consecutive chunks share exactly the overlap
    const w0 = cs[0].text.split(' ');
    const w1 = cs[1].text.split(' ');
    expect(w1.slice(0, 10)).to.deep.equal(w0.slice(-10));
    expect(cs[cs.length - 1].text.endsWith('w99')).to.equal(true);
    const seen = new Set(cs.flatMap((c) => c.text.split(' ')));
    expect(seen.size).to.equal(100);
  });

  it('defaults are docs/corpus.md#generic-corpora: 900-token chunks with 180 overlap', () => {
    const cs = chunkText(words(2000), { sentenceBias: 0 });
    expect(cs[0].tokens).to.equal(900);
    expect(cs[1].text.split(' ')[0]).to.equal('w720');
  });

  it('sentence bias ends a chunk after the last sentence end in its last quarter', () => {
    const cs = chunkText(words(100, 7), { size: 30, overlap: 5 });
    expect(cs[0].text.endsWith('w27.')).to.equal(true); // boundaries every 7 words: 7,14,21,28 → 28 is within the last 25 %
    expect(cs[0].tokens).to.equal(28);
    const none = chunkText(words(100, 7), { size: 30, overlap: 5, sentenceBias: 0 });
    expect(none[0].tokens).to.equal(30);
  });

  it('headings start new chunks and are recorded', () => {
    const text = '# Intro\nfirst part here.\n\n## Details\nsecond part there.\nmore details.';
    const cs = chunkText(text, { size: 50, overlap: 5 });
    expect(cs.map((c) => c.heading)).to.deep.equal(['Intro', 'Details']);
    expect(cs[0].text).to.equal('# Intro\nfirst part here.');
    expect(cs[1].text.startsWith('## Details')).to.equal(true);
    expect(chunkText(text, { size: 50, overlap: 5, headingPattern: null })).to.have.length(1);
    expect(chunkText('### | باب في الأدب\nقال الشيخ', { size: 50, overlap: 5 })[0].heading).to.equal('باب في الأدب');
  });

  it('counts tokens with a custom counter and keeps an over-long word whole', () => {
    const cs = chunkText('aaaa bb cccccccc d', { size: 6, overlap: 0, countTokens: (w) => w.length, sentenceBias: 0 });
    expect(cs.map((c) => c.text)).to.deep.equal(['aaaa bb', 'cccccccc', 'd']);
    expect(cs.map((c) => c.tokens)).to.deep.equal([6, 8, 1]);
  });

  it('rejects bad sizes; empty text gives no chunks', () => {
    expect(() => chunkText('x', { size: 0 })).to.throw(/size/);
    expect(() => chunkText('x', { size: 10, overlap: 10 })).to.throw(/overlap/);
    expect(chunkText('   \n ')).to.deep.equal([]);
  });
});
