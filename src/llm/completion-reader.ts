/**
 * The one reader of a chat-completion body (the online backend's answer and a batch output line's
 * `response.body`): the text, usage, served model, fingerprint, finish reason and reasoning trace, or the
 * LlmError (`invalid_response`, `empty_content`) that says the body holds no answer. An empty answer cut at
 * max_tokens (`finish_reason: length`) is returned as it is: ./answer.ts records it as `truncated`.
 */
import { LlmError, type CompletionResult } from './types';

export type ReadCompletion = Omit<CompletionResult, 'latencyMs' | 'attempts'>;

interface CompletionBody {
  model?: unknown;
  system_fingerprint?: unknown;
  choices?: { message?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** `redact` cleans text quoted from the body into a message (the online backend removes its API key). */
export function readCompletion(
  completion: unknown,
  attempts: number,
  redact: (text: string) => string = (t) => t,
): ReadCompletion | LlmError {
  if (typeof completion !== 'object' || completion === null) {
    const preview = typeof completion === 'string' ? `: ${JSON.stringify(completion.slice(0, 120))}` : '';
    return new LlmError('invalid_response', redact(`response is not a JSON object${preview}`), 200, attempts);
  }
  const c = completion as CompletionBody;
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
    // vLLM's reasoning parsers answer `reasoning_content`; newer servers (and OpenRouter) `reasoning`.
    reasoning: str(choice?.message?.reasoning_content) ?? str(choice?.message?.reasoning),
  };
}
