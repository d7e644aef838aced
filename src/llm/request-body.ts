/**
 * The exact chat-completion body infer sends for a line (docs/prompts.md#servers): the portable decoding fields
 * (./decoding.ts `requestFields`), then what the arm's server takes for the portable keys — the structured-output
 * constraint, a JSON `response_format` in the form that keeps its schema there, the reasoning level — and the
 * request rules of OpenAI's reasoning models (`max_completion_tokens`, no sampling keys). A default request
 * (none of those keys set, a model that is not an OpenAI reasoning model) is the portable body as it is.
 *
 *   const body = chatRequestBody('smollm2', messages, decoding, { kind: 'vllm', version: '0.32.0', source: 'GET /version' });
 *
 * The OpenAI Batch writer uses the same function for each line's `body`.
 */
import { requestFields, type ResolvedDecoding } from './decoding';
import { dialectOf } from './servers';
import type { ServerInfo } from './servers/kinds';
import { requestRules } from './servers/openai-models';
import type { ChatMessage } from './types';

/** A decoding the server cannot honour (the message names the key): a config error, never a dropped field. */
export class RequestShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestShapeError';
  }
}

/** The body of one chat completion: `model`, `messages`, then the decoding as `server` takes it. */
export function chatRequestBody(
  model: string,
  messages: ChatMessage[],
  decoding: ResolvedDecoding,
  server: ServerInfo,
  opts: { maxTokens?: number } = {},
): Record<string, unknown> {
  const fields = requestFields(decoding);
  if (opts.maxTokens !== undefined) fields.max_tokens = opts.maxTokens;
  const dialect = dialectOf(server);
  if (decoding.response_format) fields.response_format = dialect.responseFormat(decoding.response_format);
  if (decoding.structured) {
    const extra = dialect.structured(decoding.structured, server.version);
    if (typeof extra === 'string') throw new RequestShapeError(`decoding.structured: ${extra}`);
    Object.assign(fields, extra);
  }
  if (decoding.reasoning) mergeFields(fields, dialect.reasoning(decoding.reasoning));
  applyRules(fields, server, model);
  return { model, messages, ...fields };
}

/** Add `extra` to `fields`, `chat_template_kwargs` key by key (extra_body's own kwargs kept). */
function mergeFields(fields: Record<string, unknown>, extra: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(extra)) {
    const had = fields[key];
    fields[key] = key === 'chat_template_kwargs' && had && typeof had === 'object' ? { ...(had as object), ...(value as object) } : value;
  }
}

/** OpenAI's reasoning models: `max_completion_tokens` for `max_tokens`; `temperature` and `top_p` not sent. */
function applyRules(fields: Record<string, unknown>, server: ServerInfo, model: string): void {
  const rules = requestRules(server.kind, model);
  if (rules.token_field === 'max_completion_tokens') {
    fields.max_completion_tokens = fields.max_tokens;
    delete fields.max_tokens;
  }
  if (!rules.sends_sampling) {
    delete fields.temperature;
    delete fields.top_p;
  }
}
