/**
 * What a sharded witness export's rounds leave for its export shards (./scatter.ts): the group they belong
 * to, and each line's hits once every index shard has made its part.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { WitnessHit, WitnessSpan } from '../../witness/index';

/** A sharded witness group of an export plan: its group fingerprint, shard count and rounds dir. */
export interface WitnessScatter {
  group: string;
  shards: number;
  dir: string;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** The hits the rounds made, by line (null when the rounds did not finish: the export then searches itself). */
export function scatteredHits(dir: string, shards: number): Map<string, WitnessHit[]> | null {
  const files = Array.from({ length: shards }, (_, s) => path.join(dir, `hits-${s}.json`));
  if (!existsSync(path.join(dir, 'placed.json')) || !files.every((f) => existsSync(f))) return null;
  const { lines, placed } = readJson<{ lines: string[]; placed: WitnessSpan[][] }>(path.join(dir, 'placed.json'));
  const hits = placed.map((spans) => new Array<WitnessHit>(spans.length));
  for (const f of files)
    for (const [i, byRank] of Object.entries(readJson<Record<string, Record<string, WitnessHit>>>(f)))
      for (const [r, h] of Object.entries(byRank)) hits[Number(i)][Number(r)] = h;
  return new Map(lines.map((l, i) => [l, hits[i]]));
}
