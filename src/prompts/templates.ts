/**
 * Prompt templates (docs/prompts.md#templates): the built-ins and those a study declares, resolved to one shape,
 * and rendered into chat messages. The built-ins `rag` (p5v1) and `zero_shot` (v1) render through
 * ./builder, byte for byte as always; `rag_cache` (p5v1c) is p5v1's words with the fixed instruction first and
 * the retrieved context last, so every line's prompt shares the instruction as a prefix (docs/prompts.md#rag-prompt-p5v1c).
 */
import { sha256Text } from '../util/hash';
import {
  RAG_PROMPT_VERSION,
  RAG_SYSTEM_V1,
  ZERO_SHOT_PROMPT_VERSION,
  ZERO_SHOT_SYSTEM_V1,
  buildPrompt,
  buildZeroShot,
  type BuiltPrompt,
  type ChatMessage,
} from './builder';
import { PLACEHOLDER_PATTERN, type PromptTemplateConfig } from './template-schema';

export const RAG_CACHE_PROMPT_VERSION = 'p5v1c' as const;

/** p5v1's sentences, instruction first: (1), (4), (5), then (2) and the context (docs/prompts.md#rag-prompt-p5v1c). */
export const RAG_CACHE_SYSTEM_V1: string =
  'أنت مصحح نصوص عربية متخصص. ' +
  'صحح النص التالي مستعيناً بهذه النصوص المرجعية. ' +
  'أعد النص المصحح فقط بدون أي شرح أو تعليق إضافي. ' +
  'فيما يلي نصوص عربية صحيحة مشابهة للنص المراد تصحيحه، استخدمها كمرجع:\n\n' +
  '{retrieval_context}';

export const BUILTIN_PROMPTS = ['rag', 'zero_shot', 'rag_cache'] as const;

/** A built-in prompt (its fallback is zero-shot v1), not one a study declared. */
export function isBuiltin(t: Pick<PromptTemplate, 'name'>): boolean {
  return (BUILTIN_PROMPTS as readonly string[]).includes(t.name);
}

export interface PromptExample {
  ocr_text: string;
  corrected_text: string;
  retrieval_context?: string;
}

/** A template ready to render; `sha256` is over its resolved texts and examples (what the model is sent, less the line). */
export interface PromptTemplate {
  name: string;
  version: string;
  system: string;
  user: string;
  examples: PromptExample[];
  /** It names `{retrieval_context}`: its arm retrieves. */
  retrieves: boolean;
  sha256: string;
}

function template(name: string, version: string, system: string, user: string, examples: PromptExample[]): PromptTemplate {
  const retrieves = [system, user].some((t) => t.includes('{retrieval_context}'));
  const sha256 = sha256Text(JSON.stringify({ system, user, examples }));
  return { name, version, system, user, examples, retrieves, sha256 };
}

/** The template a prompt name stands for: a built-in, or `study.prompts.<name>` (texts already read from files); null if unknown. */
export function resolveTemplate(name: string, declared: Record<string, PromptTemplateConfig> | undefined): PromptTemplate | null {
  const d = declared?.[name];
  if (d) return template(name, d.version, d.system ?? '', d.user ?? '{ocr_text}', d.examples ?? []);
  if (name === 'rag') return template(name, RAG_PROMPT_VERSION, RAG_SYSTEM_V1, '{ocr_text}', []);
  if (name === 'zero_shot') return template(name, ZERO_SHOT_PROMPT_VERSION, ZERO_SHOT_SYSTEM_V1, '{ocr_text}', []);
  if (name === 'rag_cache') return template(name, RAG_CACHE_PROMPT_VERSION, RAG_CACHE_SYSTEM_V1, '{ocr_text}', []);
  return null;
}

/** `text` with each placeholder replaced in one pass (a value that holds `{ocr_text}` is not expanded again). */
export function fill(text: string, values: { ocr_text: string; retrieval_context: string }): string {
  return text.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in values ? values[name as keyof typeof values] : whole));
}

/**
 * The messages for one line. A retrieving template with an empty context falls back as `rag` does
 * (docs/prompts.md#fallback): the built-ins to zero-shot v1, a declared template to itself with an empty context,
 * recorded as `zero_shot_fallback` either way.
 */
export function renderTemplate(t: PromptTemplate, ocrText: string, retrievalContext: string | null | undefined): BuiltPrompt {
  if (t.name === 'rag' || t.name === 'zero_shot') return buildPrompt(t.name, ocrText, retrievalContext);
  const context = retrievalContext ?? '';
  const empty = !context.trim();
  if (t.retrieves && empty && t.name === 'rag_cache') return { ...buildZeroShot(ocrText), promptType: 'zero_shot_fallback' };
  const messages: ChatMessage[] = t.system
    ? [{ role: 'system', content: fill(t.system, { ocr_text: ocrText, retrieval_context: context }) }]
    : [];
  for (const ex of t.examples) {
    messages.push({ role: 'user', content: fill(t.user, { ocr_text: ex.ocr_text, retrieval_context: ex.retrieval_context ?? '' }) });
    messages.push({ role: 'assistant', content: ex.corrected_text });
  }
  messages.push({ role: 'user', content: fill(t.user, { ocr_text: ocrText, retrieval_context: context }) });
  const promptType = !t.retrieves ? 'zero_shot' : empty ? 'zero_shot_fallback' : 'rag';
  return { messages, promptType, promptVersion: t.version };
}
