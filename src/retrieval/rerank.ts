/**
 * Rerankers: score (query, candidate) pairs in [0, 1]; the pipeline combines that with the embedding
 * score as w·embedding + (1 − w)·reranker (docs/retrieval.md#retriever-options, w = 0.7).
 *
 * - LexicalReranker (no model): how well the OCR line reads as a noisy copy of the candidate — character
 *   n-gram containment and a fitting edit distance on matching keys. Built for OCR noise, where a
 *   multilingual sentence encoder sees a different "sentence" after a few wrong letters.
 * - CrossEncoderReranker: any Hugging Face–layout ONNX cross-encoder (model.onnx + tokenizer.json) whose
 *   output is one relevance logit per pair (or two-class logits); mapped to [0, 1] with a sigmoid /
 *   softmax. `loadReranker` never throws for a missing or broken model: it returns no reranker and the
 *   reason, and the pipeline keeps the original order (hermetic fallback).
 */
import os from 'node:os';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import { resolveModelDir } from '../embed/model-dir';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { codePoints, matchKey, ngramContainment, substringEditDistance } from './text';

const log = childLogger('rerank');

export interface Reranker {
  /** e.g. "lexical" or "cross_encoder:<model dir name>". */
  readonly name: string;
  /** What changes the scores (model file hash, settings): part of the pipeline fingerprint. */
  readonly identity: string;
  /** One score in [0, 1] per candidate, in candidate order. */
  score(query: string, candidates: readonly string[]): Promise<number[]>;
  close(): Promise<void>;
}

export interface LexicalRerankerOptions {
  /** n-gram length for containment (default 3). */
  ngram?: number;
  /** Weight of n-gram containment vs. fitting edit similarity (default 0.5). */
  containmentWeight?: number;
}

/**
 * Similarity of an OCR line and a candidate in [0, 1]: the shorter of the two (after matchKey) is fitted
 * into the longer (an OCR line may be part of a corpus line or span the end of one), scored as
 * 1 − edits/|shorter|, and averaged with the share of the shorter's character n-grams found in the longer.
 * A short side under 40 % of the longer side's length is penalised in proportion (a 30-letter corpus line
 * inside a 90-letter OCR line supports only a third of it).
 */
export function lexicalSimilarity(query: string, candidate: string, opts: LexicalRerankerOptions = {}): number {
  const n = opts.ngram ?? 3;
  const w = opts.containmentWeight ?? 0.5;
  const qk = matchKey(query);
  const ck = matchKey(candidate);
  if (!qk || !ck) return 0;
  const q = codePoints(qk);
  const c = codePoints(ck);
  const [short, long, shortKey, longKey] = q.length <= c.length ? [q, c, qk, ck] : [c, q, ck, qk];
  const fit = Math.max(0, 1 - substringEditDistance(short, long).distance / short.length);
  const contain = ngramContainment(shortKey, longKey, n);
  const coverage = Math.min(1, short.length / (0.4 * long.length));
  return (w * contain + (1 - w) * fit) * coverage;
}

export class LexicalReranker implements Reranker {
  readonly name = 'lexical';
  readonly identity: string;
  constructor(private readonly opts: LexicalRerankerOptions = {}) {
    this.identity = `lexical:n=${opts.ngram ?? 3}:w=${opts.containmentWeight ?? 0.5}`;
  }
  async score(query: string, candidates: readonly string[]): Promise<number[]> {
    return candidates.map((c) => lexicalSimilarity(query, c, this.opts));
  }
  async close(): Promise<void> {}
}

export interface CrossEncoderOptions {
  /** HF-layout directory: model.onnx (or onnx/model.onnx) + tokenizer.json. */
  modelDir: string;
  /** Max tokens per pair incl. special tokens (default 256); the longer side is cut first. */
  maxLength?: number;
  /** Pairs per session run (default 16). */
  batchSize?: number;
  threads?: number;
}

interface PairTemplate {
  prefix: number[];
  middle: number[];
  suffix: number[];
  /** Token type of the prefix + first text + middle, and of the second text + suffix. */
  typeA: number;
  typeB: number;
}

