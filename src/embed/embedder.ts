/**
 * Sentence embedder: tokenizer.json + ONNX encoder on onnxruntime-node, with mean/CLS pooling and L2
 * normalisation. Texts are sorted by token length and batched so padding stays small; results come back
 * in input order as one row-major Float32Array (n × dims).
 */
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { ModelDirError, resolveModelDir, type ModelDirFiles } from './model-dir';
import { modelSettingsFor, type EmbeddingModelSettings, type Pooling } from './presets';
import { TextTokenizer } from './tokenizer';

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
  /** onnxruntime intra-op threads (default: all cores). */
  threads?: number;
  /** Output to pool (default last_hidden_state / token_embeddings / first output). */
  outputName?: string;
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

/** A padded batch ready for the session (exposed so benchmarks can time the session alone). */
export interface PreparedBatch {
  /** Positions of these rows in the caller's input order. */
  rows: number[];
  feeds: Record<string, ort.Tensor>;
  mask: Uint8Array;
  seqLen: number;
}

const INT_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

export class Embedder {
  readonly dims: number;
  readonly modelSha256: string;
  readonly externalDataSha256: string | null;
  readonly settings: EmbeddingModelSettings & { maxLength: number; batchSize: number; threads: number };

  private constructor(
    readonly modelId: string,
    readonly files: ModelDirFiles,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: TextTokenizer,
    private readonly outputName: string,
    private readonly outputRank: number,
    private readonly intType: 'int64' | 'int32',
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
    if (!Number.isInteger(maxLength) || maxLength < minLen) throw new Error(`embedding maxLength must be an integer >= ${minLen}, got ${maxLength}`);
    const batchSize = opts.batchSize ?? 32;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`embedding batchSize must be a positive integer, got ${batchSize}`);
    const threads = opts.threads ?? os.availableParallelism();
    if (base.pooling !== 'mean' && base.pooling !== 'cls') throw new Error(`embedding pooling must be "mean" or "cls", got ${String(base.pooling)}`);

    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(files.modelFile, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
    } catch (err) {
      const msg = (err as Error).message;
      const hint = /Protobuf parsing failed/i.test(msg) ? ' — the file is not a valid ONNX model (corrupt or truncated download?)' : '';
      throw new ModelDirError(`cannot load ONNX model ${files.modelFile}: ${msg}${hint}`);
    }

    try {
      for (const name of session.inputNames) {
        if (!INT_INPUTS.has(name)) throw new ModelDirError(`model ${files.modelFile} has an input "${name}" this embedder cannot feed (supported: ${[...INT_INPUTS].join(', ')})`);
      }
      if (!session.inputNames.includes('input_ids')) throw new ModelDirError(`model ${files.modelFile} has no input_ids input (inputs: ${session.inputNames.join(', ')})`);
      const idsMeta = session.inputMetadata.find((m) => m.name === 'input_ids');
      const intType = idsMeta && idsMeta.isTensor && idsMeta.type === 'int32' ? 'int32' : 'int64';

      const outputName =
        opts.outputName ?? ['last_hidden_state', 'token_embeddings'].find((n) => session.outputNames.includes(n)) ?? session.outputNames[0];
      const outMeta = session.outputMetadata.find((m) => m.name === outputName);
      if (!outMeta) throw new ModelDirError(`model ${files.modelFile} has no output "${outputName}" (outputs: ${session.outputNames.join(', ')})`);
      const shape = outMeta.isTensor ? outMeta.shape : [];
      const outputRank = shape.length || 3;
      if (outputRank !== 2 && outputRank !== 3) throw new ModelDirError(`model output ${outputName} has rank ${outputRank}; expected [batch, seq, dims] or [batch, dims]`);

      const [sha, dataSha] = await Promise.all([sha256File(files.modelFile), files.externalDataFile ? sha256File(files.externalDataFile) : Promise.resolve(null)]);
      const settings = { ...base, maxLength, batchSize, threads };
      const lastDim = shape[shape.length - 1];
      let dims = typeof lastDim === 'number' && lastDim > 0 ? lastDim : 0;
      const embedder = new Embedder(modelId, files, session, tokenizer, outputName, outputRank, intType, settings, dims, sha, dataSha);
      if (!dims) {
        // Symbolic output width: learn it from one tiny run.
        const probe = await embedder.runBatch(embedder.prepareBatches([tokenizer.encode('a', maxLength)])[0]);
        dims = probe.length;
        (embedder as { dims: number }).dims = dims;
      }
      log.debug({ model: modelId, file: files.modelFile, dims, output: outputName, maxLength, batchSize, threads }, 'embedding model loaded');
      return embedder;
    } catch (err) {
      await session.release(); // a check after creating the session failed: do not leak it
      throw err;
    }
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

