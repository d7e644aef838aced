/** prompts/context: the retrieval context as a prompt shows it (docs/retrieval.md#prompt-context). */
import { expect } from 'chai';
import { CONTEXT_HEADER, formatForPrompt, truncateForPrompt } from '../../src/prompts/context';
import { generatedArabicSentences } from '../index/synthetic';

const chunk = (text: string) => ({ text });

describe('prompts/context: formatForPrompt and truncateForPrompt', () => {
  it('numbered_arabic: the header line, then "1. …" per sentence', () => {
    const out = formatForPrompt([chunk('قال الوزير إن الحكومة ستنظر في الأمر.'), chunk('أعلنت الوزارة عن فتح باب التسجيل.')]);
    expect(out).to.equal(`${CONTEXT_HEADER}\n1. قال الوزير إن الحكومة ستنظر في الأمر.\n2. أعلنت الوزارة عن فتح باب التسجيل.`);
    expect(CONTEXT_HEADER).to.equal('نصوص مرجعية صحيحة:');
  });

  it('plain: the sentences one per line; no chunks → ""', () => {
    expect(formatForPrompt([chunk('الأول'), chunk('الثاني')], 'plain')).to.equal('الأول\nالثاني');
    expect(formatForPrompt([], 'numbered_arabic')).to.equal('');
    expect(formatForPrompt([], 'plain')).to.equal('');
    expect(() => formatForPrompt([chunk('x')], 'bullets' as 'plain')).to.throw(/format style must be/);
  });

  it('cuts sentences longer than 150 characters at a word boundary, without an ellipsis', () => {
    const words = generatedArabicSentences(12, 3).join(' ');
    expect(Array.from(words).length).to.be.greaterThan(300);
    const cut = truncateForPrompt(words);
    expect(Array.from(cut).length).to.be.at.most(150);
    expect(Array.from(cut).length).to.be.greaterThan(130);
    expect(words.startsWith(cut)).to.equal(true);
    expect(words[cut.length]).to.equal(' '); // the next character of the original is a space: no half word
    expect(cut).to.not.contain('…');
    const line = formatForPrompt([chunk(words)]).split('\n')[1];
    expect(line).to.equal(`1. ${cut}`);
  });

  it('keeps sentences up to the limit whole and hard-cuts a single over-long word', () => {
    const exact = 'ب'.repeat(70) + ' ' + 'ت'.repeat(79);
    expect(Array.from(exact).length).to.equal(150);
    expect(truncateForPrompt(exact)).to.equal(exact);
    expect(truncateForPrompt('ج'.repeat(200))).to.equal('ج'.repeat(150));
    expect(truncateForPrompt('أبو عثمان الجاحظ', 10)).to.equal('أبو عثمان');
  });

  it('keeps each sentence on one line (newlines and space runs become one space)', () => {
    expect(formatForPrompt([chunk('قال\nأبو   عثمان\t')], 'plain')).to.equal('قال أبو عثمان');
  });
});