/** Find how the tokenizer's post-processor wraps a pair: prefix A middle B suffix (special-token ids). */
function pairTemplate(tok: Tokenizer, file: string): PairTemplate {
  const a = tok.encode('a', { add_special_tokens: false }).ids;
  const b = tok.encode('b', { add_special_tokens: false }).ids;
  const full = tok.encode('a', { text_pair: 'b', return_token_type_ids: true });
  const ids = full.ids;
  const find = (needle: number[], from: number) => {
    for (let i = from; i + needle.length <= ids.length; i++) if (needle.every((x, j) => ids[i + j] === x)) return i;
    return -1;
  };
  const ia = find(a, 0);
  const ib = ia < 0 ? -1 : find(b, ia + a.length);
  if (ia < 0 || ib < 0 || a.length === 0 || b.length === 0)
    throw new Error(`tokenizer ${file}: cannot locate the texts inside its pair template`);
  const types = full.token_type_ids ?? ids.map(() => 0);
  return {
    prefix: ids.slice(0, ia),
    middle: ids.slice(ia + a.length, ib),
    suffix: ids.slice(ib + b.length),
    typeA: types[ia] ?? 0,
    typeB: types[ib] ?? 0,
  };
}

export class CrossEncoderReranker implements Reranker {
  readonly name: string;
  private constructor(
    readonly identity: string,
    private readonly session: ort.InferenceSession,
    private readonly tok: Tokenizer,
    private readonly tpl: PairTemplate,
    private readonly maxLength: number,
    private readonly batchSize: number,
    private readonly intType: 'int64' | 'int32',
    dirName: string,
  ) {
    this.name = `cross_encoder:${dirName}`;
  }

