/**
 * Sentence embedder: tokenizer.json + ONNX encoder on onnxruntime-node, with mean/CLS pooling and L2
 * normalisation. Texts are sorted by token length and batched so padding stays small (batch-plan.ts);
 * results come back in input order as one row-major Float32Array (n × dims). Sessions run in worker
 * threads (session-pool.ts), several batches at once, while this thread tokenizes and assembles.
 */
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { batchEnds, RUN_COST_TOKENS } from './batch-plan';
import { EMBEDDING_DEVICES, type EmbeddingDevice } from './device';
import { SUPPORTED_INPUTS, type IntType } from './feeds';
import { ModelDirError, resolveModelDir, type ModelDirFiles } from './model-dir';
import { modelSettingsFor, type EmbeddingModelSettings, type Pooling } from './presets';
import { openSessions, sessionLayout } from './open-sessions';
import type { SessionPool, RunMode, RunResult } from './session-pool';
import { TextTokenizer } from './tokenizer';

export { normalizeRows } from './feeds';
export { sessionLayout } from './open-sessions';

const log = childLogger('embed');

export type TextKind = 'query' | 'passage';

export interface EmbedderOptions {
  /** HF-layout directory: model.onnx or onnx/model.onnx (+ external data), tokenizer.json. */
  modelDir: string;
  /** Name recorded in index manifests; defaults to the directory name. */
  modelId?: string;
  /** Graph file relative to modelDir (or absolute), when not model.onnx / onnx/model.onnx. */
  modelFile?: string;
  queryPrefix?: string;
  passagePrefix?: string;
  pooling?: Pooling;
  normalize?: boolean;
  maxLength?: number;
  /** Sentences per session run (default 32). */
  batchSize?: number;
  /** CPU threads for onnxruntime in all (default: all cores); split evenly over the sessions. */
  threads?: number;
  /**
   * Sessions running batches in parallel, each in its own worker thread (default 'auto': one
   * single-threaded session per thread for models up to 400 MB, else one session with all threads).
   */
  sessions?: number | 'auto';
  /** Output to pool (default last_hidden_state / token_embeddings / first output). */
  outputName?: string;
  /**
   * 'cuda': one session on the GPU through onnxruntime-node's CUDA provider; where that cannot start,
   * the CPU sessions, with one warning saying why (default 'cpu').
   */
  device?: EmbeddingDevice;
}

/** Everything that changes the vectors; recorded in the index manifest and compared on load. */
export interface EmbedderIdentity {
  id: string;
  file: string;
  sha256: string;
  externalDataSha256: string | null;
  dims: number;
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  passagePrefix: string;
  maxLength: number;
}

export interface EmbedProgress {
  onProgress?: (done: number, total: number) => void;
  /** When given, time spent is added here (ms): tokenizing vs onnxruntime session runs (the rest is batching/pooling). */
  timings?: { tokenizeMs: number; sessionMs: number };
}

/** A padded batch ready for a session (exposed so benchmarks can time the sessions alone). */
export interface PreparedBatch {
  /** Positions of these rows in the caller's input order. */
  rows: number[];
  /** Token ids, rows.length × seqLen, zero-padded. */
  ids: Int32Array;
  /** 1 for real tokens, 0 for padding. */
  mask: Uint8Array;
  seqLen: number;
}

/** Batches queued per session, so a session never waits for this thread between batches. */
const IN_FLIGHT_PER_SESSION = 2;

export class Embedder {
  readonly dims: number;
  readonly modelSha256: string;
  readonly externalDataSha256: string | null;
  readonly settings: EmbeddingModelSettings & {
    maxLength: number;
    batchSize: number;
    threads: number;
    sessions: number;
    threadsPerSession: number;
    device: EmbeddingDevice;
  };

