import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RAG_PROMPT_VERSION, RAG_SYSTEM_V1, ZERO_SHOT_SYSTEM_V1, buildPrompt, buildRag, buildZeroShot } from '../../src/prompts/builder';
import { REPO_ROOT } from '../helpers/shared-data';

const OCR = 'بلعو واحلة امتفرغن تلل التمة عليما';
const CONTEXT = 'نصوص مرجعية صحيحة:\n1. بلغة واحدة استفرغت تلك القوة عليهما\n2. وكذلك إن تكلم بأكثر من لغة';

// Golden text of the p5v1 prompt (docs/prompts.md#rag-prompt-p5v1), copied by hand from the study's design document.
const P5V1_GOLDEN =
  'أنت مصحح نصوص عربية متخصص. فيما يلي نصوص عربية صحيحة مشابهة للنص المراد تصحيحه، استخدمها كمرجع:\n\n' +
  '{retrieval_context}\n\n' +
  'صحح النص التالي مستعيناً بهذه النصوص المرجعية. أعد النص المصحح فقط بدون أي شرح أو تعليق إضافي.';

/** RAG_SYSTEM_V1 as the design document writes it (concatenated string literals), when that document is at hand (PHASE5_SPEC). */
function specPrompt(): string | null {
  const file = process.env.PHASE5_SPEC ?? path.resolve(REPO_ROOT, '..', 'shared', 'spec', '000_d62bacebb69f798a.txt');
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf('RAG_SYSTEM_V1: str = (');
  const end = text.indexOf('\n)', start);
  if (start < 0 || end < 0) throw new Error(`RAG_SYSTEM_V1 block not found in ${file}`);
  const literals = text.slice(start, end).match(/"(?:[^"\\]|\\.)*"/g) ?? [];
  return literals.map((l) => JSON.parse(l) as string).join('');
}

describe('prompts/builder (docs/prompts.md)', () => {
  it('p5v1 system prompt is the design text verbatim', function () {
    expect(RAG_SYSTEM_V1).to.equal(P5V1_GOLDEN);
    const fromSpec = specPrompt();
    if (fromSpec === null) {
      console.log('    (design document not found: compared with the golden copy only)');
      return;
    }
    expect(RAG_SYSTEM_V1).to.equal(fromSpec);
  });

  it('build_rag returns two messages: system then user (the OCR text)', () => {
    const p = buildRag(OCR, CONTEXT);
    expect(p.messages).to.have.length(2);
    expect(p.messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(p.messages[1].content).to.equal(OCR);
  });

  it('build_rag puts the retrieval context in the system message, between the two \\n\\n', () => {
    const p = buildRag(OCR, CONTEXT);
    expect(p.messages[0].content).to.equal(P5V1_GOLDEN.replace('{retrieval_context}', CONTEXT));
    expect(p.messages[0].content).to.include(`كمرجع:\n\n${CONTEXT}\n\nصحح النص التالي`);
    expect(p.messages[0].content).not.to.include('{retrieval_context}');
    expect(p.messages[1].content).not.to.include('نصوص مرجعية');
  });

  it('inserts the context literally (no $-pattern expansion)', () => {
    const ctx = "1. $& $' $1 {retrieval_context}";
    expect(buildRag(OCR, ctx).messages[0].content).to.include(`كمرجع:\n\n${ctx}\n\n`);
  });

  it('rag prompt version is p5v1 and the type is rag', () => {
    const p = buildRag(OCR, CONTEXT);
    expect(RAG_PROMPT_VERSION).to.equal('p5v1');
    expect(p.promptVersion).to.equal('p5v1');
    expect(p.promptType).to.equal('rag');
  });

  for (const empty of ['', '   \n\t ', null, undefined]) {
    it(`build_rag with context ${JSON.stringify(empty)} falls back to zero-shot and says so`, () => {
      const p = buildRag(OCR, empty);
      expect(p.promptType).to.equal('zero_shot_fallback');
      expect(p.promptVersion).to.equal('v1');
      expect(p.messages).to.deep.equal(buildZeroShot(OCR).messages);
    });
  }

  it('zero-shot v1 (Phase 2 baseline) is unchanged', () => {
    expect(ZERO_SHOT_SYSTEM_V1).to.equal('أنت مصحح نصوص عربية متخصص. صحح النص التالي. أعد النص المصحح فقط بدون أي شرح أو تعليق إضافي.');
    expect(buildZeroShot(OCR)).to.deep.equal({
      messages: [
        { role: 'system', content: ZERO_SHOT_SYSTEM_V1 },
        { role: 'user', content: OCR },
      ],
      promptType: 'zero_shot',
      promptVersion: 'v1',
    });
  });

  it('buildPrompt dispatches on the condition; zero_shot ignores any context', () => {
    expect(buildPrompt('rag', OCR, CONTEXT)).to.deep.equal(buildRag(OCR, CONTEXT));
    expect(buildPrompt('zero_shot', OCR, CONTEXT)).to.deep.equal(buildZeroShot(OCR));
  });
});
