/**
 * Witness search over a sharded index (src/witness/shards.ts), one shard in memory at a time, with the hits one
 * index over all works gives (docs/witness-shards.md).
 *
 * The placement rule (src/witness/context-search.ts placeLine) runs unchanged over an oracle whose answers come
 * from the shards in rounds: every line is evaluated; an answer not known yet (an alone search, a context search,
 * a fit into a work) is recorded as a request and the line waits; then each shard is loaded once and answers the
 * requests it can (a search: its verified candidates; a fit: the shard holding the work); the lines are evaluated
 * again, until none waits. A search is merged as one index would do it: the `candidates` best buckets over every
 * shard's (most votes first, then the lower diagonal; the votes are whole-text votes), their spans ranked by score.
 * Last, each hit is made by the shard holding its span. Offsets and work / line numbers are the whole text's.
 */
import type { WitnessIndexData } from './build';
import { fitIn, placeLine, type LineInContext, type SpanOracle } from './context-search';
import { spanToHit, type LineTexts, type WitnessHit } from './hits';
import { witnessKey } from './key';
import {
  bestSpans,
  bucketOrder,
  candidateSpans,
  type Bucket,
  type IndexFrame,
  type WitnessSearchOptions,
  type WitnessSpan,
} from './search';
import type { ShardFrame } from './shards';

/** One shard, loaded: its arrays, line texts and frame. */
export interface LoadedShard {
  data: WitnessIndexData;
  texts: LineTexts;
  frame: ShardFrame;
}

/** Runs `fn` with shard `i` in memory (loading it, and letting it go after, unless the caller keeps shards resident). */
export type WithShard = <T>(i: number, fn: (shard: LoadedShard) => T) => T;

/** A sharded index as the search reads it: the shards' frames, a way to load one, the whole index's bucket counts. */
export interface ShardSet {
  frames: readonly ShardFrame[];
  withShard: WithShard;
  counts: Uint32Array;
}

class Waiting extends Error {}

type Candidate = WitnessSpan & { bucket: Bucket };

/** A line among its neighbours as a map key (what a sharded export's hits are looked up by). */
export const lineKey = (l: LineInContext) => JSON.stringify([l.text, l.before, l.after]);

