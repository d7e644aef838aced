/**
 * The chat-completion body the OpenAI-compatible backend sends for a prompt: the backend's decoding (its
 * `decoding`, else `temperature` and `maxTokens`, with `extraBody` under the decoding's `extra_body`) through
 * `requestFields` (./decoding.ts). The online backend and the batch files (src/stages/batch/) both build it here.
 */
import { requestFields, resolveDecoding, type ResolvedDecoding } from './decoding';
import type { ChatMessage } from './types';

/** The decoding a backend with these options sends. */
export function backendDecoding(opts: {
  decoding?: ResolvedDecoding;
  temperature?: number;
  maxTokens?: number;
  extraBody?: Record<string, unknown>;
}): ResolvedDecoding {
  const decoding = opts.decoding ?? resolveDecoding(undefined, { temperature: opts.temperature ?? 0, maxTokens: opts.maxTokens ?? 512 });
  return { ...decoding, extra_body: { ...opts.extraBody, ...decoding.extra_body } };
}

/** The body of one request: model, messages, the decoding's fields; `maxTokens` (a call's own) over the decoding's. */
export function chatBody(model: string, decoding: ResolvedDecoding, messages: ChatMessage[], maxTokens?: number): Record<string, unknown> {
  const fields = requestFields(decoding);
  return { model, messages, ...fields, max_tokens: maxTokens ?? fields.max_tokens };
}
