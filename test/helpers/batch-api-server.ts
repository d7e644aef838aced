/**
 * A local OpenAI Batch API for tests (node:http on loopback): the Files endpoints (`POST /v1/files` multipart
 * with purpose "batch", `GET /v1/files/{id}`, `GET /v1/files/{id}/content`) and the Batches endpoints
 * (`POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches`, `POST /v1/batches/{id}/cancel`), with the
 * shapes of https://platform.openai.com/docs/api-reference/batch and .../files.
 *
 * A batch moves one status per look (`GET /v1/batches/{id}` answers the status, then steps it), never by the clock: validating → in_progress
 * (answering `linesPerLook` lines per look, through `answer`) → finalizing → completed, when its output and error
 * files are written. `hold()` keeps batches in_progress until `release()`. `outcome` makes one fail at validation
 * (`failed`, with `errors`) or expire after some lines (`expired`: the rest in the error file, code
 * `batch_expired`); `failLine` puts a line in the error file instead of answering it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Answerer } from './batch-answer';
import { outputLine } from './batch-answer';

export interface BatchApiOptions {
  answer: Answerer;
  linesPerLook?: number;
  outcome?: (n: number) => { status: 'completed' } | { status: 'failed'; message: string } | { status: 'expired'; after: number };
  failLine?: (customId: string) => { code: string; message: string } | null;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: Buffer;
  created_at: number;
}

interface BatchState {
  batch: Record<string, unknown> & { id: string; status: string; request_counts: { total: number; completed: number; failed: number } };
  lines: { custom_id: string; body: Record<string, unknown> }[];
  next: number;
  output: string;
  errors: string;
  plan: ReturnType<NonNullable<BatchApiOptions['outcome']>>;
}

export interface BatchApiServer {
  readonly url: string;
  /** Batches created, in order. */
  batches(): Record<string, unknown>[];
  uploads(): number;
  hold(): void;
  release(): void;
  /** Looks at batches answered so far (the wait's polls). */
  looks(): number;
  close(): Promise<void>;
}

const now = () => Math.floor(Date.now() / 1000);

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'application/octet-stream' : 'application/json' });
  res.end(text);
}

