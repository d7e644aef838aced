/**
 * The probe on an OpenAI-compatible `/v1/completions` endpoint (the `openai` SDK's `completions.create`): raw text,
 * no chat template. The likelihood test asks for the prompt's own log-probabilities: `echo: true` with
 * `logprobs: n` and `max_tokens: 1`. vLLM answers it (vllm/entrypoints/openai/serving_completion.py: with `echo`
 * the prompt's tokens and `prompt_logprobs` lead the choice's `logprobs`; at most `--max-logprobs`, default 20,
 * candidates per token). llama.cpp's server refuses `echo` ("Only no echo is supported",
 * tools/server/server-common.cpp; its `n_probs` covers generated tokens only) and OpenAI's hosted chat models have
 * no completions endpoint: a 4xx answer to that request, or an answer without the prompt's log-probabilities, is the
 * skip reason — recorded once, the continuation test still runs.
 */
import OpenAI, { APIError } from 'openai';
import type { Continuation, ProbeClient } from './client';
import type { TokenLogprob } from './likelihood';

/** Candidates per token asked for: vLLM's default `--max-logprobs`. */
export const TOP_LOGPROBS = 20;

export interface HttpProbeOptions {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
  maxRetries: number;
}

export class HttpProbeClient implements ProbeClient {
  readonly model: string;
  private readonly client: OpenAI;
  private skip: string | null = null;

  constructor(o: HttpProbeOptions) {
    this.model = o.model;
    this.client = new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey ?? 'no-key', timeout: o.timeoutMs, maxRetries: o.maxRetries });
  }

  async continueText(prompt: string, maxTokens: number, signal?: AbortSignal): Promise<Continuation> {
    const res = await this.client.completions.create({ model: this.model, prompt, max_tokens: maxTokens, temperature: 0 }, { signal });
    const choice = res.choices[0];
    if (!choice) throw new Error(`${this.model}: the completions answer has no choice`);
    return { text: choice.text, promptTokens: res.usage?.prompt_tokens ?? null, completionTokens: res.usage?.completion_tokens ?? null };
  }

  async likelihood(text: string, signal?: AbortSignal): Promise<{ tokens: TokenLogprob[]; exact: boolean } | { skip: string }> {
    if (this.skip) return { skip: this.skip };
    let res: OpenAI.Completion;
    try {
      res = await this.client.completions.create(
        { model: this.model, prompt: text, max_tokens: 1, temperature: 0, echo: true, logprobs: TOP_LOGPROBS },
        { signal },
      );
    } catch (err) {
      if (!(err instanceof APIError && err.status !== undefined && err.status >= 400 && err.status < 500)) throw err;
      this.skip = `the server refused echo with logprobs (HTTP ${err.status}: ${err.message.split('\n')[0].slice(0, 160)})`;
      return { skip: this.skip };
    }
    const tokens = promptTokens(res);
    if (tokens === null) this.skip = 'the server returned no log-probabilities of the prompt (echo with logprobs not honoured)';
    return tokens === null ? { skip: this.skip! } : { tokens, exact: false };
  }

  async close(): Promise<void> {}
}

/** The prompt's tokens (the first `usage.prompt_tokens` entries), the first one, which has no log-probability, left out. */
function promptTokens(res: OpenAI.Completion): TokenLogprob[] | null {
  const lp = res.choices[0]?.logprobs;
  const n = res.usage?.prompt_tokens;
  if (!lp?.token_logprobs || !lp.top_logprobs || n === undefined || lp.token_logprobs.length < n) return null;
  const out: TokenLogprob[] = [];
  for (let i = 0; i < n; i++) {
    const own = lp.token_logprobs[i];
    const top = lp.top_logprobs[i];
    if (own === null || own === undefined || !top) continue;
    out.push({ logprob: own, distribution: Object.values(top) });
  }
  return out.length > 0 ? out : null;
}
