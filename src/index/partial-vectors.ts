/**
 * The sidecar `<vectors>.meta.json` of a partial vectors file: the model, corpus and row range its rows belong to,
 * so a partial file from another model, corpus or range is never resumed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readJson, writeJsonAtomic } from '../io/jsonl';
import { PartialVectorsError } from './errors';
import type { modelSection } from './manifest';

export interface PartialMeta {
  model: ReturnType<typeof modelSection>;
  corpus_sha256: string;
  /** The rows a shard's part file holds (absent: the whole corpus). */
  rows?: [number, number];
}

export function metaPath(vectorsPath: string): string {
  return `${vectorsPath}.meta.json`;
}

/** Record the meta of a new partial file; throw when an existing one is from another model, corpus or row range. */
export async function checkResumable(vectorsPath: string, meta: PartialMeta): Promise<void> {
  if (!existsSync(vectorsPath)) {
    writeJsonAtomic(metaPath(vectorsPath), meta);
    return;
  }
  const old = existsSync(metaPath(vectorsPath)) ? await readJson<PartialMeta>(metaPath(vectorsPath)) : null;
  const why = !old
    ? `it has no ${path.basename(metaPath(vectorsPath))}`
    : old.corpus_sha256 !== meta.corpus_sha256
      ? 'the corpus changed since'
      : JSON.stringify(old.model) !== JSON.stringify(meta.model)
        ? `it was embedded with another model or settings (${old.model.id} ${old.model.sha256.slice(0, 12)}…)`
        : JSON.stringify(old.rows) !== JSON.stringify(meta.rows)
          ? `it holds rows ${old.rows?.join('..') ?? 'of the whole corpus'}, not ${meta.rows?.join('..') ?? 'the whole corpus'}`
          : null;
  if (why)
    throw new PartialVectorsError(
      `partial vectors ${vectorsPath} cannot be resumed: ${why} — delete it or rebuild with \`phase5 build --force\``,
    );
}
