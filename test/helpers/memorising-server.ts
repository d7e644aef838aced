/**
 * A `/v1/completions` server double for the memorisation probe: a real HTTP server whose "model" has memorised
 * some texts. A prompt that begins one of them is continued with the rest of it; any other prompt gets noise
 * (letters drawn from a seeded generator). With `echo` it returns log-probabilities per word (one word = one
 * token): −0.05 for the words of a memorised text, a seeded draw in [−7, −2] otherwise, with four candidates.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulberry32 } from '../../src/util/random';

export interface MemorisingServer {
  baseUrl: string;
  requests: { echo: boolean }[];
  close(): Promise<void>;
}

const LETTERS = 'ابتثجحخدذرزسشصضطظعغفقكلمنهوي';

function noise(prompt: string, chars: number): string {
  let h = 0;
  for (const c of prompt) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  const rand = mulberry32(h);
  return Array.from({ length: chars }, (_, i) => (i % 6 === 5 ? ' ' : LETTERS[Math.floor(rand() * LETTERS.length)])).join('');
}

function echoLogprobs(text: string, known: boolean) {
  const words = text.split(' ');
  const rand = mulberry32(words.length * 7919 + text.length);
  const own = words.map((_, i) => (i === 0 ? null : known ? -0.05 : -2 - 5 * rand()));
  const top = own.map((lp) => (lp === null ? null : { a: lp, b: lp - 1, c: lp - 2, d: lp - 3 }));
  return { usage: words.length, logprobs: { tokens: words, token_logprobs: own, top_logprobs: top, text_offset: words.map(() => 0) } };
}

export async function startMemorisingServer(memorised: readonly string[], opts: { echo?: boolean } = {}): Promise<MemorisingServer> {
  const requests: { echo: boolean }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const r = JSON.parse(body) as { prompt: string; max_tokens: number; echo?: boolean };
      requests.push({ echo: Boolean(r.echo) });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (r.echo && opts.echo === false)
        return send(400, { error: { message: 'Only no echo is supported', type: 'invalid_request_error' } });
      const known = memorised.find((t) => t.startsWith(r.prompt) && t.length > r.prompt.length);
      if (r.echo) {
        const e = echoLogprobs(r.prompt, memorised.includes(r.prompt));
        const choice = { index: 0, text: r.prompt, finish_reason: 'length', logprobs: e.logprobs };
        return send(200, {
          id: 'x',
          object: 'text_completion',
          created: 0,
          model: 'double',
          choices: [choice],
          usage: { prompt_tokens: e.usage, completion_tokens: 1, total_tokens: e.usage + 1 },
        });
      }
      const text = known ? known.slice(r.prompt.length) : noise(r.prompt, r.max_tokens);
      const choice = { index: 0, text, finish_reason: 'stop', logprobs: null };
      send(200, {
        id: 'x',
        object: 'text_completion',
        created: 0,
        model: 'double',
        choices: [choice],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