  /** Load the model; throws with a message naming the file on any problem (loadReranker catches it). */
  static async load(opts: CrossEncoderOptions): Promise<CrossEncoderReranker> {
    const files = resolveModelDir(opts.modelDir);
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(readFileSync(files.tokenizerFile, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`tokenizer ${files.tokenizerFile} is not valid JSON (${(err as Error).message})`);
    }
    let tok: Tokenizer;
    try {
      tok = new Tokenizer(json, {});
    } catch (err) {
      throw new Error(`tokenizer ${files.tokenizerFile} could not be loaded: ${(err as Error).message}`);
    }
    const tpl = pairTemplate(tok, files.tokenizerFile);
    const maxLength = opts.maxLength ?? 256;
    const specials = tpl.prefix.length + tpl.middle.length + tpl.suffix.length;
    if (!Number.isInteger(maxLength) || maxLength < specials + 2)
      throw new Error(`cross-encoder maxLength must be an integer ≥ ${specials + 2}, got ${maxLength}`);
    const batchSize = opts.batchSize ?? 16;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new Error(`cross-encoder batchSize must be a positive integer, got ${batchSize}`);
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(files.modelFile, {
        intraOpNumThreads: opts.threads ?? os.availableParallelism(),
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
    } catch (err) {
      throw new Error(`cannot load ONNX model ${files.modelFile}: ${(err as Error).message}`);
    }
    if (!session.inputNames.includes('input_ids')) {
      await session.release();
      throw new Error(`model ${files.modelFile} has no input_ids input (inputs: ${session.inputNames.join(', ')})`);
    }
    const unknown = session.inputNames.filter((n) => !['input_ids', 'attention_mask', 'token_type_ids'].includes(n));
    if (unknown.length) {
      await session.release();
      throw new Error(`model ${files.modelFile} has inputs this reranker cannot feed: ${unknown.join(', ')}`);
    }
    const meta = session.inputMetadata.find((m) => m.name === 'input_ids');
    const intType = meta && meta.isTensor && meta.type === 'int32' ? 'int32' : 'int64';
    const sha = await sha256File(files.modelFile);
    const identity = `cross_encoder:${sha}:max=${maxLength}`;
    return new CrossEncoderReranker(identity, session, tok, tpl, maxLength, batchSize, intType, files.dir.split(/[\\/]/).pop() ?? 'model');
  }

  /** Token ids and types of one pair, cut longest-first to maxLength. */
  encodePair(query: string, passage: string): { ids: number[]; types: number[] } {
    let a = this.tok.encode(query, { add_special_tokens: false }).ids;
    let b = this.tok.encode(passage, { add_special_tokens: false }).ids;
    const room = this.maxLength - this.tpl.prefix.length - this.tpl.middle.length - this.tpl.suffix.length;
    while (a.length + b.length > room) {
      if (b.length >= a.length) b = b.slice(0, b.length - 1);
      else a = a.slice(0, a.length - 1);
    }
    if (a.some((x) => x === undefined) || b.some((x) => x === undefined)) {
      // tokenizers.js leaves ids undefined for out-of-vocabulary words of a WordLevel model without an unk id.
      throw new Error(
        `cross-encoder tokenizer has no id for a word of ${JSON.stringify((a.includes(undefined as never) ? query : passage).slice(0, 40))}`,
      );
    }
    const first = [...this.tpl.prefix, ...a, ...this.tpl.middle];
    const second = [...b, ...this.tpl.suffix];
    return { ids: [...first, ...second], types: [...first.map(() => this.tpl.typeA), ...second.map(() => this.tpl.typeB)] };
  }

  async score(query: string, candidates: readonly string[]): Promise<number[]> {
    const out: number[] = [];
    for (let s = 0; s < candidates.length; s += this.batchSize) {
      const pairs = candidates.slice(s, s + this.batchSize).map((c) => this.encodePair(query, c));
      const L = Math.max(...pairs.map((p) => p.ids.length));
      const n = pairs.length;
      const make = (fill: (p: { ids: number[]; types: number[] }, j: number) => number) => {
        const data = this.intType === 'int64' ? new BigInt64Array(n * L) : new Int32Array(n * L);
        pairs.forEach((p, r) => {
          for (let j = 0; j < p.ids.length; j++) {
            const v = fill(p, j);
            if (data instanceof BigInt64Array) data[r * L + j] = BigInt(v);
            else data[r * L + j] = v;
          }
        });
        return new ort.Tensor(this.intType, data, [n, L]);
      };
      const feeds: Record<string, ort.Tensor> = { input_ids: make((p, j) => p.ids[j]) };
      if (this.session.inputNames.includes('attention_mask')) feeds.attention_mask = make(() => 1);
      if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = make((p, j) => p.types[j]);
      const res = await this.session.run(feeds);
      const logits = res[this.session.outputNames[0]];
      const data = logits.data as Float32Array;
      const width = data.length / n;
      for (let r = 0; r < n; r++) {
        if (width === 1) out.push(1 / (1 + Math.exp(-data[r])));
        else {
          // Two-class (or more) head: probability of the last class ("relevant").
          const row = Array.from(data.subarray(r * width, (r + 1) * width));
          const mx = Math.max(...row);
          const ex = row.map((v) => Math.exp(v - mx));
          out.push(ex[ex.length - 1] / ex.reduce((x, y) => x + y, 0));
        }
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

export type RerankMethod = 'lexical' | 'cross_encoder';

export interface RerankerStatus {
  method: RerankMethod;
  /** True when the configured reranker is loaded and used. */
  active: boolean;
  /** Why it is not active (missing / broken model, …): the pipeline keeps the original order. */
  reason: string | null;
  name: string | null;
}

export interface LoadRerankerOptions {
  method: RerankMethod;
  modelDir?: string | null;
  maxLength?: number;
  batchSize?: number;
  threads?: number;
  lexical?: LexicalRerankerOptions;
}

/** The configured reranker, or null with the reason; never throws for an unusable model. */
export async function loadReranker(opts: LoadRerankerOptions): Promise<{ reranker: Reranker | null; status: RerankerStatus }> {
  if (opts.method === 'lexical') {
    const r = new LexicalReranker(opts.lexical);
    return { reranker: r, status: { method: 'lexical', active: true, reason: null, name: r.name } };
  }
  if (opts.method !== 'cross_encoder')
    throw new Error(`rerank method must be "lexical" or "cross_encoder", got ${JSON.stringify(opts.method)}`);
  if (!opts.modelDir) {
    const reason = 'no cross-encoder model_dir configured';
    log.warn({ reason }, 'reranker unavailable — keeping the retrieval order');
    return { reranker: null, status: { method: 'cross_encoder', active: false, reason, name: null } };
  }
  try {
    const r = await CrossEncoderReranker.load({
      modelDir: opts.modelDir,
      maxLength: opts.maxLength,
      batchSize: opts.batchSize,
      threads: opts.threads,
    });
    return { reranker: r, status: { method: 'cross_encoder', active: true, reason: null, name: r.name } };
  } catch (err) {
    const reason = (err as Error).message;
    log.warn({ modelDir: opts.modelDir, reason }, 'reranker unavailable — keeping the retrieval order');
    return { reranker: null, status: { method: 'cross_encoder', active: false, reason, name: null } };
  }
}
