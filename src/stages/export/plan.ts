/** The export plan: each dataset cut into shards under one fingerprint of everything that changes the records. */
import { groupOptions } from './options';
import { describeOtherIndexes } from './other-indexes';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { clusterSpecOf } from '../../datasets/sample';
import { writeJsonAtomic } from '../../io/jsonl';
import { indexFiles } from '../../index/manifest';
import { sha256Text } from '../../util/hash';
import { skipsFromProblems, totalSkips, type Skips } from '../shared/skips';
import { witnessIndexFingerprint, witnessSettings } from '../witness/witness-index';
import { WITNESS_CONTEXT_LINES, WITNESS_CONTEXT_RULE } from '../../witness/index';
import { type ContextSource } from './shard-records';
import { UserInputError } from '../shared/types';
import { type ExportShard, type ExportPlan, type ExportOptions } from './types';
import { settingsExportDir, scatterDir, shardFile } from './paths';
import { loadSamples } from './datasets';
/** The plan's skips per dataset (datasets without any left out); plans from older code carry none. */
export function planSkips(plan: ExportPlan): Record<string, Skips> {
  const out: Record<string, Skips> = {};
  for (const d of plan.datasets) if (totalSkips(d.skipped) > 0) out[d.dataset] = d.skipped as Skips;
  return out;
}

/** Everything that changes the records: a finished shard is reused only under the same fingerprint. */
export function exportFingerprint(options: ExportOptions & { mode?: ContextSource['mode'] }, manifestPath: string): string {
  const { config } = options;
  return sha256Text(
    JSON.stringify({
      manifest: readFileSync(manifestPath, 'utf8'),
      retrieval: config.retrieval, // every retrieval option (top_k, min_score, format, pipeline options) changes the output
      limit: options.limit ?? null,
      ...(options.sample ? { sample: options.sample, clusters: clusterSpecOf(config) } : {}),
      datasets: options.datasets.map((k) => config.datasets[k]),
      shard_size: config.export.shard_size,
      max_line_chars: config.export.max_line_chars, // decides which lines are skipped
      // the record's fields: hit provenance in every rag record (docs/outputs.md#inference_inputjsonl), so a shard
      // written without it is redone rather than reused
      records: 'hit-provenance',
      // witness records also depend on the neighbour placement rule (docs/witness-context.md)
      ...(options.mode === 'witness'
        ? { witness_index: witnessIndexFingerprint(config), witness_context: `${WITNESS_CONTEXT_LINES}:${WITNESS_CONTEXT_RULE}` }
        : {}),
    }),
  ).slice(0, 16);
}

/**
 * Split every selected dataset into shards of `export.shard_size` samples — for a study, once per shared
 * export (distinct retrieval fingerprint), each with its own settings fingerprint; writes export/plan.json.
 */
export async function planExport(options: ExportOptions): Promise<ExportPlan> {
  const { config, paths } = options;
  const manifestPath = indexFiles(paths.index).manifest;
  if (!existsSync(paths.index) || !existsSync(manifestPath))
    throw new UserInputError(`no index at ${paths.index} — run \`phase5 build\` first${describeOtherIndexes(paths.index, config)}`);
  const groups: (string | undefined)[] = options.groups ? options.groups.map((g) => g.fingerprint) : [undefined];
  const fingerprints = groups.map((g) => {
    const go = groupOptions(options, g);
    const manifest = indexFiles(go.paths.index).manifest;
    if (!existsSync(manifest))
      throw new UserInputError(
        `no index at ${go.paths.index} (the corpus of a study arm) — run \`phase5 build\` first${describeOtherIndexes(go.paths.index, go.config)}`,
      );
    return exportFingerprint(go, manifest);
  });
  const plan: ExportPlan = {
    fingerprint: fingerprints.length === 1 ? fingerprints[0] : sha256Text(fingerprints.join(',')).slice(0, 16),
    datasets: [],
  };
  for (const key of options.datasets) {
    const { samples, problems } = await loadSamples(config, key, options, true);
    const skipped = skipsFromProblems(problems);
    groups.forEach((group, gi) => {
      const first = { dataset: key, index: 0, group, fingerprint: fingerprints[gi] };
      if (options.force) rmSync(path.dirname(shardFile(config, first)), { recursive: true, force: true });
      const shards = planShards(key, samples.length, config.export.shard_size, fingerprints[gi], group);
      // Only when something was left out: a clean study's plan.json stays as it was.
      plan.datasets.push({
        dataset: key,
        samples: samples.length,
        shards,
        ...(totalSkips(skipped) > 0 ? { skipped } : {}),
        ...(group ? { group } : {}),
      });
    });
  }
  const witness = groups.flatMap((group, gi) => {
    const go = groupOptions(options, group);
    const shards = go.mode === 'witness' ? witnessSettings(go.config).shards : 1;
    return group && shards > 1 ? [{ group, shards, dir: scatterDir(config, group, fingerprints[gi]) }] : [];
  });
  if (witness.length) plan.witness = witness;
  // Beside the shards of these settings (a study: each export's part in its folder), so a concurrent export
  // with other settings writes its own plan.
  if (!options.groups) writeJsonAtomic(path.join(settingsExportDir(config, plan.fingerprint), 'plan.json'), plan);
  for (const g of options.groups ?? [])
    writeJsonAtomic(path.join(g.dir, 'plan.json'), { ...plan, datasets: plan.datasets.filter((d) => d.group === g.fingerprint) });
  return plan;
}

export function planShards(dataset: string, samples: number, size: number, fingerprint: string, group: string | undefined): ExportShard[] {
  const shards: ExportShard[] = [];
  for (let start = 0, i = 0; start < samples; start += size, i++) {
    shards.push({ dataset, index: i, start, end: Math.min(samples, start + size), fingerprint, ...(group ? { group } : {}) });
  }
  return shards;
}
