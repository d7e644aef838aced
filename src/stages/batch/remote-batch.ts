/**
 * One batch file through an OpenAI-compatible Batch API (https://platform.openai.com/docs/api-reference/batch,
 * .../files): upload (purpose "batch"), create the batch (`/v1/chat/completions`, the completion window), wait —
 * looking at it every `pollMs`, progress from its `request_counts` — then download its output and error files
 * beside the input. Resumable: the file and batch ids are kept in `<file>.batch.json` and in the checkpoint, and a
 * batch created just before a crash is found again by its metadata (`phase5_sha256`), so a file is sent once.
 * Cancelled (the signal): the remote batch is cancelled too.
 */
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toFile } from 'openai';
import type OpenAI from 'openai';
import { writeJsonAtomic } from '../../io/jsonl';
import type { StageHooks } from '../shared/types';
import { UserInputError } from '../shared/types';
import type { BatchFileEntry } from './batch-manifest';
import { BATCH_URL } from './batch-request';
import type { RemoteBatchResult } from './types';

export interface RemoteBatchState {
  fileId?: string;
  batchId?: string;
}

export interface RemoteBatchOptions {
  client: OpenAI;
  dir: string;
  entry: BatchFileEntry;
  pollMs: number;
  completionWindow: string;
}

type Batch = OpenAI.Batches.Batch;
const DONE = new Set(['completed', 'expired', 'cancelled', 'failed']);
// A batch to wait on again: not one that ended without answers.
const REUSABLE = new Set(['validating', 'in_progress', 'finalizing', 'completed']);

const stateFile = (o: RemoteBatchOptions) => path.join(o.dir, `${o.entry.file}.batch.json`);

function saveState(o: RemoteBatchOptions, state: RemoteBatchState, hooks: StageHooks<RemoteBatchState>): void {
  writeJsonAtomic(stateFile(o), state);
  hooks.checkpoint?.(state);
}

/** A batch this file was already sent as (a create whose id was not recorded: the crash came between). */
async function findBatch(o: RemoteBatchOptions): Promise<string | undefined> {
  for await (const b of o.client.batches.list({ limit: 100 })) {
    if (b.metadata?.phase5_sha256 === o.entry.sha256 && REUSABLE.has(b.status)) return b.id;
  }
  return undefined;
}

async function createBatch(o: RemoteBatchOptions, state: RemoteBatchState, hooks: StageHooks<RemoteBatchState>): Promise<string> {
  if (!state.fileId) {
    const upload = await toFile(createReadStream(path.join(o.dir, o.entry.file)), o.entry.file);
    state.fileId = (await o.client.files.create({ file: upload, purpose: 'batch' })).id;
    saveState(o, state, hooks);
  }
  const batch = await o.client.batches.create({
    input_file_id: state.fileId,
    endpoint: BATCH_URL,
    completion_window: o.completionWindow as '24h',
    metadata: { phase5_sha256: o.entry.sha256, phase5_file: o.entry.file },
  });
  state.batchId = batch.id;
  saveState(o, state, hooks);
  return batch.id;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error('cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Look at the batch until it ends; progress from its request counts. */
async function waitDone(o: RemoteBatchOptions, batchId: string, hooks: StageHooks<RemoteBatchState>): Promise<Batch> {
  for (;;) {
    const batch = await o.client.batches.retrieve(batchId);
    const c = batch.request_counts;
    hooks.onProgress?.((c?.completed ?? 0) + (c?.failed ?? 0), c?.total || o.entry.lines, batch.status);
    if (DONE.has(batch.status)) return batch;
    await sleep(o.pollMs, hooks.signal);
  }
}

async function download(o: RemoteBatchOptions, id: string | null | undefined, suffix: string): Promise<string[]> {
  if (!id) return [];
  const file = path.join(o.dir, `${o.entry.file}.${suffix}.jsonl`);
  const res = await o.client.files.content(id);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return [file];
}

/** The batch's id when one was recorded or created, else undefined. */
function recordedState(o: RemoteBatchOptions, hooks: StageHooks<RemoteBatchState>): RemoteBatchState {
  if (hooks.resumeFrom?.batchId) return { ...hooks.resumeFrom };
  const file = stateFile(o);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as RemoteBatchState) : { ...hooks.resumeFrom };
}

export async function runRemoteBatch(o: RemoteBatchOptions, hooks: StageHooks<RemoteBatchState>): Promise<RemoteBatchResult> {
  const state = recordedState(o, hooks);
  state.batchId ??= await findBatch(o);
  if (state.batchId) saveState(o, state, hooks);
  const batchId = state.batchId ?? (await createBatch(o, state, hooks));
  let batch: Batch;
  try {
    batch = await waitDone(o, batchId, hooks);
  } catch (err) {
    if (hooks.signal?.aborted) await o.client.batches.cancel(batchId).catch(() => undefined);
    throw err;
  }
  if (batch.status === 'failed') {
    const why = (batch.errors?.data ?? []).map((e) => `${e.code ?? 'error'}${e.line ? ` (line ${e.line})` : ''}: ${e.message ?? ''}`);
    throw new UserInputError(`batch ${batchId} of ${o.entry.file} failed: ${why.join('; ') || 'no reason given'}`);
  }
  const outputs = [...(await download(o, batch.output_file_id, 'output')), ...(await download(o, batch.error_file_id, 'errors'))];
  const c = batch.request_counts ?? { total: o.entry.lines, completed: 0, failed: 0 };
  return {
    file: o.entry.file,
    batchId,
    status: batch.status,
    counts: { total: c.total, completed: c.completed, failed: c.failed },
    outputs,
  };
}
