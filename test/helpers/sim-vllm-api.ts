/**
 * What the simulated box (./sim-llm-server.ts) says as a server of a given kind, beside its chat answers: the
 * routes around the completions (`/health`, `/version`, `/v1/models`), the error bodies, the field the
 * reasoning trace travels in, and what it does with the removed `guided_*` fields. Read from the servers' own
 * source (docs/endpoint-health.md cites each file):
 *
 * - vLLM ≥ 0.12 (vllm/entrypoints/serve/engine/protocol.py, serve/instrumentator/health.py): errors nested,
 *   `{error: {message, type, param, code}}`; an unknown model is 404 `NotFoundError` "The model `x` does not
 *   exist."; `guided_json` / `guided_regex` / `guided_choice` / `guided_grammar` are extra keys it ignores with
 *   HTTP 200 and one warning in its log; the trace is the message's `reasoning`; `GET /health` 200 with no body;
 *   `GET /version` `{version}`.
 * - SGLang (python/sglang/srt/entrypoints/openai/protocol.py ErrorResponse): errors flat,
 *   `{object: "error", message, type, param, code}`; the trace is `reasoning_content`.
 * - llama.cpp (tools/server/server-http.cpp, server-context.cpp): errors nested; the trace is `reasoning_content`.
 */
export type SimServerKind = 'vllm' | 'sglang' | 'llama.cpp';

/** The fields current vLLM removed and ignores (HTTP 200, output unconstrained), warning in its log. */
export const REMOVED_GUIDED_FIELDS = ['guided_json', 'guided_regex', 'guided_choice', 'guided_grammar'] as const;

/** vLLM's log line for a request carrying removed guided-decoding fields (a Python list repr of their names). */
export function removedGuidedWarning(body: Record<string, unknown>): string | null {
  const removed = REMOVED_GUIDED_FIELDS.filter((k) => k in body).sort();
  if (removed.length === 0) return null;
  return (
    `Request contains the removed guided-decoding field(s) [${removed.map((k) => `'${k}'`).join(', ')}], which are ignored; ` +
    'output will NOT be constrained. Use `structured_outputs` (or `response_format`) instead; see docs/features/structured_outputs.md.'
  );
}

/** The body without the fields vLLM ignores: what it would act on. */
export function withoutRemovedGuided<T extends Record<string, unknown>>(body: T): T {
  const out = { ...body };
  for (const k of REMOVED_GUIDED_FIELDS) delete out[k];
  return out;
}

/** An error body as the kind of server writes it. */
export function errorBody(kind: SimServerKind, status: number, type: string, message: string): unknown {
  if (kind === 'sglang') return { object: 'error', message, type, param: null, code: status };
  return { error: { message, type, param: null, code: status } };
}

/** vLLM's 404 for a model it does not serve (its model registry's `check_model`), as vLLM 0.32 words it. */
export function unknownModelBody(kind: SimServerKind, asked: string, served: readonly string[]): unknown {
  return errorBody(kind, 404, 'NotFoundError', `The model \`${asked}\` does not exist. Valid aliases: ${served.join(', ')}.`);
}

/** The assistant message's reasoning field: `reasoning` on current vLLM, `reasoning_content` on SGLang and llama.cpp. */
export function reasoningField(kind: SimServerKind): 'reasoning' | 'reasoning_content' {
  return kind === 'vllm' ? 'reasoning' : 'reasoning_content';
}

/** `GET /v1/models` as the kind lists its served names (vLLM's entries carry `max_model_len`; llama.cpp owns as `llamacpp`). */
export function modelList(kind: SimServerKind, served: readonly string[], maxModelLen: number): unknown {
  const entry = (id: string) =>
    kind === 'vllm'
      ? { id, object: 'model', created: 0, owned_by: 'vllm', root: id, parent: null, max_model_len: maxModelLen }
      : { id, object: 'model', created: 0, owned_by: kind === 'llama.cpp' ? 'llamacpp' : 'sglang' };
  return { object: 'list', data: served.map(entry) };
}
