/**
 * What OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family but its `-chat` models) take in a chat
 * completion, from the API reference as the openai SDK carries it (openai-node
 * `src/resources/chat/completions/completions.ts`, generated from OpenAI's API spec): `max_tokens` "is not
 * compatible with o-series models" (they take `max_completion_tokens`); `stop` (at most 4 strings) is "not
 * supported with latest reasoning models o3 and o4-mini"; and, per the reasoning guide, they run at their own
 * sampling (temperature 1), refusing any other `temperature` or `top_p`.
 */

/** How a request to one model on one server is shaped (recorded in arm.json as `request_rules`). */
export interface RequestRules {
  /** `max_tokens`, or `max_completion_tokens` (OpenAI's reasoning models). */
  token_field: 'max_tokens' | 'max_completion_tokens';
  /** Whether `temperature` and `top_p` are sent (OpenAI's reasoning models take only their own). */
  sends_sampling: boolean;
  /** The most stop strings the server takes (0: none), null: no limit this code knows. */
  max_stop: number | null;
}

export const DEFAULT_RULES: RequestRules = { token_field: 'max_tokens', sends_sampling: true, max_stop: null };

/** o1, o1-mini, o3, o3-pro, o4-mini, gpt-5, gpt-5-mini, gpt-5.1, …, dated or not; not gpt-5-chat-latest. */
export function isOpenAiReasoningModel(model: string): boolean {
  const name = model.replace(/^openai\//, '').toLowerCase();
  if (/^o\d+(?:$|[-.])/.test(name)) return true;
  return /^gpt-5(?:$|[-.])/.test(name) && !/-chat(?:$|-)/.test(name);
}

/** The rules of a request to `model` on a server of `kind`. */
export function requestRules(kind: string, model: string): RequestRules {
  if (kind !== 'openai') return DEFAULT_RULES;
  if (isOpenAiReasoningModel(model)) return { token_field: 'max_completion_tokens', sends_sampling: false, max_stop: 0 };
  return { token_field: 'max_tokens', sends_sampling: true, max_stop: 4 };
}
