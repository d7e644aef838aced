/**
 * Export stage: for every OCR line of every dataset, retrieve the top-k corpus sentences and write an
 * inference_input.jsonl record (docs/outputs.md#inference_inputjsonl).
 *
 *   const options = optionsFrom(config, { limit: 20 });
 *   const merged = await run(options, {}, openExportRetriever);
 *
 * `planExport` splits each dataset into shards; `exportShard` (any number of workers, any machines) writes
 * one shard file, resuming inside it after a crash: the shard file is the durable cursor (whole lines,
 * fsync'd at checkpoints; a torn last line is cut on resume), so a killed worker leaves no gap and no
 * duplicate. `mergeExport` concatenates the shards in plan order into inference_input.jsonl (atomic rename).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { resolvePath, resultDirs } from '../config/load';
import type { Config } from '../config/schema';
import { loadDataset, type DatasetSpec, type LoadedDataset } from '../datasets';
import { clusterSpecOf, sampled, type SampleSpec } from '../datasets/sample';
import { JsonlAppender, readJson, recoverJsonl, writeJsonAtomic } from '../io/jsonl';
import { indexFiles } from '../index/manifest';
import { sha256File, sha256Text } from '../util/hash';
import { pointAt, writeExportRecord } from './export-record';
import { acquireFileLock, type WriterLock } from '../index/writer-lock';
import { childLogger } from '../util/log';
import { compactShard, concatShards, sampleIdsIn } from './export-files';
import type { ArmRun, ExportGroup } from './arms';
import { writeArmDirs, writeSharedExportStats, type SharedExport } from './study-files';
import type { ExportRetriever, StagePaths } from './retriever';
import { studyLayout } from './study-layout';
import { studyPlan, type StudyPlan } from './study-plan';
import { skipsFromProblems, totalSkips, type Skips } from './skips';
import { witnessIndexFingerprint, witnessSettings } from './witness-index';
import { scatteredHits, type WitnessScatter } from './witness-scattered';
import { WITNESS_CONTEXT_LINES, WITNESS_CONTEXT_RULE } from '../witness';
import { contextSource, writeShardRecords, type ContextSource } from './export-records';
export { fallbackRecord, writeShardRecords, type ContextSource } from './export-records';
import { UserInputError, type RunOptions, type StageHooks } from './types';
import { describeOtherIndexes } from './other-indexes';

const log = childLogger('export');

/** Opens the retriever of one export: its (study arm's) config, over the corpus and index at `paths`. */
export type OpenRetriever = (config: Config, paths: StagePaths) => Promise<ExportRetriever>;

export interface ExportShard {
  dataset: string;
  index: number;
  /** Sample range [start, end) in the dataset's deterministic order. */
  start: number;
  end: number;
  /** Settings fingerprint: a finished shard is reused only when it matches. */
  fingerprint: string;
  /** Study arms: the retrieval fingerprint of the export this shard belongs to (`<results>/exports/<group>/`). */
  group?: string;
}

export interface ExportPlan {
  fingerprint: string;
  /** Study arms whose witness index is cut into shards: searched in rounds before the export shards (./witness-scatter.ts). */
  witness?: WitnessScatter[];
  /** `skipped`: the loader's problems (input lines or files left out), by kind with a few examples. */
  datasets: { dataset: string; samples: number; shards: ExportShard[]; skipped?: Skips; group?: string }[];
}

export interface ExportShardResult {
  records: number;
  fallbacks: number;
  reused: boolean;
}

export interface ExportMergeResult {
  path: string;
  records: number;
  /** sha256 of the file at `path` as this run wrote it. */
  sha256: string;
  /** The default export: each default arm's inference_input.jsonl (`<results>/arms/<arm>/`), a link to the latest finished export. */
  links?: string[];
  byDataset: Record<string, number>;
  /** Per dataset with anything skipped: the input lines/files left out, by kind (also in skipped.json beside the export). */
  skipped: Record<string, Skips>;
  /** Study arms: one export per distinct retrieval (`path` is the first one's). */
  exports?: SharedExport[];
}

