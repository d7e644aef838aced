/**
 * A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benchmarks. Each request is
 * answered by `respond(request)` (default: echo the user message), which can inject failures: any status,
 * headers (Retry-After), a raw body (invalid JSON), an empty content, or a delay (timeouts).
 * An outage: `freePort()` reserves an address nothing listens on yet; `startFakeServer(respond, { port })`
 * brings the server up there later, and `close()` takes it down again (open connections reset).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  /** 1-based request count across the server's life. */
  n: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: { model?: string; messages?: { role: string; content: string }[]; temperature?: number; max_tokens?: number; [k: string]: unknown };
  at: number;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value (serialised) or a raw string sent as is. */
  json?: unknown;
  raw?: string;
  /** Answer text for a normal completion (ignored when json/raw is given). */
  content?: string | null;
  delayMs?: number;
  /** Destroy the socket without answering (connection reset). */
  destroy?: boolean;
}

export function completion(content: string | null, usage = { prompt_tokens: 11, completion_tokens: 7 }): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export interface FakeServer {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

export { freePort } from '../../src/temporal/server';

export async function startFakeServer(
  respond: (req: FakeRequest) => FakeResponse | Promise<FakeResponse> = echo,
  opts: { port?: number } = {},
): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: FakeRequest['body'] = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      /* keep {} */
    }
    const fr: FakeRequest = {
      n: requests.length + 1,
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body,
      at: Date.now(),
    };
    requests.push(fr);
    const r = await respond(fr);
    if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
    if (r.destroy) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    const payload = r.raw ?? JSON.stringify(r.json ?? completion(r.content === undefined ? 'ok' : r.content));
    res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
    res.end(payload);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', ok);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

/** Default responder: answers with the user message (so tests can see which prompt produced which answer). */
export function echo(req: FakeRequest): FakeResponse {
  const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  return { content: user };
}
