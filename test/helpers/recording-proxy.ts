/**
 * An HTTP proxy in front of the simulated GPU box (./sim-llm-server.ts) for tests that check what the client
 * sends: it keeps every request body (parsed JSON) and forwards the request unchanged. `answer` may rewrite the
 * box's answer text from the request body — a model whose output depends on the seed, as a sampling model's does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>/v1`, the `base_url` for the openai backend. */
  readonly url: string;
  /** Every chat-completion request body, in arrival order. */
  bodies(): Record<string, unknown>[];
  close(): Promise<void>;
}

type Body = Record<string, unknown> & { messages?: { content: string }[] };
type Answer = { choices?: { message?: { content?: string } }[] };

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A proxy to `target` (the box's `.../v1` URL); `answer(body, text)` gives the text to answer instead of the box's. */
export async function startRecordingProxy(target: string, answer?: (body: Body, text: string) => string): Promise<RecordingProxy> {
  const origin = new URL(target).origin;
  const bodies: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const body = (text ? JSON.parse(text) : {}) as Body;
      if (req.method === 'POST') bodies.push(body);
      const upstream = await fetch(origin + req.url, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        body: text || undefined,
      });
      let out = await upstream.text();
      if (answer && upstream.ok && req.method === 'POST') {
        const doc = JSON.parse(out) as Answer;
        const message = doc.choices?.[0]?.message;
        if (message?.content !== undefined) message.content = answer(body, message.content);
        out = JSON.stringify(doc);
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(out);
    })().catch((err: unknown) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies: () => bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