  private constructor(
    readonly modelId: string,
    readonly files: ModelDirFiles,
    private readonly pool: SessionPool,
    private readonly tokenizer: TextTokenizer,
    private readonly outputName: string,
    private readonly intType: IntType,
    settings: Embedder['settings'],
    dims: number,
    sha: string,
    dataSha: string | null,
  ) {
    this.settings = settings;
    this.dims = dims;
    this.modelSha256 = sha;
    this.externalDataSha256 = dataSha;
  }

  static async load(opts: EmbedderOptions): Promise<Embedder> {
    const files = resolveModelDir(opts.modelDir, opts.modelFile);
    const modelId = opts.modelId ?? path.basename(files.dir);
    const tokenizer = TextTokenizer.load(files.tokenizerFile);
    const base = modelSettingsFor(opts.modelId ?? files.dir, {
      queryPrefix: opts.queryPrefix,
      passagePrefix: opts.passagePrefix,
      pooling: opts.pooling,
      normalize: opts.normalize,
      maxLength: opts.maxLength,
    });
    const maxLength = base.maxLength ?? tokenizer.info.truncationMaxLength ?? 512;
    const minLen = tokenizer.prefixSpecials + tokenizer.suffixSpecials + 1;
    if (!Number.isInteger(maxLength) || maxLength < minLen)
      throw new Error(`embedding maxLength must be an integer >= ${minLen}, got ${maxLength}`);
    const { batchSize, threads, sessionsOpt, device } = checkedOptions(opts, base.pooling);
    const modelBytes = statSync(files.modelFile).size + (files.externalDataFile ? statSync(files.externalDataFile).size : 0);
    const cpuLayout = sessionLayout(threads, sessionsOpt, modelBytes);
    const pool = await openSessions(files.modelFile, device, threads, cpuLayout);
    const layout = pool.device === 'cuda' ? { sessions: 1, threadsPerSession: threads } : cpuLayout;

    try {
      const { intType, outputName, shape } = modelIo(pool.info, files.modelFile, opts.outputName);

      const [sha, dataSha] = await Promise.all([
        sha256File(files.modelFile),
        files.externalDataFile ? sha256File(files.externalDataFile) : Promise.resolve(null),
      ]);
      const settings = { ...base, maxLength, batchSize, threads, ...layout, device: pool.device };
      const lastDim = shape[shape.length - 1];
      let dims = typeof lastDim === 'number' && lastDim > 0 ? lastDim : 0;
      const embedder = new Embedder(modelId, files, pool, tokenizer, outputName, intType, settings, dims, sha, dataSha);
      if (!dims) {
        // Symbolic output width: learn it from one tiny run.
        const probe = await embedder.runBatch(embedder.prepareBatches([tokenizer.encode('a', maxLength)])[0]);
        dims = probe.length;
        (embedder as { dims: number }).dims = dims;
      }
      log.debug(
        {
          model: modelId,
          file: files.modelFile,
          dims,
          output: outputName,
          maxLength,
          batchSize,
          threads,
          sessions: layout.sessions,
          device: pool.device,
        },
        'embedding model loaded',
      );
      return embedder;
    } catch (err) {
      await pool.close(); // a check after starting the sessions failed: do not leak them
      throw err;
    }
  }

  /** The inputs the model declares (what a batch is fed). */
  get inputNames(): readonly string[] {
    return this.pool.info.inputNames;
  }

  /** What the vectors depend on (for index manifests and partial-file checks). */
  get identity(): EmbedderIdentity {
    return {
      id: this.modelId,
      file: path.relative(this.files.dir, this.files.modelFile),
      sha256: this.modelSha256,
      externalDataSha256: this.externalDataSha256,
      dims: this.dims,
      pooling: this.settings.pooling,
      normalize: this.settings.normalize,
      queryPrefix: this.settings.queryPrefix,
      passagePrefix: this.settings.passagePrefix,
      maxLength: this.settings.maxLength,
    };
  }

