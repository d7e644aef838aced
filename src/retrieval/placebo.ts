/**
 * Placebo retrieval (study arm `mode: random`): k corpus sentences drawn at random, the same number and the same
 * length budget as the real context, so a gain of the RAG prompt over the placebo is credited to the retrieved
 * *content*, not to a longer prompt. Deterministic: the draw for a line is seeded from
 * sha256(sample_id + "\0" + corpus seed), so every run, shard split and worker draws the same sentences.
 */
import { createHash } from 'node:crypto';
import { readJsonl } from '../io/jsonl';
import { codePointCount, mergeWithinBudget } from './budget';
import { mulberry32 } from '../util/random';

export interface PlaceboSentence {
  text: string;
  source_uri: string;
  idx: number;
  date: number | null;
  score: number;
  rank: number;
}

/** The per-line seed: the first 32 bits of sha256(sample_id + NUL + corpus seed). */
export function placeboSeed(sampleId: string, corpusSeed: number): number {
  return createHash('sha256').update(`${sampleId}\0${corpusSeed}`).digest().readUInt32BE(0);
}

/** `k` distinct indices in [0, n), in draw order (a partial Fisher–Yates over a sparse map). */
export function drawDistinct(n: number, k: number, random: () => number): number[] {
  const take = Math.min(k, n);
  const swapped = new Map<number, number>();
  const out: number[] = [];
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (n - i));
    const vj = swapped.get(j) ?? j;
    swapped.set(j, swapped.get(i) ?? i);
    out.push(vj);
  }
  return out;
}

export class PlaceboSampler {
  private constructor(private readonly sentences: { text: string; source_uri: string; date: number | null }[]) {}

  /** Reads corpus.jsonl (its `idx` order) once. */
  static async open(corpusPath: string): Promise<PlaceboSampler> {
    const rows: { text: string; source_uri: string; date: number | null }[] = [];
    for await (const { value } of readJsonl<{ text: string; source_uri?: string; date?: number | null }>(corpusPath)) {
      rows.push({ text: value.text, source_uri: value.source_uri ?? '', date: typeof value.date === 'number' ? value.date : null });
    }
    if (rows.length === 0) throw new Error(`placebo retrieval: ${corpusPath} holds no sentences`);
    return new PlaceboSampler(rows);
  }

  get size(): number {
    return this.sentences.length;
  }

  /** `k` random sentences for a line, kept in draw order while they fit `maxChars` (the real context's budget; null = none). */
  draw(sampleId: string, corpusSeed: number, k: number, maxChars: number | null = null): PlaceboSentence[] {
    const picked = drawDistinct(this.sentences.length, k, mulberry32(placeboSeed(sampleId, corpusSeed)));
    const chosen = picked.map((idx, i) => ({ ...this.sentences[idx], idx, score: 0, rank: i + 1 }));
    return mergeWithinBudget(chosen, (c) => c.text, { limit: maxChars, measure: codePointCount }).kept;
  }
}