export interface ExportOptions {
  /** The retrieval, dataset and export settings all shape the records, so the stage reads the config. */
  config: Config;
  paths: StagePaths;
  datasets: string[];
  limit?: number;
  /** `--sample N --seed S`: a random pilot of whole clusters per dataset. */
  sample?: SampleSpec;
  force: boolean;
  /** Study arms: one export per distinct retrieval fingerprint (null without `study:`: the single default export). */
  groups?: ExportGroup[] | null;
  /** Study arms: every arm, whose folder the merge writes (arm.json and a link to its export). */
  arms?: ArmRun[];
}

export function optionsFrom(config: Config, cli: RunOptions, force = false, plan: StudyPlan = studyPlan(config, cli)): ExportOptions {
  return {
    config,
    paths: plan.paths,
    datasets: selectedDatasets(config, cli),
    limit: cli.limit,
    ...(cli.sample ? { sample: cli.sample } : {}),
    force,
    groups: plan.exports,
    arms: plan.declared,
  };
}

/** The options that make one shared export: the group's effective config (its retrieval overrides) and corpus. */
export function groupOptions(options: ExportOptions, group: string | undefined): ExportOptions & { mode: ExportGroup['mode'] } {
  if (group === undefined) return { ...options, mode: 'dense' };
  const g = options.groups?.find((x) => x.fingerprint === group);
  if (!g)
    throw new UserInputError(
      `export ${group}: no study arm has this retrieval any more — the config changed since the plan; rerun \`phase5 export\``,
    );
  return { ...options, config: g.config, paths: g.paths, mode: g.mode };
}

/** The whole stage in one process: plan, every shard in order, merge. */
export async function run(options: ExportOptions, hooks: StageHooks, openRetriever: OpenRetriever): Promise<ExportMergeResult> {
  // every shared export of a study too
  const plan = await planExport(options);
  const shards = plan.datasets.flatMap((d) => d.shards);
  for (const [i, shard] of shards.entries()) {
    await exportShard(options, shard, openRetriever, { signal: hooks.signal });
    hooks.onProgress?.(i + 1, shards.length, 'shards');
  }
  return mergeExport(options, plan);
}

export function datasetSpec(config: Config, key: string): DatasetSpec {
  const d = config.datasets[key];
  if (!d)
    throw new UserInputError(`unknown dataset "${key}" — the config declares: ${Object.keys(config.datasets).join(', ') || '(none)'}`);
  return d.type === 'paired_dir'
    ? { key, type: 'paired_dir', path: resolvePath(d.path), gtSuffix: d.gt_suffix, ocrSuffix: d.ocr_suffix }
    : { key, type: 'jsonl', path: resolvePath(d.path) };
}

export function selectedDatasets(config: Config, options: Pick<RunOptions, 'datasets'>): string[] {
  const keys = options.datasets?.length ? options.datasets : Object.keys(config.datasets);
  if (keys.length === 0) throw new UserInputError('no datasets: declare some under `datasets:` in the config');
  return keys;
}

/** The dataset; its problems are logged by the plan only (every shard reloads the same files). */
export async function loadSamples(
  config: Config,
  key: string,
  pick: Pick<ExportOptions, 'limit' | 'sample'>,
  logProblems: boolean,
): Promise<LoadedDataset> {
  const spec = datasetSpec(config, key);
  if (!existsSync(spec.path)) throw new UserInputError(`dataset ${key}: ${spec.path} not found`);
  const loaded = await loadDataset(spec, { limit: pick.limit, maxLineChars: config.export.max_line_chars, logProblems });
  return pick.sample ? { ...loaded, samples: sampled(loaded.samples, pick.sample, clusterSpecOf(config), key) } : loaded;
}

/** `skipped.json` beside an export's inference_input.jsonl: what it left out, per dataset (read by the report). */
export function skippedFile(exportFile: string): string {
  return path.join(path.dirname(exportFile), 'skipped.json');
}

/** The plan's skips per dataset (datasets without any left out); plans from older code carry none. */
export function planSkips(plan: ExportPlan): Record<string, Skips> {
  const out: Record<string, Skips> = {};
  for (const d of plan.datasets) if (totalSkips(d.skipped) > 0) out[d.dataset] = d.skipped as Skips;
  return out;
}

/** `<results>/exports/<fingerprint>/`: the folder of the default export made under these settings (shards, inference_input.jsonl, export.json). */
export function settingsExportDir(config: Config, fingerprint: string): string {
  return path.join(resultDirs(config).exports, fingerprint);
}

