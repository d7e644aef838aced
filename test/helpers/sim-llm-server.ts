/**
 * A simulated GPU box: an OpenAI-compatible server (`POST /v1/chat/completions`, `GET /v1/models`) on plain
 * node:http, for tests and `bench/scale-out.ts`. One server per simulated box.
 *
 * The answer is deterministic: the OCR line is the last user message (both prompts, p5v1 and zero-shot v1,
 * put it there — src/prompts/builder.ts), returned with one fixed edit, `simEdit`: every tatweel (U+0640) is
 * removed and every alef maqsura (ى) becomes yaa (ي). It answers after `baseMs + perTokenMs × tokens`
 * (tokens: the answer's completion tokens, ceil(chars / 4)), serves at most `concurrency` requests at once
 * (the rest wait in a queue, as a GPU server's batch slots do) and counts what it served: in total and per
 * OCR line (the sample is identified by its text). `stop()` closes the port (connections are refused, as
 * when the box goes down) and `start()` opens it again on the same port.
 *
 * With `knee` it models continuous batching instead (vLLM, SGLang, llama.cpp with parallel slots; ./batching-box):
 * every request is served at once, all in flight share the box — full speed for each up to `knee` requests,
 * beyond it each gets knee/in-flight of it — so throughput rises with requests in flight up to the knee
 * (latency flat at `baseMs`), then stays at its peak, knee / baseMs, while latency grows with the queue.
 *
 * It answers as current vLLM (0.12+) does (./sim-vllm-api.ts), or as SGLang or llama.cpp (`kind`): every request body
 * is checked as vLLM's server checks it (./chat-request.ts): a field of the wrong type, or a top-level key vLLM does
 * not declare, is answered 400 and not served; the removed `guided_*` fields are taken with HTTP 200 and ignored,
 * with vLLM's warning in `log()`; a model it does not serve (`models`, default `sim`) is answered 404
 * `NotFoundError`; a prompt plus `max_tokens` over `maxModelLen` is answered 400. `requests()` holds the bodies it
 * took. It serves `GET /health` (200, no body), `GET /version` and `GET /v1/models`. Like a real box it can answer as
 * a reasoning model (`reasoning`: the trace in the message's `reasoning`, or `reasoning_content` as SGLang and
 * llama.cpp send it), under another model name than the one asked (`servedModel`), with a `system_fingerprint`,
 * cut at max_tokens (`truncate`: `finish_reason: "length"`, no content — a thinking model out of tokens), and with
 * an HTTP error for some lines on every attempt (`failWith`: a grammar the server cannot compile). Asked for a JSON
 * `response_format`, it answers `{"corrected_text": …}` (or the schema's one property).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BatchingBox } from './batching-box';
import { chatTemplate, type SimTokenizer } from './sim-tokenizer';
import { chatRequestProblem, type ChatRequest } from './chat-request';
import {
  errorBody,
  modelList,
  reasoningField,
  removedGuidedWarning,
  unknownModelBody,
  withoutRemovedGuided,
  type SimServerKind,
} from './sim-vllm-api';

export interface SimLlmOptions {
  baseMs?: number;
  perTokenMs?: number;
  /** Requests served at once; more wait in a FIFO queue (ignored with `knee`). */
  concurrency?: number;
  /** Continuous batching: requests in flight up to which latency stays `baseMs + perTokenMs × tokens`. */
  knee?: number;
  /** Port to listen on (default: a free one). */
  port?: number;
  /**
   * Count prompt tokens with a real tokenizer over a chat template (./sim-tokenizer) and serve the tokenizer
   * routes: vLLM's `POST /tokenize` ({messages} → {count, tokens}) or llama.cpp's (`POST /apply-template` and
   * `POST /tokenize` {content} → {tokens}). Without it: no tokenizer route, prompt tokens ⌈chars / 4⌉.
   */
  tokenizer?: { api: 'vllm' | 'llama.cpp'; tokenizer: SimTokenizer };
  /** The model name answers carry (default: the one asked for). */
  servedModel?: string;
  /** The answers' `system_fingerprint` (default: none sent). */
  systemFingerprint?: string;
  /** A reasoning trace for this OCR line, sent as the kind's reasoning field (null: none). */
  reasoning?: (ocr: string) => string | null;
  /** Lines answered as cut at max_tokens: `finish_reason: "length"` and empty content. */
  truncate?: (ocr: string) => boolean;
  /** The server it answers as (default `vllm`): error bodies and the reasoning field follow it. */
  kind?: SimServerKind;
  /** The model names it serves (default `['sim']`): `/v1/models` lists them, any other asked is 404. */
  models?: string[];
  /** What `GET /version` answers (default `0.12.0`). */
  version?: string;
  /** The context length (default 32768): `/tokenize` reports it; prompt + max_tokens over it is a 400. */
  maxModelLen?: number;
  /** An HTTP status this OCR line gets on every attempt (null: served), with vLLM's error body. */
  failWith?: (ocr: string) => number | null;
}

