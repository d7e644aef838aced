/**
 * Error bodies as the SDK reads them. The openai SDK takes a failed request's message from the body's `error`
 * object (`{error: {message, type, param, code}}`: OpenAI, vLLM ≥ 0.12, llama.cpp, Ollama); SGLang answers its
 * OpenAI routes with a flat body instead, `{object: "error", message, type, param, code}` (ErrorResponse in
 * python/sglang/srt/entrypoints/openai/protocol.py), which the SDK reports as "400 status code (no body)". The
 * fetch here hands the SDK a flat error body in the nested form, so the failure reads as the server's message.
 * Other bodies pass untouched.
 */
type Fetch = typeof fetch;

/** `{message, type?, code?, param?}` at the top level with no `error` key: the flat form, nested; else null. */
export function nestedErrorBody(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if ('error' in b || typeof b.message !== 'string') return null;
  const { object: _object, ...error } = b;
  return JSON.stringify({ error });
}

/** `inner` (default: the global fetch) with flat error bodies of failed responses nested. */
export function errorBodyFetch(inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return res;
    const text = await res.text();
    return new Response(nestedErrorBody(text) ?? text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