async function readAll(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startBatchApiServer(opts: BatchApiOptions): Promise<BatchApiServer> {
  const files = new Map<string, StoredFile>();
  const batches: BatchState[] = [];
  let held = false;
  let looks = 0;
  let seq = 0;

  const fileObject = (f: StoredFile) => ({
    id: f.id,
    object: 'file',
    bytes: f.bytes.length,
    created_at: f.created_at,
    filename: f.filename,
    purpose: f.purpose,
  });
  const store = (filename: string, purpose: string, bytes: Buffer): StoredFile => {
    const f = { id: `file-${++seq}`, filename, purpose, bytes, created_at: now() };
    files.set(f.id, f);
    return f;
  };

  async function upload(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readAll(req);
    const form = await new Request('http://local/', {
      method: 'POST',
      headers: { 'content-type': String(req.headers['content-type']) },
      body,
    }).formData();
    const file = form.get('file');
    if (form.get('purpose') !== 'batch' || !(file instanceof Blob))
      return send(res, 400, { error: { message: 'purpose "batch" and a file are required' } });
    const f = store((file as File).name ?? 'upload.jsonl', 'batch', Buffer.from(await file.arrayBuffer()));
    send(res, 200, fileObject(f));
  }

  async function create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const p = JSON.parse((await readAll(req)).toString('utf8')) as {
      input_file_id?: string;
      endpoint?: string;
      completion_window?: string;
      metadata?: Record<string, string>;
    };
    const input = p.input_file_id ? files.get(p.input_file_id) : undefined;
    if (!input || p.endpoint !== '/v1/chat/completions' || p.completion_window !== '24h')
      return send(res, 400, { error: { message: 'input_file_id, endpoint /v1/chat/completions and completion_window 24h are required' } });
    const lines = input.bytes
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as BatchState['lines'][number]);
    const batch = {
      id: `batch_${++seq}`,
      object: 'batch',
      endpoint: p.endpoint,
      errors: null,
      input_file_id: input.id,
      completion_window: '24h',
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: now(),
      in_progress_at: null,
      expires_at: now() + 86400,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: lines.length, completed: 0, failed: 0 },
      metadata: p.metadata ?? null,
    };
    const plan = opts.outcome?.(batches.length) ?? { status: 'completed' as const };
    batches.push({ batch, lines, next: 0, output: '', errors: '', plan });
    send(res, 200, batch);
  }

  async function answerSome(s: BatchState): Promise<void> {
    const stop = s.plan.status === 'expired' ? s.plan.after : s.lines.length;
    for (let k = 0; k < (opts.linesPerLook ?? s.lines.length) && s.next < stop; k++) {
      const line = s.lines[s.next++];
      const fail = opts.failLine?.(line.custom_id) ?? null;
      if (fail) {
        s.errors += outputLine(line.custom_id, null, fail);
        s.batch.request_counts.failed++;
      } else {
        s.output += outputLine(line.custom_id, await opts.answer(line.body));
        s.batch.request_counts.completed++;
      }
    }
  }

  function finish(s: BatchState, status: 'completed' | 'expired'): void {
    if (status === 'expired')
      for (const line of s.lines.slice(s.next)) {
        s.errors += outputLine(line.custom_id, null, {
          code: 'batch_expired',
          message: 'This request could not be executed before the completion window expired.',
        });
        s.batch.request_counts.failed++;
      }
    if (s.output) s.batch.output_file_id = store(`${s.batch.id}_output.jsonl`, 'batch_output', Buffer.from(s.output)).id;
    if (s.errors) s.batch.error_file_id = store(`${s.batch.id}_error.jsonl`, 'batch_output', Buffer.from(s.errors)).id;
    Object.assign(s.batch, { status, [`${status}_at`]: now() });
  }

  // long: one status step per look, every branch of the documented life cycle in one place
  async function look(s: BatchState): Promise<void> {
    looks++;
    const b = s.batch;
    if (b.status === 'validating') {
      if (s.plan.status === 'failed')
        Object.assign(b, {
          status: 'failed',
          failed_at: now(),
          errors: { object: 'list', data: [{ code: 'invalid_request', message: s.plan.message, line: 1, param: null }] },
        });
      else Object.assign(b, { status: 'in_progress', in_progress_at: now() });
    } else if (b.status === 'in_progress') {
      await answerSome(s);
      const stop = s.plan.status === 'expired' ? s.plan.after : s.lines.length;
      if (s.next >= stop && s.plan.status === 'expired') finish(s, 'expired');
      else if (s.next >= stop && !held) Object.assign(b, { status: 'finalizing', finalizing_at: now() });
    } else if (b.status === 'finalizing') finish(s, 'completed');
    else if (b.status === 'cancelling') Object.assign(b, { status: 'cancelled', cancelled_at: now() });
  }

  const find = (id: string) => batches.find((s) => s.batch.id === id);

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && p === '/v1/files') return upload(req, res);
    if (req.method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(p))) {
      const f = files.get(m[1]);
      return f ? send(res, 200, f.bytes.toString('utf8')) : send(res, 404, { error: { message: 'no such file' } });
    }
    if (req.method === 'GET' && (m = /^\/v1\/files\/([^/]+)$/.exec(p))) {
      const f = files.get(m[1]);
      return f ? send(res, 200, fileObject(f)) : send(res, 404, { error: { message: 'no such file' } });
    }
    if (req.method === 'POST' && p === '/v1/batches') return create(req, res);
    if (req.method === 'GET' && p === '/v1/batches') {
      const data = [...batches].reverse().map((s) => s.batch);
      return send(res, 200, {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data[data.length - 1]?.id ?? null,
        has_more: false,
      });
    }
    if ((m = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(p))) {
      const s = find(m[1]);
      if (!s) return send(res, 404, { error: { message: 'no such batch' } });
      if (req.method === 'POST' && m[2]) {
        if (['validating', 'in_progress', 'finalizing'].includes(s.batch.status))
          Object.assign(s.batch, { status: 'cancelling', cancelling_at: now() });
        return send(res, 200, s.batch);
      }
      if (req.method === 'GET' && !m[2]) {
        // The status as it stands, then one step on: the next look sees it.
        const seen = structuredClone(s.batch);
        await look(s);
        return send(res, 200, seen);
      }
    }
    send(res, 404, { error: { message: `no route ${req.method} ${p}` } });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    batches: () => batches.map((s) => s.batch),
    uploads: () => [...files.values()].filter((f) => f.purpose === 'batch').length,
    hold: () => (held = true),
    release: () => (held = false),
    looks: () => looks,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