  /** Token ids (with prefix and special tokens, truncated) for each text. */
  tokenize(texts: readonly string[], kind: TextKind): number[][] {
    const prefix = kind === 'query' ? this.settings.queryPrefix : this.settings.passagePrefix;
    const max = this.settings.maxLength;
    return texts.map((t) => this.tokenizer.encode(prefix + t, max));
  }

  /**
   * Sort by length (longest first) and cut into padded batches of at most `batchSize`, where padding would
   * cost more than another session run (batch-plan.ts; `runCost` Infinity: fixed runs of `batchSize`).
   */
  prepareBatches(tokenized: readonly number[][], batchSize = this.settings.batchSize, runCost = RUN_COST_TOKENS): PreparedBatch[] {
    const order = tokenized.map((_, i) => i).sort((a, b) => tokenized[b].length - tokenized[a].length || a - b);
    const lengths = order.map((i) => tokenized[i].length);
    const ends = batchEnds(lengths, batchSize, runCost);
    const batches: PreparedBatch[] = [];
    for (let b = 0, s = 0; b < ends.length; s = ends[b++]) {
      const rows = order.slice(s, ends[b]);
      const L = tokenized[rows[0]].length;
      const ids = new Int32Array(rows.length * L);
      const mask = new Uint8Array(rows.length * L);
      rows.forEach((row, r) => {
        const t = tokenized[row];
        ids.set(t, r * L);
        mask.fill(1, r * L, r * L + t.length);
      });
      batches.push({ rows, ids, mask, seqLen: L });
    }
    return batches;
  }

  /** Send one batch to a session. Its buffers move to the worker: a batch can be run once. */
  private send(batch: PreparedBatch, mode: RunMode): Promise<RunResult> {
    const { pooling, normalize } = this.settings;
    return this.pool.run({
      ids: batch.ids,
      mask: batch.mask,
      n: batch.rows.length,
      L: batch.seqLen,
      intType: this.intType,
      output: this.outputName,
      mode,
      pooling,
      normalize,
    });
  }

  /** The model's raw output for one batch (no pooling), for diagnostics and tests. */
  async runSession(batch: PreparedBatch): Promise<{ data: Float32Array; dims: number[] }> {
    const r = await this.send(batch, 'hidden');
    return { data: r.data, dims: r.dims };
  }

  /** Run one prepared batch and pool: returns rows.length × dims, in the batch's row order. */
  async runBatch(batch: PreparedBatch, timings?: EmbedProgress['timings']): Promise<Float32Array> {
    const r = await this.send(batch, 'pool');
    if (timings) timings.sessionMs += r.sessionMs;
    return r.data;
  }

  /**
   * Run batches through the sessions only — nothing pooled or returned — with the same parallelism as
   * embedding; resolves to the wall time in ms. Benchmarks use it for "raw session speed".
   */
  async runSessionsOnly(batches: readonly PreparedBatch[]): Promise<number> {
    const t0 = performance.now();
    await this.forEachResult(batches, 'raw', () => {});
    return performance.now() - t0;
  }

