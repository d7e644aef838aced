/**
 * The answer of one chat completion, read from the response's JSON (docs/outputs.md#correctionsjsonl): the
 * content, the token counts, the served model, `system_fingerprint`, `finish_reason` and the reasoning trace a
 * server's reasoning parser split off — `reasoning` (vLLM ≥ 0.12, Ollama, OpenRouter) or `reasoning_content`
 * (SGLang, llama.cpp, older vLLM). Pure: the HTTP backend reads each response with it, and so can a reader of
 * an OpenAI Batch output line (`readCompletion(line.response.body)`).
 *
 * An LlmError means invalid or empty (the backend retries those a couple of times). An empty answer cut at
 * max_tokens (`finish_reason: length`, e.g. a reasoning model still thinking) is returned as it is: the caller
 * records it as `truncated`, which no retry mends.
 */
import { LlmError, type CompletionResult } from './types';

export type CompletionAnswer = Omit<CompletionResult, 'latencyMs' | 'attempts'>;

interface CompletionJson {
  model?: unknown;
  system_fingerprint?: unknown;
  choices?: { message?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The answer in a chat-completion response body, or the LlmError (`invalid_response`, `empty_content`) saying why there is none. */
export function readCompletion(completion: unknown, attempts = 1): CompletionAnswer | LlmError {
  if (typeof completion !== 'object' || completion === null) {
    const preview = typeof completion === 'string' ? `: ${JSON.stringify(completion.slice(0, 120))}` : '';
    return new LlmError('invalid_response', `response is not a JSON object${preview}`, 200, attempts);
  }
  const c = completion as CompletionJson;
  if (!Array.isArray(c.choices) || c.choices.length === 0) {
    return new LlmError('invalid_response', 'response has no "choices"', 200, attempts);
  }
  const choice = c.choices[0];
  const content = choice?.message?.content;
  if (content !== null && content !== undefined && typeof content !== 'string') {
    return new LlmError('invalid_response', `choices[0].message.content is ${typeof content}, expected a string`, 200, attempts);
  }
  const finishReason = str(choice?.finish_reason);
  if ((!content || !content.trim()) && finishReason !== 'length') {
    return new LlmError('empty_content', 'choices[0].message.content is empty', 200, attempts);
  }
  return {
    text: content ?? '',
    promptTokens: num(c.usage?.prompt_tokens),
    completionTokens: num(c.usage?.completion_tokens),
    servedModel: str(c.model),
    systemFingerprint: str(c.system_fingerprint),
    finishReason,
    reasoning: str(choice?.message?.reasoning) ?? str(choice?.message?.reasoning_content),
  };
}