  /** Sort by length (longest first) and cut into padded batches of at most `batchSize`. */
  prepareBatches(tokenized: readonly number[][], batchSize = this.settings.batchSize): PreparedBatch[] {
    const order = tokenized.map((_, i) => i).sort((a, b) => tokenized[b].length - tokenized[a].length || a - b);
    const withTypes = this.session.inputNames.includes('token_type_ids');
    const withMask = this.session.inputNames.includes('attention_mask');
    const batches: PreparedBatch[] = [];
    for (let s = 0; s < order.length; s += batchSize) {
      const rows = order.slice(s, s + batchSize);
      const L = tokenized[rows[0]].length;
      const n = rows.length;
      const mask = new Uint8Array(n * L);
      let idsTensor: ort.Tensor;
      let maskTensor: ort.Tensor | undefined;
      if (this.intType === 'int64') {
        // Write the low 32 bits through an Int32 view: ids are small and non-negative, and this avoids
        // a BigInt per token.
        const ids = new BigInt64Array(n * L);
        const ids32 = new Int32Array(ids.buffer);
        const m = withMask ? new BigInt64Array(n * L) : null;
        const m32 = m ? new Int32Array(m.buffer) : null;
        rows.forEach((row, r) => {
          const t = tokenized[row];
          for (let j = 0; j < t.length; j++) {
            ids32[2 * (r * L + j)] = t[j];
            mask[r * L + j] = 1;
            if (m32) m32[2 * (r * L + j)] = 1;
          }
        });
        idsTensor = new ort.Tensor('int64', ids, [n, L]);
        if (m) maskTensor = new ort.Tensor('int64', m, [n, L]);
      } else {
        const ids = new Int32Array(n * L);
        const m = withMask ? new Int32Array(n * L) : null;
        rows.forEach((row, r) => {
          const t = tokenized[row];
          for (let j = 0; j < t.length; j++) {
            ids[r * L + j] = t[j];
            mask[r * L + j] = 1;
            if (m) m[r * L + j] = 1;
          }
        });
        idsTensor = new ort.Tensor('int32', ids, [n, L]);
        if (m) maskTensor = new ort.Tensor('int32', m, [n, L]);
      }
      const feeds: Record<string, ort.Tensor> = { input_ids: idsTensor };
      if (maskTensor) feeds.attention_mask = maskTensor;
      if (withTypes) feeds.token_type_ids = this.intType === 'int64' ? new ort.Tensor('int64', new BigInt64Array(n * L), [n, L]) : new ort.Tensor('int32', new Int32Array(n * L), [n, L]);
      batches.push({ rows, feeds, mask, seqLen: L });
    }
    return batches;
  }

  /** Raw session run of one prepared batch (no pooling). */
  async runSession(batch: PreparedBatch): Promise<ort.Tensor> {
    const out = await this.session.run(batch.feeds, [this.outputName]);
    return out[this.outputName];
  }

  /** Run one prepared batch and pool: returns rows.length × dims, in the batch's row order. */
  async runBatch(batch: PreparedBatch, timings?: EmbedProgress['timings']): Promise<Float32Array> {
    const t0 = timings ? performance.now() : 0;
    const out = await this.runSession(batch);
    if (timings) timings.sessionMs += performance.now() - t0;
    const h = out.data as Float32Array;
    const n = batch.rows.length;
    if (this.outputRank === 2) return this.settings.normalize ? normalizeRows(h.slice(), n) : h.slice();
    const L = batch.seqLen;
    const d = h.length / (n * L);
    const res = new Float32Array(n * d);
    for (let r = 0; r < n; r++) {
      const dst = r * d;
      if (this.settings.pooling === 'cls') {
        res.set(h.subarray(r * L * d, r * L * d + d), dst);
        continue;
      }
      let count = 0;
      for (let t = 0; t < L; t++) {
        if (!batch.mask[r * L + t]) continue;
        count++;
        const src = (r * L + t) * d;
        for (let j = 0; j < d; j++) res[dst + j] += h[src + j];
      }
      const inv = 1 / Math.max(count, 1);
      for (let j = 0; j < d; j++) res[dst + j] *= inv;
    }
    return this.settings.normalize ? normalizeRows(res, n) : res;
  }

  /** Embed pre-tokenized texts; output in input order. */
  async embedTokenized(tokenized: readonly number[][], opts: EmbedProgress = {}): Promise<Float32Array> {
    const d = this.dims;
    const out = new Float32Array(tokenized.length * d);
    let done = 0;
    for (const batch of this.prepareBatches(tokenized)) {
      const vecs = await this.runBatch(batch, opts.timings);
      batch.rows.forEach((row, r) => out.set(vecs.subarray(r * d, (r + 1) * d), row * d));
      done += batch.rows.length;
      opts.onProgress?.(done, tokenized.length);
    }
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
    await this.session.release();
  }
}

/** L2-normalise each row in place (zero rows stay zero). */
export function normalizeRows(m: Float32Array, rows: number): Float32Array {
  const d = m.length / rows;
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = r * d; j < (r + 1) * d; j++) s += m[j] * m[j];
    if (s === 0) continue;
    const inv = 1 / Math.sqrt(s);
    for (let j = r * d; j < (r + 1) * d; j++) m[j] *= inv;
  }
  return m;
}
