/**
 * The OCR lines' dense candidates and query vectors, computed once per index by the real retriever and cached on
 * disk (keyed by the index manifest and the queries), and served back to the pipeline as its base retriever and
 * query embedder.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { normalizeRows } from '../embed/embedder';
import type { RAGRetriever, RetrievedChunk } from '../index/retriever';
import { writeJsonAtomic } from '../io/jsonl';
import type { BaseRetriever } from '../retrieval/pipeline';
import type { CorpusStore } from '../retrieval/store';
import { sha256Text } from '../util/hash';
import { createProgress } from '../util/progress';

interface DenseCache {
  /** Per query: [idx, score] pairs, best first. */
  lists: [number, number][][];
  vectors: Float32Array;
  dims: number;
}

/** Dense candidates + query vectors of all queries, from the real retriever, cached on disk. */
export async function denseCandidates(retriever: RAGRetriever, queries: string[], fetchK: number, dir: string): Promise<DenseCache> {
  const m = retriever.manifest!;
  const key = sha256Text(JSON.stringify({ model: m.model.sha256, corpus: m.corpus.sha256, fetchK, queries })).slice(0, 16);
  const jsonFile = path.join(dir, `queries-${key}.json`);
  const vecFile = path.join(dir, `queries-${key}.f32`);
  const dims = m.model.dims;
  if (existsSync(jsonFile) && existsSync(vecFile)) {
    const lists = JSON.parse(readFileSync(jsonFile, 'utf8')) as [number, number][][];
    const buf = readFileSync(vecFile);
    const vectors = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    if (lists.length === queries.length && vectors.length === queries.length * dims) return { lists, vectors, dims };
  }
  const lists: [number, number][][] = [];
  const vectors = new Float32Array(queries.length * dims);
  const B = 64;
  const bar = createProgress({ label: `eval: queries ${m.model.id}`, total: queries.length });
  try {
    for (let s = 0; s < queries.length; s += B) {
      const batch = queries.slice(s, s + B);
      const hits = await retriever.retrieveMany(batch, fetchK, 0);
      for (const h of hits) lists.push(h.map((c) => [c.idx, c.score]));
      vectors.set(normalizeRows(await retriever.model!.embedQueries(batch), batch.length), s * dims);
      bar.update(Math.min(queries.length, s + B));
    }
  } finally {
    bar.stop();
  }
  writeJsonAtomic(jsonFile, lists);
  const fd = openSync(vecFile, 'w');
  try {
    writeSync(fd, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  } finally {
    closeSync(fd);
  }
  return { lists, vectors, dims };
}

/** A BaseRetriever answering from the dense cache (queries must be among the cached ones). */
export function cachedBase(store: CorpusStore, queries: string[], cache: DenseCache): BaseRetriever {
  const at = new Map<string, number>();
  queries.forEach((q, i) => {
    if (!at.has(q.trim())) at.set(q.trim(), i);
  });
  return {
    config: { maxChunkChars: 150 },
    async retrieveMany(qs, k = 3, minScore = 0) {
      return qs.map((q) => {
        const i = at.get(q.trim());
        if (i === undefined) throw new Error(`eval: query not in the dense cache: ${q.slice(0, 40)}`);
        const list = cache.lists[i];
        if (k > list.length && list.length < store.texts.length)
          throw new Error(`eval: dense cache holds ${list.length} candidates, ${k} asked`);
        return list
          .filter(([, s]) => s >= minScore)
          .slice(0, k)
          .map(([idx, score], r): RetrievedChunk => ({
            text: store.texts[idx],
            source_uri: store.uris[idx],
            score,
            rank: r + 1,
            idx,
            date: store.dates[idx],
          }));
      });
    },
  };
}

/** Query vectors served from the dense cache (every query must be among the cached ones). */
export function cachedQueryEmbedder(queries: string[], cache: DenseCache): (qs: string[]) => Promise<Float32Array> {
  const qIndex = new Map(queries.map((q, i) => [q.trim(), i]));
  return async (qs: string[]) => {
    const out = new Float32Array(qs.length * cache.dims);
    qs.forEach((q, r) => {
      const i = qIndex.get(q.trim());
      if (i === undefined) throw new Error('eval: query vector not cached');
      out.set(cache.vectors.subarray(i * cache.dims, (i + 1) * cache.dims), r * cache.dims);
    });
    return out;
  };
}