/** A key as a map key and on disk (its UTF-16 units, base64). */
export const keyId = (q: Uint16Array) => Buffer.from(q.buffer, q.byteOffset, q.byteLength).toString('base64');
const keyOf = (id: string) => {
  const b = Buffer.from(id, 'base64');
  return new Uint16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

/** What the lines wait for: searches (by key id) and fits (by fit id), as plain data (a round's request file). */
export interface Requests {
  searches: string[];
  fits: { id: string; work: number; key: string; from: number; to: number }[];
}

/** What the shards answered so far (every round's answers merged). */
export interface Answers {
  searched: Record<string, Candidate[]>;
  fits: Record<string, WitnessSpan | null>;
}

export const noAnswers = (): Answers => ({ searched: {}, fits: {} });

/** Adds a shard's answers to those gathered (a search is complete once every shard of the round has answered). */
export function absorb(into: Answers, more: Answers): void {
  for (const [id, c] of Object.entries(more.searched)) (into.searched[id] ??= []).push(...c);
  for (const [id, f] of Object.entries(more.fits)) if (f || !(id in into.fits)) into.fits[id] = f;
}

/**
 * Evaluates every line with what is answered: the spans of each line that has all it needs (null for a line still
 * waiting) and the requests of the waiting lines.
 */
export function evaluateLines(
  lines: readonly LineInContext[],
  k: number,
  opts: WitnessSearchOptions & { minScore: number },
  answers: Answers,
): { placed: (WitnessSpan[] | null)[]; requests: Requests } {
  const candidates = opts.candidates ?? 16;
  const searches = new Set<string>();
  const fits = new Map<string, Requests['fits'][number]>();
  const merged = (q: Uint16Array, take: number): WitnessSpan[] => {
    const all = answers.searched[keyId(q)];
    if (!all) {
      searches.add(keyId(q));
      throw new Waiting();
    }
    const buckets = [...new Map(all.map((c) => [c.bucket.b, c.bucket])).values()].sort(bucketOrder).slice(0, candidates);
    const chosen = new Set(buckets.map((b) => b.b));
    return bestSpans(
      all.filter((c) => chosen.has(c.bucket.b)),
      take,
      0,
    );
  };
  const oracle: SpanOracle = {
    alone: (q) => merged(q, Math.max(k, 2)),
    contextSearch: (q) => merged(q, 1),
    fitIn: (work, q, from, to) => {
      const id = `${work}:${from}:${to}:${keyId(q)}`;
      if (!(id in answers.fits)) {
        fits.set(id, { id, work, key: keyId(q), from, to });
        throw new Waiting();
      }
      return answers.fits[id];
    },
  };
  const placed = lines.map((l) => {
    const line = { key: witnessKey(l.text), before: l.before.map(witnessKey), after: l.after.map(witnessKey) };
    try {
      return placeLine(oracle, line, k, opts.minScore);
    } catch (err) {
      if (!(err instanceof Waiting)) throw err;
      // Ask for the neighbours' alone searches now too: the placement needs them next.
      for (const key of [...line.before, ...line.after]) if (!answers.searched[keyId(key)]) searches.add(keyId(key));
      return null;
    }
  });
  return { placed, requests: { searches: [...searches], fits: [...fits.values()] } };
}

/** One shard's answers to a round's requests: its verified candidates for every search, the fits into its works. */
export function answerRequests(shard: LoadedShard, requests: Requests, counts: Uint32Array, opts: WitnessSearchOptions): Answers {
  const { data, frame } = shard;
  const f: IndexFrame = { base: frame.base, workBase: frame.workBase, counts };
  const out = noAnswers();
  for (const id of requests.searches) out.searched[id] = candidateSpans(data, keyOf(id), { ...opts, minScore: 0 }, f);
  for (const r of requests.fits) {
    if (r.work < frame.workBase || r.work >= frame.workBase + frame.works) continue;
    const span = fitIn(data, r.work - frame.workBase, keyOf(r.key), r.from - frame.base, r.to - frame.base);
    out.fits[r.id] = span && { ...span, work: r.work, start: span.start + frame.base, end: span.end + frame.base };
  }
  return out;
}

/** The hits a shard makes for the placed spans in its works: by line index, rank − 1 → hit (whole-text numbers). */
export function shardHits(shard: LoadedShard, placed: readonly WitnessSpan[][]): Record<number, Record<number, WitnessHit>> {
  const { data, texts, frame } = shard;
  const out: Record<number, Record<number, WitnessHit>> = {};
  placed.forEach((spans, i) =>
    spans.forEach((x, r) => {
      if (x.work < frame.workBase || x.work >= frame.workBase + frame.works) return;
      const local = { ...x, work: x.work - frame.workBase, start: x.start - frame.base, end: x.end - frame.base };
      const h = spanToHit(data, texts, local, r + 1);
      (out[i] ??= {})[r] = { ...h, idx: h.idx + frame.lineBase, key_start: x.start, key_end: x.end };
    }),
  );
  return out;
}

/** The hits of every line (best first, at most k, score ≥ minScore), as one index's retrieveInContext gives them. */
export function shardedSearchInContext(
  shards: ShardSet,
  lines: readonly LineInContext[],
  k: number,
  opts: WitnessSearchOptions & { minScore: number },
): WitnessHit[][] {
  const answers = noAnswers();
  for (;;) {
    const { placed, requests } = evaluateLines(lines, k, opts, answers);
    if (requests.searches.length === 0 && requests.fits.length === 0) {
      const out: WitnessHit[][] = placed.map((spans) => new Array<WitnessHit>(spans!.length));
      for (let s = 0; s < shards.frames.length; s++)
        shards.withShard(s, (shard) => {
          for (const [i, byRank] of Object.entries(shardHits(shard, placed as WitnessSpan[][])))
            for (const [r, h] of Object.entries(byRank)) out[Number(i)][Number(r)] = h;
        });
      return out;
    }
    for (const id of requests.searches) answers.searched[id] = [];
    for (let s = 0; s < shards.frames.length; s++)
      shards.withShard(s, (shard) => absorb(answers, answerRequests(shard, requests, shards.counts, opts)));
    for (const r of requests.fits) if (!(r.id in answers.fits)) answers.fits[r.id] = null;
  }
}
