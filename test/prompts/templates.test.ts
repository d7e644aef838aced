/** Prompt templates: the built-ins render as always, the prefix-cache variant keeps p5v1's words, declared templates render their examples. */
import { expect } from 'chai';
import { buildPrompt, RAG_SYSTEM_V1 } from '../../src/prompts/builder';
import { fill, RAG_CACHE_SYSTEM_V1, renderTemplate, resolveTemplate } from '../../src/prompts/templates';

const OCR = 'قال أبو عثمان فـي كتابه';
const CTX = '1. قال أبو عثمان في كتابه';
const sentences = (t: string) =>
  t
    .replace('{retrieval_context}', '')
    .split(/(?<=[.:])\s+/)
    .map((x) => x.trim())
    .filter(Boolean)
    .sort();

describe('prompts/templates', () => {
  it('rag and zero_shot render exactly as buildPrompt (p5v1, v1, the fallback included)', () => {
    for (const ctx of [CTX, '', null])
      expect(renderTemplate(resolveTemplate('rag', undefined)!, OCR, ctx)).to.deep.equal(buildPrompt('rag', OCR, ctx));
    expect(renderTemplate(resolveTemplate('zero_shot', undefined)!, OCR, CTX)).to.deep.equal(buildPrompt('zero_shot', OCR));
  });

  it('rag_cache (p5v1c) has the same sentences as p5v1, the fixed instruction first and the context last', () => {
    expect(sentences(RAG_CACHE_SYSTEM_V1)).to.deep.equal(sentences(RAG_SYSTEM_V1));
    const t = resolveTemplate('rag_cache', undefined)!;
    const a = renderTemplate(t, OCR, CTX);
    const b = renderTemplate(t, 'نص آخر', '1. سياق آخر');
    expect(a.promptVersion).to.equal('p5v1c');
    expect(a.messages[0].content.endsWith(CTX)).to.equal(true);
    // Everything before the context is shared by every line's prompt (p5v1 shares only its first sentence).
    const fixed = RAG_CACHE_SYSTEM_V1.replace('{retrieval_context}', '');
    expect(a.messages[0].content.startsWith(fixed) && b.messages[0].content.startsWith(fixed)).to.equal(true);
    expect(renderTemplate(t, OCR, ' ')).to.deep.equal(buildPrompt('rag', OCR, ' '));
  });

  it('a declared few-shot template: system, one user/assistant pair per example, then the line', () => {
    const t = resolveTemplate('fs', {
      fs: {
        version: 'fs1',
        system: 'صحح. المراجع: {retrieval_context}',
        user: 'النص: {ocr_text}',
        examples: [{ ocr_text: 'ا', corrected_text: 'ب' }],
      },
    })!;
    expect(t).to.include({ name: 'fs', version: 'fs1', retrieves: true });
    const p = renderTemplate(t, OCR, CTX);
    expect(p.messages).to.deep.equal([
      { role: 'system', content: `صحح. المراجع: ${CTX}` },
      { role: 'user', content: 'النص: ا' },
      { role: 'assistant', content: 'ب' },
      { role: 'user', content: `النص: ${OCR}` },
    ]);
    expect(p).to.include({ promptType: 'rag', promptVersion: 'fs1' });
    expect(renderTemplate(t, OCR, '').promptType).to.equal('zero_shot_fallback');
  });

  it('fills placeholders in one pass (a line holding "{ocr_text}" is not expanded again); the sha256 follows the text', () => {
    expect(fill('{retrieval_context}|{ocr_text}', { retrieval_context: '{ocr_text}', ocr_text: 'x' })).to.equal('{ocr_text}|x');
    const a = resolveTemplate('t', { t: { version: '1', system: 'أ' } })!;
    const b = resolveTemplate('t', { t: { version: '1', system: 'ب' } })!;
    expect(a.sha256).to.match(/^[0-9a-f]{64}$/);
    expect(a.sha256).to.not.equal(b.sha256);
    expect(a).to.include({ user: '{ocr_text}', retrieves: false });
    expect(resolveTemplate('nope', undefined)).to.equal(null);
  });
});