/** `<results>/exports/<group>/witness-rounds/<fingerprint>/`: the rounds of a sharded witness export. */
export function scatterDir(config: Config, group: string, fingerprint: string): string {
  return path.join(studyLayout(config, {}).dirs.exports, group, 'witness-rounds', fingerprint);
}

export function shardFile(config: Config, shard: Pick<ExportShard, 'dataset' | 'index' | 'group' | 'fingerprint'>): string {
  const dir = shard.group
    ? path.join(studyLayout(config, {}).dirs.exports, shard.group, 'shards')
    : settingsExportDir(config, shard.fingerprint);
  return path.join(dir, shard.dataset, `shard-${String(shard.index).padStart(5, '0')}.jsonl`);
}

const doneFile = (f: string) => `${f}.done.json`;

/** Everything that changes the records: a finished shard is reused only under the same fingerprint. */
function exportFingerprint(options: ExportOptions & { mode?: ContextSource['mode'] }, manifestPath: string): string {
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

function planShards(dataset: string, samples: number, size: number, fingerprint: string, group: string | undefined): ExportShard[] {
  const shards: ExportShard[] = [];
  for (let start = 0, i = 0; start < samples; start += size, i++) {
    shards.push({ dataset, index: i, start, end: Math.min(samples, start + size), fingerprint, ...(group ? { group } : {}) });
  }
  return shards;
}

/** A shard finished under the same fingerprint is reused; one made with other settings is removed. */
async function finishedShard(file: string, shard: ExportShard, total: number): Promise<ExportShardResult | null> {
  if (!existsSync(doneFile(file))) return null;
  const done = await readJson<{ fingerprint: string; records: number; fallbacks: number }>(doneFile(file));
  if (done.fingerprint === shard.fingerprint && done.records === total) return { records: total, fallbacks: done.fallbacks, reused: true };
  rmSync(doneFile(file));
  rmSync(file, { force: true }); // made with other settings: redo
  return null;
}

/**
 * Write one shard file, resuming by content after a crash: whatever earlier attempts wrote, each sample is
 * done once it has a record. `onProgress` counts records in the shard.
 */
export async function exportShard(
  base: ExportOptions,
  shard: ExportShard,
  openRetriever: OpenRetriever,
  hooks: StageHooks = {},
): Promise<ExportShardResult> {
  const options = groupOptions(base, shard.group);
  const { config } = options;
  const file = shardFile(config, shard);
  const total = shard.end - shard.start;
  const reused = await finishedShard(file, shard, total);
  if (reused) return reused;
  mkdirSync(path.dirname(file), { recursive: true });
  // One writer per shard file, across workers: an attempt still running elsewhere makes this one retry later.
  const lock = acquireFileLock(file, 'export shard');
  try {
    return await writeShard(options, shard, file, openRetriever, hooks, lock);
  } finally {
    lock.release();
  }
}

async function writeShard(
  options: ExportOptions & { mode: ExportGroup['mode'] },
  shard: ExportShard,
  file: string,
  openRetriever: OpenRetriever,
  hooks: StageHooks,
  lock: WriterLock,
): Promise<ExportShardResult> {
  const { config } = options;
  const total = shard.end - shard.start;
  const recovered = recoverJsonl(file);
  if (recovered.truncatedBytes > 0) log.warn({ file, truncatedBytes: recovered.truncatedBytes }, 'cut a torn last line left by a crash');
  const present = await sampleIdsIn(file);
  const name = `${shard.dataset}#${shard.index}`;
  if (present.size > 0) log.info({ shard: name, done: present.size, total }, 'resuming shard');
  hooks.onProgress?.(present.size, total);
  const dataset = (await loadSamples(config, shard.dataset, options, false)).samples;
  const samples = dataset.slice(shard.start, shard.end);
  if (samples.length !== total)
    throw new Error(
      `dataset ${shard.dataset} changed since the export was planned (${samples.length} vs ${total} samples in shard ${shard.index})`,
    );
  const todo = samples.filter((s) => !present.has(s.sample_id));
  if (todo.length > 0) {
    const scattered =
      options.mode === 'witness' && shard.group
        ? scatteredHits(scatterDir(config, shard.group, shard.fingerprint), witnessSettings(config).shards)
        : null;
    const { retriever, source } = await contextSource({ ...options, samples: dataset, scattered }, (config) =>
      openRetriever(config, options.paths),
    );
    const out = new JsonlAppender(file, recovered.records);
    try {
      const onCheckpoint = () => {
        const records = present.size + (out.count - recovered.records);
        hooks.onProgress?.(records, total);
        hooks.checkpoint?.({ records }); // the shard file is durable up to here
        lock.refresh();
      };
      const onBatch = () => hooks.onProgress?.(present.size + (out.count - recovered.records), total);
      await writeShardRecords(todo, 0, out, retriever, config, onCheckpoint, hooks.signal, onBatch, source);
    } finally {
      out.close();
    }
  }
  const { fallbacks, duplicates } = compactShard(file, samples);
  if (duplicates > 0) log.warn({ shard: name, duplicates }, 'dropped duplicate records left by an overlapping attempt');
  writeJsonAtomic(doneFile(file), { fingerprint: shard.fingerprint, records: total, fallbacks });
  log.info({ shard: name, records: total, fallbacks }, 'shard done');
  return { records: total, fallbacks, reused: false };
}

/**
 * Concatenate the finished shards in plan order into inference_input.jsonl (atomic rename) — for a study, each
 * shared export into `<results>/exports/<fingerprint>/`, with its retrieval_stats.json, and every arm's dir.
 */
export async function mergeExport(options: ExportOptions, plan: ExportPlan): Promise<ExportMergeResult> {
  if (options.groups) return mergeStudyExports(options, plan, options.groups);
  // Under the settings' fingerprint, so an export with other settings never writes this file; each default
  // arm's inference_input.jsonl is a link to the latest finished export (./export-record.ts).
  const dir = settingsExportDir(options.config, plan.fingerprint);
  const merged = await mergeInto(options, plan, path.join(dir, 'inference_input.jsonl'));
  writeExportRecord(dir, {
    fingerprint: plan.fingerprint,
    retrieval: options.config.retrieval,
    records: merged.records,
    sha256: merged.sha256,
  });
  const links = [...new Set((options.arms ?? []).map((arm) => arm.input))];
  for (const link of links) {
    mkdirSync(path.dirname(link), { recursive: true });
    pointAt(link, merged.path);
  }
  return { ...merged, links };
}

async function mergeInto(options: ExportOptions, plan: ExportPlan, target: string): Promise<ExportMergeResult> {
  const { config } = options;
  const files = plan.datasets.map((d) => ({
    dataset: d.dataset,
    samples: d.samples,
    files: d.shards.map((shard) => {
      const file = shardFile(config, shard);
      if (!existsSync(doneFile(file))) throw new Error(`shard ${shard.dataset}#${shard.index} is not finished (${file})`);
      return file;
    }),
  }));
  const byDataset = await concatShards(target, files);
  const sha256 = await sha256File(target); // what an attach to this run checks (bin/cli/finished-files.ts)
  const records = Object.values(byDataset).reduce((a, b) => a + b, 0);
  log.info({ target, records, byDataset }, `inference_input.jsonl: ${records} records`);
  const skipped = planSkips(plan);
  // Written only when something was left out, so a clean study's files stay as they were.
  if (Object.keys(skipped).length > 0) writeJsonAtomic(skippedFile(target), skipped);
  else rmSync(skippedFile(target), { force: true });
  return { path: target, records, byDataset, skipped, sha256 };
}

/** Each shared export of a study, then the arm dirs that point at them. */
async function mergeStudyExports(options: ExportOptions, plan: ExportPlan, groups: ExportGroup[]): Promise<ExportMergeResult> {
  const exports: SharedExport[] = [];
  let first: ExportMergeResult | null = null;
  for (const group of groups) {
    const part: ExportPlan = { ...plan, datasets: plan.datasets.filter((d) => d.group === group.fingerprint) };
    const merged = await mergeInto(options, part, path.join(group.dir, 'inference_input.jsonl'));
    first ??= merged;
    exports.push(await writeSharedExportStats(group, merged));
  }
  await writeArmDirs(options.arms ?? [], exports);
  return { ...(first as ExportMergeResult), exports };
}
