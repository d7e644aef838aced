/**
 * Prompt builder for the built-in prompts of the study's arms.
 *
 * - RAG prompt `p5v1` (the design document's Phase 5): the system prompt of docs/prompts.md#rag-prompt-p5v1 (`RAG_SYSTEM_V1`), exact
 *   (including its two "\n\n" around the retrieval context).
 * - zero-shot prompt `v1` (the design document's Phase 2): docs/prompts.md#zero-shot-prompt-v1; written in the same voice as
 *   `p5v1`, i.e. its first and last sentences without the retrieval part.
 *
 * Messages are `[{role:'system', content}, {role:'user', content: ocr_text}]` in both cases.
 */

export type ChatRole = 'system' | 'user' | 'assistant';
export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** `rag`: the p5v1 prompt with context; `zero_shot_fallback`: a rag record with no context; `zero_shot`: the baseline (the design document's Phase 2). */
export type PromptType = 'rag' | 'zero_shot_fallback' | 'zero_shot';
export type PromptVersion = 'p5v1' | 'v1';

export interface BuiltPrompt {
  messages: ChatMessage[];
  promptType: PromptType;
  /** A built-in's (PromptVersion) or a declared template's version (src/prompts/templates.ts). */
  promptVersion: string;
}

export const RAG_PROMPT_VERSION = 'p5v1' as const;
export const ZERO_SHOT_PROMPT_VERSION = 'v1' as const;
/** Placeholder in RAG_SYSTEM_V1 (docs/prompts.md#rag-prompt-p5v1). */
export const RETRIEVAL_CONTEXT_PLACEHOLDER = '{retrieval_context}';

/** The p5v1 system prompt (docs/prompts.md#rag-prompt-p5v1); results are comparable only with this exact text. */
export const RAG_SYSTEM_V1: string =
  'أنت مصحح نصوص عربية متخصص. ' +
  'فيما يلي نصوص عربية صحيحة مشابهة للنص المراد تصحيحه، استخدمها كمرجع:\n\n' +
  '{retrieval_context}\n\n' +
  'صحح النص التالي مستعيناً بهذه النصوص المرجعية. ' +
  'أعد النص المصحح فقط بدون أي شرح أو تعليق إضافي.';

/** The zero-shot baseline's system prompt v1, the design document's Phase 2 (docs/prompts.md#zero-shot-prompt-v1). */
export const ZERO_SHOT_SYSTEM_V1: string =
  'أنت مصحح نصوص عربية متخصص. ' + 'صحح النص التالي. ' + 'أعد النص المصحح فقط بدون أي شرح أو تعليق إضافي.';

/** The zero-shot baseline's correction prompt (`zero_shot`, `v1`). */
export function buildZeroShot(ocrText: string): BuiltPrompt {
  return {
    messages: [
      { role: 'system', content: ZERO_SHOT_SYSTEM_V1 },
      { role: 'user', content: ocrText },
    ],
    promptType: 'zero_shot',
    promptVersion: ZERO_SHOT_PROMPT_VERSION,
  };
}

/**
 * The RAG prompt with the retrieved sentences in the system message (`rag`, `p5v1`). An empty or
 * whitespace-only context (no retrieval results) falls back to the zero-shot prompt and says so
 * (`zero_shot_fallback`, `v1`; docs/prompts.md#fallback). The context is inserted as given (not trimmed).
 */
export function buildRag(ocrText: string, retrievalContext: string | null | undefined): BuiltPrompt {
  if (!retrievalContext || !retrievalContext.trim()) {
    return { ...buildZeroShot(ocrText), promptType: 'zero_shot_fallback' };
  }
  // A replacer function, so "$&"-like sequences in the context are not interpreted.
  const system = RAG_SYSTEM_V1.replace(RETRIEVAL_CONTEXT_PLACEHOLDER, () => retrievalContext);
  return {
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: ocrText },
    ],
    promptType: 'rag',
    promptVersion: RAG_PROMPT_VERSION,
  };
}

/** The built-in prompt of one kind: `rag` (the design document's Phase 5) or `zero_shot` (its Phase 2 baseline). */
export function buildPrompt(kind: 'rag' | 'zero_shot', ocrText: string, retrievalContext?: string | null): BuiltPrompt {
  return kind === 'rag' ? buildRag(ocrText, retrievalContext) : buildZeroShot(ocrText);
}
