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

/** A key as a map key (its UTF-16 units, base64). */
const keyId = (q: Uint16Array) => Buffer.from(q.buffer, q.byteOffset, q.byteLength).toString('base64');

/** The hits of every line (best first, at most k, score ≥ minScore), as one index's retrieveInContext gives them. */
export function shardedSearchInContext(
  shards: ShardSet,
  lines: readonly LineInContext[],
  k: number,
  opts: WitnessSearchOptions & { minScore: number },
): WitnessHit[][] {
  const candidates = opts.candidates ?? 16;
  const searched = new Map<string, Candidate[]>(); // key id → every shard's candidates, gathered
  const wantSearch = new Map<string, Uint16Array>();
  const fits = new Map<string, WitnessSpan | null>();
  const wantFit = new Map<string, { work: number; q: Uint16Array; from: number; to: number }>();
  const merged = (q: Uint16Array, take: number): WitnessSpan[] => {
    const id = keyId(q);
    const all = searched.get(id);
    if (!all) {
      wantSearch.set(id, q);
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
      if (!fits.has(id)) {
        wantFit.set(id, { work, q, from, to });
        throw new Waiting();
      }
      return fits.get(id)!;
    },
  };
  const keyed = lines.map((l) => ({ key: witnessKey(l.text), before: l.before.map(witnessKey), after: l.after.map(witnessKey) }));
  const placed: (WitnessSpan[] | null)[] = keyed.map(() => null);
  for (;;) {
    keyed.forEach((line, i) => {
      if (placed[i]) return;
      try {
        placed[i] = placeLine(oracle, line, k, opts.minScore);
      } catch (err) {
        if (!(err instanceof Waiting)) throw err;
        // Ask for the neighbours' alone searches now too: the placement needs them next.
        for (const key of [...line.before, ...line.after]) if (!searched.has(keyId(key))) wantSearch.set(keyId(key), key);
      }
    });
    if (wantSearch.size === 0 && wantFit.size === 0) break;
    answerRound(shards, wantSearch, searched, wantFit, fits, opts);
  }
  return hitsOf(shards, placed as WitnessSpan[][]);
}

const shardOfWork = (frames: readonly ShardFrame[], work: number) =>
  frames.findIndex((f) => work >= f.workBase && work < f.workBase + f.works);

/** One round: every shard loaded once, answering the searches (all shards) and the fits (the shard holding the work). */
function answerRound(
  shards: ShardSet,
  wantSearch: Map<string, Uint16Array>,
  searched: Map<string, Candidate[]>,
  wantFit: Map<string, { work: number; q: Uint16Array; from: number; to: number }>,
  fits: Map<string, WitnessSpan | null>,
  opts: WitnessSearchOptions,
): void {
  for (const id of wantSearch.keys()) searched.set(id, []);
  for (let s = 0; s < shards.frames.length; s++) {
    shards.withShard(s, ({ data, frame }) => {
      const f: IndexFrame = { base: frame.base, workBase: frame.workBase, counts: shards.counts };
      for (const [id, q] of wantSearch) searched.get(id)!.push(...candidateSpans(data, q, { ...opts, minScore: 0 }, f));
      for (const [id, r] of wantFit) {
        if (r.work < frame.workBase || r.work >= frame.workBase + frame.works) continue;
        const span = fitIn(data, r.work - frame.workBase, r.q, r.from - frame.base, r.to - frame.base);
        fits.set(id, span && { ...span, work: r.work, start: span.start + frame.base, end: span.end + frame.base });
      }
    });
  }
  for (const id of wantFit.keys()) if (!fits.has(id)) fits.set(id, null);
  wantSearch.clear();
  wantFit.clear();
}

/** Each line's hits, made by the shard holding each span (ranks in order), in whole-text numbers. */
function hitsOf(shards: ShardSet, placed: readonly WitnessSpan[][]): WitnessHit[][] {
  const out: WitnessHit[][] = placed.map((spans) => new Array<WitnessHit>(spans.length));
  const { frames } = shards;
  for (let s = 0; s < frames.length; s++) {
    if (!placed.some((spans) => spans.some((x) => shardOfWork(frames, x.work) === s))) continue;
    shards.withShard(s, ({ data, texts, frame }) => {
      placed.forEach((spans, i) =>
        spans.forEach((x, r) => {
          if (shardOfWork(frames, x.work) !== s) return;
          const local = { ...x, work: x.work - frame.workBase, start: x.start - frame.base, end: x.end - frame.base };
          const h = spanToHit(data, texts, local, r + 1);
          out[i][r] = { ...h, idx: h.idx + frame.lineBase, key_start: x.start, key_end: x.end };
        }),
      );
    });
  }
  return out;
}
