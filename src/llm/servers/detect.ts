/**
 * `infer.openai.server: auto` (docs/prompts.md#servers): which server answers at a base URL, asked once per
 * process and URL. The routes, in order, from each server's source:
 *   - `https://api.openai.com/…` is OpenAI (no request);
 *   - llama.cpp: `GET /props` (tools/server/server-context.cpp) — `default_generation_settings`, `build_info`;
 *   - Ollama: `GET /api/version` (server/routes.go) — `{version}`;
 *   - SGLang: `GET /get_server_info` (python/sglang/srt/entrypoints/http_server.py) — its server args
 *     (`model_path`, …) and `version`;
 *   - vLLM: `GET /version` (vllm/entrypoints/serve) — `{version}`.
 * Each on the URL's origin path without its trailing `/v1`. None answering as its kind: `unknown`. An endpoint
 * that cannot be reached (the first route fails to connect) is not remembered: the next call asks again.
 */
import type { ServerInfo } from './kinds';

/** The fetch detection uses (tests pass their own). */
export type FetchJson = (url: string, headers: Record<string, string>) => Promise<unknown>;

const TIMEOUT_MS = 5_000;

async function fetchJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) return null;
  try {
    return (await res.json()) as unknown;
  } catch {
    return null;
  }
}

/** The server root of an OpenAI base URL: `http://h:8000/v1` → `http://h:8000`. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);

interface Probe {
  route: string;
  read(body: Record<string, unknown>): ServerInfo | null;
}

const PROBES: Probe[] = [
  {
    route: '/props',
    read: (b) =>
      'default_generation_settings' in b || 'build_info' in b
        ? { kind: 'llamacpp', version: text(b.build_info), source: 'GET /props' }
        : null,
  },
  {
    route: '/api/version',
    read: (b) => (text(b.version) ? { kind: 'ollama', version: text(b.version), source: 'GET /api/version' } : null),
  },
  {
    route: '/get_server_info',
    read: (b) =>
      'model_path' in b || 'tp_size' in b ? { kind: 'sglang', version: text(b.version), source: 'GET /get_server_info' } : null,
  },
  { route: '/version', read: (b) => (text(b.version) ? { kind: 'vllm', version: text(b.version), source: 'GET /version' } : null) },
];

/** Ask the server at `baseUrl` what it is (throws when it cannot be reached at all). */
export async function detectServer(baseUrl: string, apiKey: string | null, get: FetchJson = fetchJson): Promise<ServerInfo> {
  if (/^https:\/\/api\.openai\.com(\/|$)/.test(baseUrl)) return { kind: 'openai', version: null, source: 'base_url' };
  const root = serverRoot(baseUrl);
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  for (const probe of PROBES) {
    let body: unknown;
    try {
      body = await get(`${root}${probe.route}`, headers);
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new Error(`cannot reach ${root} to ask which server it is (GET ${probe.route}: ${cause ?? (err as Error).message})`);
    }
    const b = obj(body);
    const info = b ? probe.read(b) : null;
    if (info) return info;
  }
  return { kind: 'unknown', version: null, source: 'auto: no route answered as vLLM, SGLang, llama.cpp or Ollama' };
}

const known = new Map<string, Promise<ServerInfo>>();

/** `detectServer`, once per process and base URL (a failure is forgotten, so the next call asks again). */
export function serverAt(baseUrl: string, apiKey: string | null, get?: FetchJson): Promise<ServerInfo> {
  const had = known.get(baseUrl);
  if (had) return had;
  const asked = detectServer(baseUrl, apiKey, get);
  known.set(baseUrl, asked);
  asked.catch(() => known.delete(baseUrl));
  return asked;
}
