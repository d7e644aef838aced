/**
 * Dense and hybrid retrieval for bench/witness-recall.ts: their per-line hits from bench/eval-retrieval.ts's
 * output (e5-small; the configurations "dense" and "hybrid weighted 0.5"), and their latency measured on
 * the same index, one query at a time, as export would run them.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RAGRetriever } from '../src/index/retriever';
import { createRetrievalPipeline } from '../src/retrieval/pipeline';
import { firstCorrectRank, type TruePassage } from '../src/witness/recall';

const CONFIGS = { dense: 'dense', hybrid: 'hybrid weighted 0.5' } as const;
type Hit = { source_uri: string; line: number | null };

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** Per configuration, sample_id → rank of the first hit inside a true passage; null without the eval output. */
export function evalDirRanks(
  evalDir: string,
  rows: readonly { sample_id: string; truth: TruePassage[]; qualifies: boolean }[],
  correct: (h: Hit, t: readonly TruePassage[]) => boolean,
): Record<string, Map<string, number | null>> | null {
  const linesFile = path.join(evalDir, 'retrieval_eval_lines.jsonl');
  const corpusFile = path.join(evalDir, 'cache', 'corpus.jsonl');
  if (!existsSync(linesFile) || !existsSync(corpusFile)) {
    console.log(`dense/hybrid: no ${linesFile} — run bench/eval-retrieval.ts --models e5-small first`);
    return null;
  }
  const corpus = new Map(readJsonl<{ idx: number; source_uri: string; line: number | null }>(corpusFile).map((r) => [r.idx, r]));
  const truth = new Map(rows.filter((r) => r.qualifies).map((r) => [r.sample_id, r.truth]));
  const out: Record<string, Map<string, number | null>> = {};
  for (const name of Object.keys(CONFIGS)) out[name] = new Map();
  for (const r of readJsonl<{ sample_id: string; config: string; model: string; top: number[] }>(linesFile)) {
    const name = Object.entries(CONFIGS).find(([, c]) => c === r.config)?.[0];
    const t = truth.get(r.sample_id);
    if (!name || r.model !== 'e5-small' || !t) continue;
    out[name].set(
      r.sample_id,
      firstCorrectRank(
        r.top.slice(0, 3).map((i) => corpus.get(i)!),
        (h) => correct(h, t),
      ),
    );
  }
  return out;
}

/** Median and p95 ms per query of dense and hybrid top-3 on the eval index (model load excluded). */
export async function denseLatency(
  evalDir: string,
  queries: readonly string[],
): Promise<Record<string, { median: number; p95: number; queries: number }>> {
  const indexPath = path.join(evalDir, 'cache', 'e5-small', 'index.usearch');
  const corpusPath = path.join(evalDir, 'cache', 'corpus.jsonl');
  const modelDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'models', 'multilingual-e5-small');
  const r = await RAGRetriever.open({ indexPath, corpusPath, embedding: { modelDir, maxLength: 128 }, index: { type: 'exact' } });
  const out: Record<string, { median: number; p95: number; queries: number }> = {};
  try {
    const pipes = {
      dense: await createRetrievalPipeline(r, {}),
      hybrid: await createRetrievalPipeline(r, { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0.5 }, fetch_k: 50 }),
    };
    for (const [name, p] of Object.entries(pipes)) {
      await p.retrieveMany([queries[0]], 3, 0); // warm-up
      const ms: number[] = [];
      for (const q of queries) {
        const t = performance.now();
        await p.retrieveMany([q], 3, 0);
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      out[name] = { median: ms[Math.floor(ms.length / 2)], p95: ms[Math.floor(ms.length * 0.95)], queries: ms.length };
      await p.close();
    }
  } finally {
    await r.close();
  }
  return out;
}
