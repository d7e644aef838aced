/** What the corpus build held out of its source, read as the build reads it (for the leakage rules of analysis/inputs/leakage.ts). */
import { existsSync } from 'node:fs';
import type { Config } from '../../src/config/schema';
import { readJson } from '../../src/io/jsonl';
import { readMetadata } from '../../src/openiti/metadata';
import type { SourceWorkExclusion } from '../../src/openiti/source-works';
import { resolveSourceExclusions, stagePaths, type CorpusRecord, type OpenitiCorpusSettings } from '../../src/stages/build/build';
import type { RunOptions } from '../../src/stages/shared/types';
import type { ExclusionRule } from '../inputs/leakage';

/** The metadata's versions, for the build's exclusion rule; null when the file cannot be read. */
export async function metadataVersions(settings: OpenitiCorpusSettings): Promise<ExclusionRule['rows']> {
  if (!existsSync(settings.metadataPath)) return null;
  return (await readMetadata(settings.metadataPath).catch(() => null))?.rows ?? null;
}

/** What exclusion by work held out: the build record's list, else resolved from the metadata as the build does. */
export async function heldByWork(
  config: Config,
  cli: RunOptions,
  settings: OpenitiCorpusSettings,
): Promise<SourceWorkExclusion[] | 'unknown'> {
  const record = `${stagePaths(config, cli).corpus}.build.json`;
  if (existsSync(record)) {
    const rec = await readJson<CorpusRecord>(record);
    if (rec.excludedSources) return rec.excludedSources;
  }
  return (await resolveSourceExclusions(settings).catch(() => null)) ?? 'unknown';
}
