/**
 * The models an OpenAI-compatible endpoint serves, from its `GET <baseUrl>/models` (`{data: [{id, …}]}`), and
 * whether an arm's model is one of them (docs/endpoint-health.md). vLLM and Ollama answer a request for a model
 * they do not serve with 404 on every line; checked before the first correction, it is one line instead:
 *
 *   model "wrong" is not served at http://box:8000/v1 (it serves: smollm2) — set infer.openai.model …
 *
 * A name matches an id exactly, or Ollama's untagged name its `:latest` tag (`qwen3` ↔ `qwen3:latest`). A
 * llama.cpp server with one model (`owned_by: "llamacpp"`) answers whatever name a request asks for, so any name
 * passes there. vLLM's entries carry the context length (`max_model_len`), which ./context-limit.ts checks
 * prompts against. An endpoint whose list cannot be read (no answer, 401 without a key, no such route) is not
 * refused here: the first request finds out.
 */
import { WorkerSetupError } from '../util/worker-setup-error';
import { modelsUrl } from './endpoint-health';

export interface ServedModel {
  id: string;
  ownedBy: string | null;
  /** vLLM's context length of this model; null where the server does not say. */
  maxModelLen: number | null;
}

export type ServedModels = { models: ServedModel[] } | { unlisted: string; connection: boolean };

/** GET `<baseUrl>/models` with the key (hosted APIs list only to a key holder). */
export async function listServedModels(
  baseUrl: string,
  apiKey: string | null,
  signal?: AbortSignal,
  timeoutMs = 10_000,
): Promise<ServedModels> {
  const { url, headers } = modelsUrl(baseUrl);
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.any([...(signal ? [signal] : []), AbortSignal.timeout(timeoutMs)]) });
  } catch (err) {
    return { unlisted: `GET …/models: no answer (${(err as Error).message})`, connection: true };
  }
  const body = (await res.json().catch(() => null)) as { data?: unknown } | null;
  if (!res.ok || !body || !Array.isArray(body.data))
    return { unlisted: `GET …/models answered HTTP ${res.status} without a model list`, connection: false };
  const models = (body.data as Record<string, unknown>[])
    .filter((m) => typeof m?.id === 'string')
    .map((m) => ({
      id: m.id as string,
      ownedBy: typeof m.owned_by === 'string' ? m.owned_by : null,
      maxModelLen: typeof m.max_model_len === 'number' ? m.max_model_len : null,
    }));
  return { models };
}

/** The served entry a request for `model` reaches, or null; a single-model llama.cpp server reaches its one model. */
export function servedEntry(model: string, models: readonly ServedModel[]): ServedModel | null {
  const exact = models.find((m) => m.id === model) ?? (model.includes(':') ? undefined : models.find((m) => m.id === `${model}:latest`));
  if (exact) return exact;
  return models.length === 1 && models[0].ownedBy === 'llamacpp' ? models[0] : null;
}

/**
 * The one-line refusal for a model the endpoint does not serve (worker-local: another worker's endpoint may).
 * `where` is the endpoint as it may be shown (credentials redacted).
 */
export function modelNotServedError(model: string, where: string, models: readonly ServedModel[]): WorkerSetupError {
  const served = models.length ? models.map((m) => m.id).join(', ') : 'none';
  return new WorkerSetupError(
    `model "${model}" is not served at ${where} (it serves: ${served})`,
    'set infer.openai.model (or the worker’s --openai-model) to one of them, or serve that model there',
  );
}

/** What the check found, for the worker's self-check; throws modelNotServedError when the list lacks the model. */
export async function checkServedModel(
  endpoint: { baseUrl: string; where: string; model: string; apiKey: string | null },
  signal?: AbortSignal,
): Promise<string> {
  const { model } = endpoint;
  const listed = await listServedModels(endpoint.baseUrl, endpoint.apiKey, signal);
  if ('unlisted' in listed) return `model ${model} not checked: ${listed.unlisted}`;
  const entry = servedEntry(model, listed.models);
  if (!entry) throw modelNotServedError(model, endpoint.where, listed.models);
  return entry.id === model ? `serves ${model}` : `serves ${model} as ${entry.id}`;
}
