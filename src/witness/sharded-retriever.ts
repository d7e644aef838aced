/**
 * The retriever over a sharded witness index directory (src/witness/shards.ts): batches of OCR lines searched with
 * src/witness/sharded-search.ts. `resident: false` (the default) loads one shard at a time and lets it go, so
 * memory holds the largest shard, not the whole index; `resident: true` keeps every shard loaded (small indexes).
 */
import path from 'node:path';
import type { LineInContext } from './context-search';
import { loadWitnessDir } from './files';
import type { WitnessHit } from './hits';
import type { WitnessSearchOptions } from './search';
import { shardedSearchInContext, type LoadedShard, type ShardSet } from './sharded-search';
import { readCounts, readShardedManifest, type ShardedManifest } from './shards';

export class ShardedWitnessRetriever {
  private readonly resident = new Map<number, LoadedShard & { close(): void }>();
  private readonly set: ShardSet;

  private constructor(
    readonly dir: string,
    readonly manifest: ShardedManifest,
    private readonly options: WitnessSearchOptions & { resident?: boolean },
  ) {
    const load = (i: number) => {
      const frame = manifest.shards[i];
      const { data, texts } = loadWitnessDir(path.join(dir, frame.dir));
      return { data, texts, frame, close: () => texts.close() };
    };
    this.set = {
      frames: manifest.shards,
      counts: readCounts(dir),
      withShard: (i, fn) => {
        if (options.resident) {
          let s = this.resident.get(i);
          if (!s) this.resident.set(i, (s = load(i)));
          return fn(s);
        }
        const s = load(i);
        try {
          return fn(s);
        } finally {
          s.close();
        }
      },
    };
  }

  static open(dir: string, options: WitnessSearchOptions & { resident?: boolean } = {}): ShardedWitnessRetriever {
    const manifest = readShardedManifest(dir);
    if (!manifest) throw new Error(`witness index ${dir}: not a sharded index (no shards in witness.json) — run the build stage`);
    return new ShardedWitnessRetriever(dir, manifest, options);
  }

  /** Hits for each OCR line among its neighbours, as one index's retrieveInContext gives them. */
  retrieveInContext(lines: readonly LineInContext[], k = 3, minScore = this.options.minScore ?? 0): WitnessHit[][] {
    return shardedSearchInContext(this.set, lines, k, { ...this.options, minScore });
  }

  /** Hits for lines searched alone. */
  retrieveMany(queries: readonly string[], k = 3, minScore = this.options.minScore ?? 0): WitnessHit[][] {
    return this.retrieveInContext(
      queries.map((text) => ({ text, before: [], after: [] })),
      k,
      minScore,
    );
  }

  close(): void {
    for (const s of this.resident.values()) s.close();
    this.resident.clear();
  }
}