  /** Keep every session busy (a few batches queued each) and hand each result over as it arrives. */
  private async forEachResult(
    batches: readonly PreparedBatch[],
    mode: RunMode,
    onResult: (batch: PreparedBatch, r: RunResult) => void,
  ): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        onResult(batch, await this.send(batch, mode));
      }
    };
    const lanes = Math.min(batches.length, this.settings.sessions * IN_FLIGHT_PER_SESSION);
    await Promise.all(Array.from({ length: lanes }, lane));
  }

  /** Embed pre-tokenized texts; output in input order. */
  async embedTokenized(tokenized: readonly number[][], opts: EmbedProgress = {}): Promise<Float32Array> {
    const d = this.dims;
    const out = new Float32Array(tokenized.length * d);
    let done = 0;
    await this.forEachResult(this.prepareBatches(tokenized), 'pool', (batch, r) => {
      if (opts.timings) opts.timings.sessionMs += r.sessionMs;
      batch.rows.forEach((row, i) => out.set(r.data.subarray(i * d, (i + 1) * d), row * d));
      done += batch.rows.length;
      opts.onProgress?.(done, tokenized.length);
    });
    return out;
  }

  /** Embed texts as queries or passages (the per-model prefix is added); n × dims, input order. */
  async embed(texts: readonly string[], kind: TextKind, opts: EmbedProgress = {}): Promise<Float32Array> {
    if (texts.length === 0) return new Float32Array(0);
    const t0 = opts.timings ? performance.now() : 0;
    const tokenized = this.tokenize(texts, kind);
    if (opts.timings) opts.timings.tokenizeMs += performance.now() - t0;
    return this.embedTokenized(tokenized, opts);
  }

  embedQueries(texts: readonly string[], opts?: EmbedProgress): Promise<Float32Array> {
    return this.embed(texts, 'query', opts);
  }

  embedPassages(texts: readonly string[], opts?: EmbedProgress): Promise<Float32Array> {
    return this.embed(texts, 'passage', opts);
  }

  async dispose(): Promise<void> {
    await this.pool.close();
  }
}

/** The run options of `Embedder.load`, checked, with their defaults. */
function checkedOptions(opts: EmbedderOptions, pooling: unknown) {
  const batchSize = opts.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`embedding batchSize must be a positive integer, got ${batchSize}`);
  const threads = opts.threads ?? os.availableParallelism();
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`embedding threads must be a positive integer, got ${threads}`);
  const sessionsOpt = opts.sessions ?? 'auto';
  if (sessionsOpt !== 'auto' && (!Number.isInteger(sessionsOpt) || sessionsOpt < 1))
    throw new Error(`embedding sessions must be a positive integer or "auto", got ${String(sessionsOpt)}`);
  if (pooling !== 'mean' && pooling !== 'cls') throw new Error(`embedding pooling must be "mean" or "cls", got ${String(pooling)}`);
  const device = opts.device ?? 'cpu';
  if (!EMBEDDING_DEVICES.includes(device))
    throw new Error(`embedding device must be ${EMBEDDING_DEVICES.map((d) => `"${d}"`).join(' or ')}, got ${String(device)}`);
  return { batchSize, threads, sessionsOpt, device };
}

/** What the model is fed and what is read back: its ids' integer type, the output used and that output's shape. */
function modelIo(info: SessionPool['info'], modelFile: string, wanted: string | undefined) {
  for (const name of info.inputNames) {
    if (!SUPPORTED_INPUTS.has(name))
      throw new ModelDirError(
        `model ${modelFile} has an input "${name}" this embedder cannot feed (supported: ${[...SUPPORTED_INPUTS].join(', ')})`,
      );
  }
  if (!info.inputNames.includes('input_ids'))
    throw new ModelDirError(`model ${modelFile} has no input_ids input (inputs: ${info.inputNames.join(', ')})`);
  const idsMeta = info.inputs.find((m) => m.name === 'input_ids');
  const intType: IntType = idsMeta && idsMeta.isTensor && idsMeta.type === 'int32' ? 'int32' : 'int64';

  const outputName = wanted ?? ['last_hidden_state', 'token_embeddings'].find((n) => info.outputNames.includes(n)) ?? info.outputNames[0];
  const outMeta = info.outputs.find((m) => m.name === outputName);
  if (!outMeta) throw new ModelDirError(`model ${modelFile} has no output "${outputName}" (outputs: ${info.outputNames.join(', ')})`);
  const shape = outMeta.isTensor ? outMeta.shape : [];
  const outputRank = shape.length || 3;
  if (outputRank !== 2 && outputRank !== 3)
    throw new ModelDirError(`model output ${outputName} has rank ${outputRank}; expected [batch, seq, dims] or [batch, dims]`);

  return { intType, outputName, shape };
}
