/**
 * Prompt tokens counted by the endpoint's own tokenizer (docs/plan.md#tokens): vLLM's `POST /tokenize` takes the
 * chat `messages` and applies the served model's chat template (`{count, tokens}`); llama.cpp's server renders
 * the template with `POST /apply-template` (`{prompt}`) and counts it with `POST /tokenize` (`{content}` →
 * `{tokens}`). Both routes sit at the server root, beside `/v1`. An endpoint with neither (or the local
 * backend) gets an estimate, labelled as such.
 */
import type { ChatMessage } from '../prompts/builder';

export type TokenSource = 'server' | 'estimate';

export interface TokenCounter {
  source: TokenSource;
  /** What counts: `vllm` (/tokenize with messages), `llama.cpp` (/apply-template + /tokenize), or the estimate's rule. */
  method: string;
  count(messages: ChatMessage[]): Promise<number>;
  /** The served model's context length where the counting route states it (vLLM's `max_model_len`), once counted. */
  maxModelLen?(): number | null;
}

/**
 * The estimate without a server tokenizer: ⌈characters / 3⌉ per message plus 4 for its chat-template framing.
 * Why 3: Arabic BPE vocabularies (Qwen, Llama 3) cut this corpus's text into pieces of 2–4 characters.
 */
export const estimateCounter: TokenCounter = {
  source: 'estimate',
  method: 'ceil(chars / 3) + 4 per message',
  count: (messages) => Promise.resolve(messages.reduce((n, m) => n + Math.ceil(m.content.length / 3) + 4, 0)),
};

/** The server root of an OpenAI-compatible base URL (`http://host:8000/v1` → `http://host:8000`). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function postJson(url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

export function vllmCounter(root: string, model: string, headers: Record<string, string>, timeoutMs: number): TokenCounter {
  let limit: number | null = null;
  return {
    source: 'server',
    method: 'vllm',
    maxModelLen: () => limit,
    async count(messages) {
      const r = (await postJson(`${root}/tokenize`, { model, messages }, headers, timeoutMs)) as {
        count?: unknown;
        tokens?: unknown;
        max_model_len?: unknown;
      };
      if (typeof r.max_model_len === 'number') limit = r.max_model_len;
      if (typeof r.count === 'number') return r.count;
      if (Array.isArray(r.tokens)) return r.tokens.length;
      throw new Error(`${root}/tokenize: no "count" in the answer`);
    },
  };
}

function llamaCppCounter(root: string, headers: Record<string, string>, timeoutMs: number): TokenCounter {
  return {
    source: 'server',
    method: 'llama.cpp',
    async count(messages) {
      const t = (await postJson(`${root}/apply-template`, { messages }, headers, timeoutMs)) as { prompt?: unknown };
      if (typeof t.prompt !== 'string') throw new Error(`${root}/apply-template: no "prompt" in the answer`);
      const r = (await postJson(`${root}/tokenize`, { content: t.prompt, add_special: true }, headers, timeoutMs)) as { tokens?: unknown };
      if (!Array.isArray(r.tokens)) throw new Error(`${root}/tokenize: no "tokens" in the answer`);
      return r.tokens.length;
    },
  };
}

/**
 * The endpoint's tokenizer, found by trying vLLM's form and then llama.cpp's on `probe`; the estimate (with the
 * reason) when neither answers.
 */
export async function endpointCounter(
  endpoint: { baseUrl: string; model: string; apiKey?: string; timeoutMs?: number },
  probe: ChatMessage[],
): Promise<{ counter: TokenCounter; why?: string }> {
  const root = serverRoot(endpoint.baseUrl);
  const headers: Record<string, string> = endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {};
  const timeoutMs = endpoint.timeoutMs ?? 30_000;
  const tried: string[] = [];
  for (const counter of [vllmCounter(root, endpoint.model, headers, timeoutMs), llamaCppCounter(root, headers, timeoutMs)]) {
    try {
      await counter.count(probe);
      return { counter };
    } catch (err) {
      tried.push(`${counter.method}: ${(err as Error).message}`);
    }
  }
  return { counter: estimateCounter, why: `no tokenizer at ${root} (${tried.join('; ')})` };
}

/** Tokens of every prompt, `concurrency` requests at a time, in order. */
export async function countAll(counter: TokenCounter, prompts: ChatMessage[][], concurrency = 16): Promise<number[]> {
  const out = new Array<number>(prompts.length);
  let next = 0;
  const lane = async () => {
    while (next < prompts.length) {
      const i = next++;
      out[i] = await counter.count(prompts[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, prompts.length) }, lane));
  return out;
}
