/**
 * BM25 over character n-grams of matching keys: the lexical half of hybrid retrieval.
 *
 * Why character n-grams and not words: an OCR error breaks a whole word (بالكتاب → بالكناب shares no word
 * with the source) but only the two or three grams around the wrong letter, so a line with one error in
 * every other word still hits its source. Why our own index instead of a search library: the corpus is
 * 200k sentences × ~100 grams = 20M postings; general-purpose engines (minisearch, lunr, wink) keep a
 * JS object/Map entry per (term, document) pair, which at that size costs gigabytes. Here postings are
 * CSR typed arrays (doc ids Int32 + term frequencies Uint16: 6 bytes a posting, ~120 MB for 200k
 * sentences) and scoring uses one dense Float32 accumulator.
 */
import { charNgrams, matchKey } from './text';

/** A gram is never skipped (maxDf) while it occurs in at most this many documents. */
export const MIN_SKIPPED_DF = 1000;

export interface LexicalIndexOptions {
  /** Character n-gram length (default 3). */
  ngram?: number;
  /** BM25 term-frequency saturation (default 1.2). */
  k1?: number;
  /** BM25 length normalisation (default 0.75). */
  b?: number;
  /**
   * Query grams found in more than this share of documents are skipped at search time (default 0.02):
   * their idf is small (≤ ln 50 ≈ 4 vs. ≈ 12 for a rare gram) but their postings are most of the work:
   * on 200k OpenITI sentences, char 3-grams took ~200 ms a query with every gram and ~12 ms at 0.02
   * (2 cores, loaded machine). Only grams in more than 1,000 documents are ever skipped, so small corpora
   * get exact BM25.
   * 1 = exact BM25 over all grams.
   */
  maxDf?: number;
}

export interface LexicalHit {
  /** Position in the indexed list (= corpus idx when built from a whole corpus). */
  idx: number;
  /** Raw BM25 score. */
  score: number;
}

export class LexicalIndex {
  readonly ngram: number;
  readonly k1: number;
  readonly b: number;
  readonly maxDf: number;
  private readonly vocab = new Map<string, number>();
  private offsets!: Int32Array; // term → [offsets[t], offsets[t+1]) in docs/tfs
  private docs!: Int32Array;
  private tfs!: Uint16Array;
  private docLen!: Float32Array;
  private avgLen = 0;
  private acc!: Float32Array;

  private constructor(
    readonly size: number,
    opts: LexicalIndexOptions,
  ) {
    this.ngram = opts.ngram ?? 3;
    this.k1 = opts.k1 ?? 1.2;
    this.b = opts.b ?? 0.75;
    this.maxDf = opts.maxDf ?? 0.02;
    if (!(this.maxDf > 0 && this.maxDf <= 1)) throw new RangeError(`lexical maxDf must be in (0, 1], got ${this.maxDf}`);
    if (!Number.isInteger(this.ngram) || this.ngram < 1 || this.ngram > 8)
      throw new RangeError(`lexical ngram must be an integer in 1..8, got ${this.ngram}`);
    if (!(this.k1 >= 0)) throw new RangeError(`lexical k1 must be ≥ 0, got ${this.k1}`);
    if (!(this.b >= 0 && this.b <= 1)) throw new RangeError(`lexical b must be in [0, 1], got ${this.b}`);
  }

  /** Index `texts` (position = id). Two passes over the grams: document frequencies, then postings. */
  static build(texts: readonly string[], opts: LexicalIndexOptions = {}): LexicalIndex {
    const ix = new LexicalIndex(texts.length, opts);
    const n = ix.ngram;
    // Pass 1: term ids, per-doc distinct terms (kept as one flat array to avoid an object per doc).
    const docTermStart = new Int32Array(texts.length + 1);
    const termIds: number[] = [];
    const termTf: number[] = [];
    const df: number[] = [];
    ix.docLen = new Float32Array(texts.length);
    const local = new Map<number, number>();
    let total = 0;
    for (let d = 0; d < texts.length; d++) {
      const grams = charNgrams(matchKey(texts[d]), n);
      local.clear();
      for (const g of grams) {
        let id = ix.vocab.get(g);
        if (id === undefined) {
          id = ix.vocab.size;
          ix.vocab.set(g, id);
          df.push(0);
        }
        local.set(id, (local.get(id) ?? 0) + 1);
      }
      for (const [id, tf] of local) {
        termIds.push(id);
        termTf.push(Math.min(tf, 0xffff));
        df[id]++;
      }
      docTermStart[d + 1] = termIds.length;
      ix.docLen[d] = grams.length;
      total += grams.length;
    }
    ix.avgLen = texts.length ? total / texts.length : 0;
    // Pass 2: CSR postings in doc order.
    const V = ix.vocab.size;
    ix.offsets = new Int32Array(V + 1);
    for (let t = 0; t < V; t++) ix.offsets[t + 1] = ix.offsets[t] + df[t];
    const fill = ix.offsets.slice(0, V);
    ix.docs = new Int32Array(termIds.length);
    ix.tfs = new Uint16Array(termIds.length);
    for (let d = 0; d < texts.length; d++) {
      for (let p = docTermStart[d]; p < docTermStart[d + 1]; p++) {
        const t = termIds[p];
        const at = fill[t]++;
        ix.docs[at] = d;
        ix.tfs[at] = termTf[p];
      }
    }
    ix.acc = new Float32Array(texts.length);
    return ix;
  }

  get vocabularySize(): number {
    return this.vocab.size;
  }

  private idf(df: number): number {
    // BM25 idf with the +1 inside the log (never negative, as in Lucene / rank_bm25's BM25Okapi variants).
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /** Top-k documents for a query (ties: lower idx first). Empty when no gram of the query is indexed. */
  search(query: string, k: number): LexicalHit[] {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    const grams = charNgrams(matchKey(query), this.ngram);
    const q = new Map<number, number>();
    for (const g of grams) {
      const id = this.vocab.get(g);
      if (id !== undefined) q.set(id, (q.get(id) ?? 0) + 1);
    }
    if (q.size === 0) return [];
    const acc = this.acc;
    const touched: number[] = [];
    const { k1, b } = this;
    const norm = this.avgLen > 0 ? b / this.avgLen : 0;
    const dfLimit = this.maxDf >= 1 ? Infinity : Math.max(MIN_SKIPPED_DF, this.maxDf * this.size);
    for (const [t, qtf] of q) {
      const start = this.offsets[t];
      const end = this.offsets[t + 1];
      if (end - start > dfLimit) continue;
      const w = this.idf(end - start) * qtf;
      for (let p = start; p < end; p++) {
        const d = this.docs[p];
        const tf = this.tfs[p];
        if (acc[d] === 0) touched.push(d);
        acc[d] += (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + norm * this.docLen[d]));
      }
    }
    const hits: LexicalHit[] = [];
    if (touched.length <= k) {
      for (const d of touched) hits.push({ idx: d, score: acc[d] });
    } else {
      // Threshold = k-th largest score (select on a copy), then keep everything at or above it.
      const scores = Float32Array.from(touched, (d) => acc[d]).sort();
      const kth = scores[scores.length - k];
      for (const d of touched) if (acc[d] >= kth) hits.push({ idx: d, score: acc[d] });
    }
    for (const d of touched) acc[d] = 0;
    hits.sort((x, y) => y.score - x.score || x.idx - y.idx);
    return hits.slice(0, k);
  }
}
