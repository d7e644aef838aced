/** Shard-file mechanics of the export stage: resume by content, canonical compaction, ordered merge. */
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync } from 'node:fs';
import readline from 'node:readline';
import type { OcrSample } from '../../datasets/index';
import { readJsonl, writeFileAtomic } from '../../io/jsonl';
import { LineWriter } from '../../io/line-writer';

/** sample_ids that already have a record in `file` (empty when it does not exist). */
export async function sampleIdsIn(file: string): Promise<Set<string>> {
  const ids = new Set<string>();
  if (!existsSync(file)) return ids;
  for await (const { value } of readJsonl<{ sample_id: string }>(file)) ids.add(value.sample_id);
  return ids;
}

/**
 * Make a finished shard canonical: one record per sample, in sample order (the first record of a sample wins;
 * records are deterministic, so duplicates are identical). Throws when a sample has no record.
 */
export function compactShard(file: string, samples: OcrSample[]): { fallbacks: number; duplicates: number } {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const byId = new Map<string, string>();
  for (const line of lines) {
    const id = (JSON.parse(line) as { sample_id: string }).sample_id;
    if (!byId.has(id)) byId.set(id, line);
  }
  const missing = samples.filter((s) => !byId.has(s.sample_id));
  if (missing.length) throw new Error(`${file}: ${missing.length} sample(s) have no record (first: ${missing[0].sample_id})`);
  const ordered = samples.map((s) => byId.get(s.sample_id)!);
  const text = ordered.join('\n') + '\n';
  if (text !== lines.join('\n') + '\n') writeFileAtomic(file, text);
  return {
    fallbacks: ordered.filter((l) => l.includes('"prompt_type":"zero_shot_fallback"')).length,
    duplicates: lines.length - byId.size,
  };
}

/**
 * Concatenate each dataset's shard files, in the order given, into `target` (fsync, then atomic rename).
 * Checks every dataset's record count; returns the counts by dataset.
 */
export async function concatShards(
  target: string,
  datasets: { dataset: string; samples: number; files: string[] }[],
): Promise<Record<string, number>> {
  // Unique per call: two merges of one export in one worker (two runs of the same settings) must not share it.
  const tmp = `${target}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  const out = await LineWriter.open(tmp);
  const byDataset: Record<string, number> = {};
  let completed = false;
  try {
    for (const d of datasets) {
      let n = 0;
      for (const file of d.files) n += await appendLines(out, file);
      if (n !== d.samples) throw new Error(`dataset ${d.dataset}: merged ${n} records, expected ${d.samples}`);
      byDataset[d.dataset] = n;
    }
    completed = true;
  } finally {
    await out.close({ sync: completed });
  }
  renameSync(tmp, target);
  return byDataset;
}

async function appendLines(out: LineWriter, file: string): Promise<number> {
  let n = 0;
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    await out.write(line + '\n');
    n++;
  }
  return n;
}