export interface SimLlmServer {
  /** `http://127.0.0.1:<port>/v1`, the `base_url` for the openai backend. */
  readonly url: string;
  readonly port: number;
  /** Completions answered (a request cut off by `stop()` is not counted). */
  served(): number;
  /** Completions answered per OCR line (the text of the last user message). */
  servedByText(): Map<string, number>;
  /** Every request body it took (valid ones), in arrival order. */
  requests(): ChatRequest[];
  /** Requests refused with 400 (invalid body), with the message sent. */
  refused(): string[];
  /** The server's log lines (warnings it would print), in order. */
  log(): string[];
  /** Requests being answered or queued right now. */
  inFlight(): number;
  /** Most requests answered at once so far. */
  peakConcurrency(): number;
  /**
   * Every answered request in answer order: when (performance.now() ms), its latency (arrival to answer) and, with
   * `knee`, the most requests in flight while it was served (`sharedWith`: its share of the box was knee / that).
   */
  answers(): { atMs: number; latencyMs: number; sharedWith: number }[];
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The fixed edit the simulated model makes to an OCR line. */
export function simEdit(ocr: string): string {
  return ocr.replace(/\u0640/g, '').replace(/\u0649/g, '\u064a');
}

export function simTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

class Slots {
  private active = 0;
  peak = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}
  get busy(): number {
    return this.active + this.waiting.length;
  }
  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    this.peak = Math.max(this.peak, this.active);
    return () => {
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next request
      else this.active--;
    };
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

interface Answer {
  model: string;
  content: string | null;
  reasoning: string | null;
  finishReason: 'stop' | 'length';
  fingerprint?: string;
  kind: SimServerKind;
}

function completion(a: Answer, promptTokens: number): unknown {
  const message = { role: 'assistant', content: a.content, ...(a.reasoning !== null ? { [reasoningField(a.kind)]: a.reasoning } : {}) };
  return {
    id: `sim-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: a.model,
    ...(a.fingerprint ? { system_fingerprint: a.fingerprint } : {}),
    choices: [{ index: 0, message, finish_reason: a.finishReason }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: simTokens((a.content ?? '') + (a.reasoning ?? '')),
      total_tokens: 0,
    },
  };
}

/** The answer text in the shape asked for: plain, or a JSON object with the schema's string field. */
function shaped(text: string, body: ChatRequest): string {
  const format = body.response_format;
  if (!format || format.type === 'text') return text;
  const props = Object.keys((format.json_schema?.schema?.properties as Record<string, unknown> | undefined) ?? {});
  const field = props.includes('corrected_text') || props.length !== 1 ? 'corrected_text' : props[0];
  return JSON.stringify({ [field]: text });
}

/** vLLM's /tokenize (chat messages, template applied) or llama.cpp's /apply-template and /tokenize (plain content). */
async function tokenizeRoute(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  tok: NonNullable<SimLlmOptions['tokenizer']>,
  maxModelLen: number,
): Promise<void> {
  let body: { messages?: { role: string; content: string }[]; content?: string };
  try {
    body = JSON.parse(await readBody(req)) as typeof body;
  } catch {
    return send(res, 400, { error: { message: 'body is not JSON' } });
  }
  if (tok.api === 'vllm') {
    if (req.url !== '/tokenize' || !Array.isArray(body.messages)) return send(res, 404, { error: { message: `no route ${req.url}` } });
    const tokens = tok.tokenizer.ids(chatTemplate(body.messages));
    return send(res, 200, { count: tokens.length, max_model_len: maxModelLen, tokens });
  }
  if (req.url === '/apply-template') {
    if (!Array.isArray(body.messages)) return send(res, 400, { error: { message: 'no messages' } });
    return send(res, 200, { prompt: chatTemplate(body.messages) });
  }
  if (typeof body.content !== 'string') return send(res, 400, { error: { message: 'no content' } });
  return send(res, 200, { tokens: tok.tokenizer.ids(body.content) });
}

/** The prompt's tokens: the real tokenizer over the chat template, or ⌈chars / 4⌉. */
function promptTokenCounter(tok: SimLlmOptions['tokenizer']): (messages: { role: string; content?: unknown }[]) => number {
  return (messages) => {
    const texts = messages.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : '' }));
    return tok ? tok.tokenizer.ids(chatTemplate(texts)).length : simTokens('x'.repeat(texts.reduce((n, m) => n + m.content.length, 0)));
  };
}

/** The GET routes beside the completions: `/health`, `/version`, `/v1/models`. False: not one of them. */
function getRoute(req: http.IncomingMessage, res: http.ServerResponse, opts: SimLlmOptions, models: readonly string[]): boolean {
  if (req.method !== 'GET') return false;
  if (req.url === '/v1/models') send(res, 200, modelList(opts.kind ?? 'vllm', models, opts.maxModelLen ?? 32768));
  else if (req.url === '/health') {
    res.writeHead(200, { 'content-length': 0 });
    res.end();
  } else if (req.url === '/version') send(res, 200, { version: opts.version ?? '0.12.0' });
  else return false;
  return true;
}

/** Why vLLM would refuse this body before serving it (HTTP status and body), or null. */
function refusal(
  raw: Record<string, unknown>,
  kind: SimServerKind,
  models: readonly string[],
  promptTokens: number,
  maxModelLen: number,
): { status: number; body: unknown; problem: string } | null {
  const problem = chatRequestProblem(withoutRemovedGuided(raw));
  if (problem !== null) return { status: 400, body: errorBody(kind, 400, 'BadRequestError', problem), problem };
  const asked = typeof raw.model === 'string' ? raw.model : null;
  if (asked !== null && !models.includes(asked))
    return { status: 404, body: unknownModelBody(kind, asked, models), problem: `model ${asked}` };
  const maxTokens = typeof raw.max_tokens === 'number' ? raw.max_tokens : 0;
  if (promptTokens + maxTokens > maxModelLen) {
    const message =
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${promptTokens + maxTokens} tokens ` +
      `(${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`;
    return { status: 400, body: errorBody(kind, 400, 'BadRequestError', message), problem: message };
  }
  return null;
}

// long: one request's whole path through the box (routes, refusal, queue, answer), kept in one place to read
export async function startSimLlmServer(opts: SimLlmOptions = {}): Promise<SimLlmServer> {
  const baseMs = opts.baseMs ?? 0;
  const perTokenMs = opts.perTokenMs ?? 0;
  const kind = opts.kind ?? 'vllm';
  const models = opts.models ?? ['sim'];
  const maxModelLen = opts.maxModelLen ?? 32768;
  const slots = new Slots(opts.concurrency ?? 4);
  const box = opts.knee !== undefined ? new BatchingBox(opts.knee) : null;
  const answers: { atMs: number; latencyMs: number; sharedWith: number }[] = [];
  const byText = new Map<string, number>();
  let served = 0;
  const sockets = new Set<Socket>();
  const taken: ChatRequest[] = [];
  const refused: string[] = [];
  const logLines: string[] = [];

  const tok = opts.tokenizer;
  const promptTokens = promptTokenCounter(tok);
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (getRoute(req, res, opts, models)) return;
    if (tok && req.method === 'POST' && (req.url === '/tokenize' || req.url === '/apply-template'))
      return tokenizeRoute(req, res, tok, maxModelLen);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return send(res, 404, errorBody(kind, 404, 'NotFoundError', `no route ${req.method} ${req.url}`));
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return send(res, 400, errorBody(kind, 400, 'BadRequestError', 'body is not JSON'));
    }
    const messages = Array.isArray(raw.messages) ? (raw.messages as { role: string; content?: unknown }[]) : [];
    const refuse = refusal(raw, kind, models, promptTokens(messages), maxModelLen);
    if (refuse !== null) {
      refused.push(refuse.problem);
      return send(res, refuse.status, refuse.body);
    }
    const warning = removedGuidedWarning(raw);
    if (warning !== null) logLines.push(`WARNING ${warning}`);
    const body = raw as ChatRequest;
    taken.push(body);
    const ocr = [...body.messages].reverse().find((m) => m.role === 'user')?.content;
    if (typeof ocr !== 'string') return send(res, 400, errorBody(kind, 400, 'BadRequestError', 'no user message'));
    const failure = opts.failWith?.(ocr) ?? null;
    if (failure !== null) return send(res, failure, errorBody(kind, failure, 'InternalServerError', `simulated failure for this request`));
    const cut = opts.truncate?.(ocr) ?? false;
    const answer = simEdit(ocr);
    const arrived = performance.now();
    const release = box ? () => undefined : await slots.acquire();
    try {
      const work = baseMs + perTokenMs * simTokens(answer);
      const sharedWith = box ? await box.serve(work) : (await new Promise((r) => setTimeout(r, work)), 1);
      if (res.destroyed) return; // the box went down meanwhile: nothing was served
      const at = performance.now();
      answers.push({ atMs: at, latencyMs: at - arrived, sharedWith });
      served++;
      byText.set(ocr, (byText.get(ocr) ?? 0) + 1);
      const a: Answer = {
        model: opts.servedModel ?? body.model ?? models[0],
        content: cut ? null : shaped(answer, body),
        reasoning: opts.reasoning?.(ocr) ?? null,
        finishReason: cut ? 'length' : 'stop',
        fingerprint: opts.systemFingerprint,
        kind,
      };
      send(res, 200, completion(a, promptTokens(messages)));
    } finally {
      release();
    }
  };

  let server: http.Server | null = null;
  let port = opts.port ?? 0;
  const start = async (): Promise<void> => {
    if (server) return;
    const s = http.createServer(
      (req, res) => void handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } })),
    );
    s.on('connection', (sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    if (!s) return;
    server = null;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of sockets) sock.destroy(); // in-flight requests die with the box
    await closed;
  };
  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}/v1`;
    },
    get port() {
      return port;
    },
    served: () => served,
    servedByText: () => new Map(byText),
    requests: () => [...taken],
    refused: () => [...refused],
    log: () => [...logLines],
    inFlight: () => (box ? box.inFlight : slots.busy),
    peakConcurrency: () => (box ? box.peak : slots.peak),
    answers: () => [...answers],
    stop,
    start,
    close: stop,
  };
}
