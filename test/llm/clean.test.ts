import { expect } from 'chai';
import { cleanOutput } from '../../src/llm/clean';

const T = 'قال أبو عثمان';

describe('llm/clean: cleanOutput', () => {
  const table: [string, string, string][] = [
    ['plain text is only trimmed', `  ${T}\n`, T],
    ['think block removed', `<think>\nالنص فيه أخطاء…\n</think>\n\n${T}`, T],
    ['several think blocks, any case', `<THINK>a</THINK>${T}<think>b</think>`, T],
    ['unclosed think (cut by max tokens) leaves nothing', '<think>still thinking about', ''],
    ['lone closing think (opened by the template) drops what precedes', `reasoning here</think>\n${T}`, T],
    ['thinking tag variant', `<thinking>x</thinking>${T}`, T],
    ['code fence unwrapped', '```\n' + T + '\n```', T],
    ['code fence with language and preamble', 'Here you go:\n```text\n' + T + '\n```\nDone.', T],
    ['unclosed code fence', '```arabic\n' + T, T],
    ['Arabic label', `النص المصحح: ${T}`, T],
    ['Arabic label on its own line', `النص المصحح:\n${T}`, T],
    ['Arabic label in bold markdown', `**النص المصحح:** ${T}`, T],
    ['Arabic label variant with shadda', `النص المصحّح: ${T}`, T],
    ['English label', `Corrected text: ${T}`, T],
    ['English label, lower case, heading', `### corrected text:\n${T}`, T],
    ['"Here is the corrected text:" preamble', `Here is the corrected text:\n${T}`, T],
    ['full-width colon', `التصحيح： ${T}`, T],
    ['double quotes', `"${T}"`, T],
    ['guillemets', `«${T}»`, T],
    ['curly quotes', `“${T}”`, T],
    ['label then quotes', `النص المصحح: "${T}"`, T],
    ['think + label + fence + quotes', `<think>hmm</think>\nCorrected text:\n\`\`\`\n"${T}"\n\`\`\``, T],
    ['inner quotes are content, outer kept', `"قال" ثم "سكت"`, `"قال" ثم "سكت"`],
    ['quotes only at one end are kept', `"${T}`, `"${T}`],
    ['a label word inside the text is kept', `${T} النص المصحح: لا`, `${T} النص المصحح: لا`],
    ['no colon, no label stripping', `التصحيح واجب`, `التصحيح واجب`],
    ['CRLF normalised', `<think>\r\nx\r\n</think>\r\n${T}\r\n`, T],
    ['empty input', '', ''],
  ];
  for (const [name, raw, want] of table) {
    it(name, () => expect(cleanOutput(raw)).to.equal(want));
  }

  it('keeps quotes that were already around the OCR source', () => {
    expect(cleanOutput(`«${T}»`, { source: `«قال ابو عتمان»` })).to.equal(`«${T}»`);
    expect(cleanOutput(`«${T}»`, { source: 'قال ابو عتمان' })).to.equal(T);
  });

  it('keeps a leading label-like word that the OCR source also starts with', () => {
    expect(cleanOutput('الجواب: نعم قال', { source: 'الجواب: نعم قل' })).to.equal('الجواب: نعم قال');
    expect(cleanOutput('الجواب: نعم قال', { source: 'نعم قل' })).to.equal('نعم قال');
  });

  it('does not touch the raw text (pure)', () => {
    const raw = `<think>x</think>"${T}"`;
    cleanOutput(raw);
    expect(raw).to.equal(`<think>x</think>"${T}"`);
  });
});
