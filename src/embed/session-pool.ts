/**
 * A small pool of onnxruntime sessions, one per worker thread (body: session-host.ts).
 *
 * Why: onnxruntime-node's `run` blocks the calling thread, and for a small encoder on a few cores,
 * independent single-threaded sessions working on different batches outrun one session whose threads
 * must meet at a barrier after every operator — most of all when other processes share the cores
 * (see bench/embed.ts). The main thread meanwhile tokenizes, assembles results and keeps the event loop
 * (heartbeats, progress) alive.
 */
import { Worker } from 'node:worker_threads';
import type { EmbeddingDevice } from './device';
import type { IntType } from './feeds';
import type { Pooling } from './presets';

export interface HostInit {
  modelFile: string;
  threads: number;
  device: EmbeddingDevice;
}

export interface TensorInfo {
  name: string;
  isTensor: boolean;
  type: string;
  shape: (number | string)[];
}

/** What a run returns: pooled vectors, the raw output (diagnostics), or only the session time (benchmarks). */
export type RunMode = 'pool' | 'hidden' | 'raw';

export interface RunRequest {
  ids: Int32Array;
  mask: Uint8Array;
  n: number;
  L: number;
  intType: IntType;
  output: string;
  mode: RunMode;
  pooling: Pooling;
  normalize: boolean;
}

export type HostRequest = ({ type: 'run'; id: number } & RunRequest) | { type: 'close' };

export type HostReply =
  | { type: 'ready'; inputNames: string[]; outputNames: string[]; inputs: TensorInfo[]; outputs: TensorInfo[] }
  | { type: 'failed'; message: string }
  | { type: 'result'; id: number; sessionMs: number; data?: Float32Array; dims?: number[] }
  | { type: 'result'; id: number; error: string }
  | { type: 'closed' };

export type ModelInfo = Extract<HostReply, { type: 'ready' }>;

export interface RunResult {
  data: Float32Array;
  dims: number[];
  sessionMs: number;
}

export class SessionLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionLoadError';
  }
}

const HOST_URL = new URL('./session-host-boot.mjs', import.meta.url);

interface Host {
  worker: Worker;
  pending: Map<number, { resolve: (r: RunResult) => void; reject: (e: Error) => void }>;
  /** Set once the worker is gone (crashed, or closed): later runs fail at once. */
  dead: Error | null;
}

export class SessionPool {
  private nextId = 0;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly hosts: Host[],
    readonly info: ModelInfo,
    readonly threadsPerSession: number,
    readonly device: EmbeddingDevice,
  ) {}

  get size(): number {
    return this.hosts.length;
  }

  /** Start `sessions` workers, each loading `modelFile` with `threadsPerSession` intra-op threads on `device`. */
  static async open(modelFile: string, sessions: number, threadsPerSession: number, device: EmbeddingDevice = 'cpu'): Promise<SessionPool> {
    const started = Array.from({ length: sessions }, () => startHost({ modelFile, threads: threadsPerSession, device }));
    const settled = await Promise.allSettled(started);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.host.worker.terminate() : undefined)));
      throw failed.reason;
    }
    const ok = settled as PromiseFulfilledResult<{ host: Host; info: ModelInfo }>[];
    return new SessionPool(
      ok.map((s) => s.value.host),
      ok[0].value.info,
      threadsPerSession,
      device,
    );
  }

  /** Run one batch on the least busy session. The request's buffers are transferred (unusable afterwards). */
  run(req: RunRequest): Promise<RunResult> {
    if (this.closing) return Promise.reject(new Error('embedding sessions are closed'));
    const live = this.hosts.filter((h) => !h.dead);
    if (live.length === 0) return Promise.reject(this.hosts[0].dead!);
    const host = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.nextId++;
    return new Promise<RunResult>((resolve, reject) => {
      if (host.pending.size === 0) host.worker.ref(); // keep the process alive until the answer comes
      host.pending.set(id, { resolve, reject });
      host.worker.postMessage({ type: 'run', id, ...req } satisfies HostRequest, [req.ids.buffer, req.mask.buffer] as ArrayBuffer[]);
    });
  }

  /** Release every session and end the workers (idempotent). */
  close(): Promise<void> {
    this.closing ??= Promise.all(
      this.hosts.map(async (h) => {
        if (h.dead) return;
        const closed = new Promise<void>((resolve) => h.worker.once('exit', () => resolve()));
        h.worker.ref();
        h.worker.postMessage({ type: 'close' } satisfies HostRequest);
        await closed;
      }),
    ).then(() => undefined);
    return this.closing;
  }
}

function startHost(init: HostInit): Promise<{ host: Host; info: ModelInfo }> {
  return new Promise((resolve, reject) => {
    // The boot file registers tsx itself; the parent's node flags (e.g. --input-type, --eval) mean nothing here.
    const worker = new Worker(HOST_URL, { workerData: init, execArgv: [] });
    const host: Host = { worker, pending: new Map(), dead: null };
    let ready = false;
    const fail = (err: Error) => {
      host.dead = err;
      for (const p of host.pending.values()) p.reject(err);
      host.pending.clear();
      if (!ready) reject(err);
    };
    worker.on('message', (m: HostReply) => {
      if (m.type === 'ready') {
        ready = true;
        worker.unref(); // an idle pool never holds the process open (as an in-process session would not)
        resolve({ host, info: m });
      } else if (m.type === 'failed') {
        fail(new SessionLoadError(m.message));
      } else if (m.type === 'result') {
        const p = host.pending.get(m.id);
        if (!p) return;
        host.pending.delete(m.id);
        if (host.pending.size === 0) worker.unref();
        if ('error' in m) p.reject(new Error(`onnxruntime run failed: ${m.error}`));
        else p.resolve({ data: m.data ?? new Float32Array(0), dims: m.dims ?? [], sessionMs: m.sessionMs });
      } else if (m.type === 'closed') {
        host.dead = new Error('embedding sessions are closed');
      }
    });
    worker.on('error', (err) => fail(new Error(`embedding session worker crashed: ${err.message}`)));
    worker.on('exit', (code) => {
      if (!host.dead) fail(new Error(`embedding session worker exited unexpectedly (code ${code})`));
    });
  });
}
