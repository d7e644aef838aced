/**
 * A prompt that cannot fit the served model's context (vLLM's `max_model_len`, from its `/v1/models` entry or
 * its `/tokenize` answer) is refused before it is sent: prompt tokens + `max_tokens` over the limit would be a
 * 400 from the server on that line. Counting every prompt would double the requests, so a cheap bound comes
 * first: a prompt has at most as many tokens as UTF-8 bytes (byte-level BPE and byte-fallback vocabularies cut no
 * byte in two tokens) plus the chat template's framing (TEMPLATE_TOKENS per message and once more for the
 * assistant's turn). Only a prompt whose bound reaches the limit is counted by the server's `POST /tokenize`
 * (the same route `phase5 plan` counts with: src/plan/prompt-tokens.ts).
 */
import { serverRoot, vllmCounter } from '../plan/prompt-tokens';
import { LlmError, type ChatMessage } from './types';

/** Framing tokens a chat template adds per message (role markers, separators): generous for ChatML, Llama 3, Gemma. */
export const TEMPLATE_TOKENS = 16;

/** An upper bound of the prompt's tokens without a tokenizer. */
export function promptTokenBound(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + Buffer.byteLength(m.content, 'utf8') + TEMPLATE_TOKENS, TEMPLATE_TOKENS);
}

export interface ContextEndpoint {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  maxModelLen: number;
  timeoutMs?: number;
}

/** The refusal for a prompt over the limit (not sent, not retried), or null when it fits or cannot be counted. */
export async function contextProblem(ep: ContextEndpoint, messages: ChatMessage[], maxTokens: number): Promise<LlmError | null> {
  if (promptTokenBound(messages) + maxTokens <= ep.maxModelLen) return null;
  const headers: Record<string, string> = ep.apiKey ? { authorization: `Bearer ${ep.apiKey}` } : {};
  let count: number;
  try {
    count = await vllmCounter(serverRoot(ep.baseUrl), ep.model, headers, ep.timeoutMs ?? 30_000).count(messages);
  } catch {
    return null; // no tokenizer route: the server itself refuses an over-long prompt
  }
  if (count + maxTokens <= ep.maxModelLen) return null;
  return new LlmError(
    'context_length',
    `prompt of ${count} tokens + max_tokens ${maxTokens} = ${count + maxTokens} tokens exceeds max_model_len ${ep.maxModelLen} of ${ep.model} (counted by POST /tokenize); not sent`,
    null,
    0,
  );
}
