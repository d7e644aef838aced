/** The share of an arm's prompts a prefix cache could reuse: p5v1c shares its whole instruction, p5v1 only its opening. */
import { expect } from 'chai';
import { buildPrompt } from '../../src/prompts/builder';
import { prefixShare, promptText } from '../../src/prompts/prefix-share';
import { renderTemplate, resolveTemplate } from '../../src/prompts/templates';

const LINES = Array.from({ length: 20 }, (_, i) => ({
  ocr: `قال أبو عثمان في الباب ${i} من كتاب الحيوان`,
  ctx: `نصوص مرجعية صحيحة:\n1. سياق مسترجع رقم ${i} عن الحيوان والشعر\n2. وقال غيره ${i * 7}`,
}));

describe('prompts/prefix-share', () => {
  it('counts, per prompt, its longest prefix shared with an earlier one, over all characters', () => {
    expect(prefixShare(['abcd', 'abXY'])).to.equal(0.25); // 0 + 2 of 8
    expect(prefixShare(['abcd', 'zzzz', 'abcz'])).to.equal(0.25); // 0 + 0 + 3 of 12
    expect(prefixShare([])).to.equal(null);
  });

  it('p5v1c (rag_cache) shares more of its prompts than p5v1 on the same lines', () => {
    const p5v1 = prefixShare(LINES.map((l) => promptText(buildPrompt('rag', l.ocr, l.ctx).messages)))!;
    const cache = resolveTemplate('rag_cache', undefined)!;
    const p5v1c = prefixShare(LINES.map((l) => promptText(renderTemplate(cache, l.ocr, l.ctx).messages)))!;
    expect(p5v1c).to.be.greaterThan(p5v1 + 0.2);
  });
});
