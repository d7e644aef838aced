/**
 * Export stage (CPU queue): for every OCR line of every dataset, retrieve the top-k corpus sentences and
 * write an inference_input.jsonl record (spec §7.4 + retrieval_sources + prompt_version).
 *
 * planExport splits each dataset into shards; exportShard (any number of workers, any machines) writes one
 * shard file, resuming inside it after a crash: the shard file is the durable cursor (whole lines, fsync'd
 * at checkpoints; a torn last line is cut on resume), so a killed worker leaves no gap and no duplicate.
 * mergeExport concatenates the shards in plan order into inference_input.jsonl (atomic rename).
 */
import { createReadStream, existsSync, mkdirSync, openSync, closeSync, writeSync, fsyncSync, renameSync, rmSync, readFileSync } from 'node:fs';
import readline from 'node:readline';
import path from 'node:path';
import { resolvePath, resultDirs } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { loadDataset, type DatasetSpec, type OcrSample } from '../src/datasets';
import { JsonlAppender, readJson, readJsonl, recoverJsonl, writeFileAtomic, writeJsonAtomic } from '../src/io/jsonl';
import { RAG_PROMPT_VERSION, ZERO_SHOT_PROMPT_VERSION } from '../src/prompts';
import { isArabicText } from '../src/text/arabic';
import { sha256Text } from '../src/util/hash';
import { childLogger } from '../src/util/log';
import type { StageInput } from '../workflows/types';
import { stagePaths } from './build';
import { openRetriever, type ExportRetriever } from './retriever';
import { indexFiles } from '../src/index/manifest';
import { IndexCorruptError, IndexMismatchError, IndexMissingError } from '../src/index/errors';
import { ModelDirError } from '../src/embed/model-dir';
import { asActivity, heartbeater, runExclusive, UserInputError } from './support';

const log = childLogger('export');

export interface ExportShard {
  dataset: string;
  index: number;
  /** Sample range [start, end) in the dataset's deterministic order. */
  start: number;
  end: number;
  /** Settings fingerprint: a finished shard is reused only when it matches. */
  fingerprint: string;
}

export interface ExportPlan {
  fingerprint: string;
  datasets: { dataset: string; samples: number; shards: ExportShard[] }[];
}

export interface InferenceInputRecord {
  sample_id: string;
  dataset: string;
  ocr_text: string;
  gt_text: string;
  prompt_type: 'rag' | 'zero_shot_fallback';
  prompt_version: string;
  retrieval_context: string;
  retrieved_k: number;
  retrieval_scores: number[];
  /** source_uri + corpus idx (+ source line when the corpus records it) per hit, for citations. */
  retrieval_sources: { source_uri: string; idx: number; date: number | null; line?: number | null }[];
}

function exportDir(config: Config): string {
  return path.join(resultDirs(config).phase5, 'export');
}
function shardFile(config: Config, shard: Pick<ExportShard, 'dataset' | 'index'>): string {
  return path.join(exportDir(config), shard.dataset, `shard-${String(shard.index).padStart(5, '0')}.jsonl`);
}
const doneFile = (f: string) => `${f}.done.json`;

export function datasetSpec(config: Config, key: string): DatasetSpec {
  const d = config.datasets[key];
  if (!d) throw new UserInputError(`unknown dataset "${key}" — the config declares: ${Object.keys(config.datasets).join(', ') || '(none)'}`);
  return d.type === 'paired_dir'
    ? { key, type: 'paired_dir', path: resolvePath(d.path), gtSuffix: d.gt_suffix, ocrSuffix: d.ocr_suffix }
    : { key, type: 'jsonl', path: resolvePath(d.path) };
}

export function selectedDatasets(config: Config, options: StageInput['options']): string[] {
  const keys = options.datasets?.length ? options.datasets : Object.keys(config.datasets);
  if (keys.length === 0) throw new UserInputError('no datasets: declare some under `datasets:` in the config');
  return keys;
}

async function loadSamples(config: Config, key: string, limit?: number): Promise<OcrSample[]> {
  const spec = datasetSpec(config, key);
  if (!existsSync(spec.path)) throw new UserInputError(`dataset ${key}: ${spec.path} not found`);
  return (await loadDataset(spec, { limit })).samples;
}

export async function planExport(input: StageInput): Promise<ExportPlan> {
  return asActivity(async () => {
    const { config, options } = input;
    const paths = stagePaths(config, options);
    const manifestPath = indexFiles(paths.index).manifest;
    if (!existsSync(paths.index) || !existsSync(manifestPath)) {
      throw new UserInputError(`no index at ${paths.index} — run \`phase5 build\` first`);
    }
    const r = config.phase5.retrieval;
    const fingerprint = sha256Text(
      JSON.stringify({
        manifest: readFileSync(manifestPath, 'utf8'),
        retrieval: r, // every retrieval option (top_k, min_score, format, pipeline options) changes the output
        limit: options.limit ?? null,
        datasets: selectedDatasets(config, options).map((k) => config.datasets[k]),
        shard_size: config.phase5.export.shard_size,
      }),
    ).slice(0, 16);
    const plan: ExportPlan = { fingerprint, datasets: [] };
    for (const key of selectedDatasets(config, options)) {
      const samples = await loadSamples(config, key, options.limit);
      if (input.force) rmSync(path.join(exportDir(config), key), { recursive: true, force: true });
      const size = config.phase5.export.shard_size;
      const shards: ExportShard[] = [];
      for (let start = 0, i = 0; start < samples.length; start += size, i++) {
        shards.push({ dataset: key, index: i, start, end: Math.min(samples.length, start + size), fingerprint });
      }
      plan.datasets.push({ dataset: key, samples: samples.length, shards });
    }
    mkdirSync(exportDir(config), { recursive: true });
    writeJsonAtomic(path.join(exportDir(config), 'plan.json'), plan);
    return plan;
  });
}

/** The record for one sample; lines with no Arabic (or empty) get the zero-shot fallback, no retrieval. */
export function fallbackRecord(s: OcrSample): InferenceInputRecord {
  return {
    sample_id: s.sample_id,
    dataset: s.dataset,
    ocr_text: s.ocr_text,
    gt_text: s.gt_text,
    prompt_type: 'zero_shot_fallback',
    prompt_version: ZERO_SHOT_PROMPT_VERSION,
    retrieval_context: '',
    retrieved_k: 0,
    retrieval_scores: [],
    retrieval_sources: [],
  };
}

/** Write the records of `samples[from..]` to `out`, retrieving in batches. Shared by the activity and benchmarks. */
export async function writeShardRecords(
  samples: OcrSample[],
  from: number,
  out: JsonlAppender,
  retriever: ExportRetriever,
  config: Config,
  onCheckpoint: (records: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const r = config.phase5.retrieval;
  const batch = config.phase5.export.query_batch_size;
  const every = config.phase5.export.checkpoint_every;
  let fallbacks = 0;
  let sinceCheckpoint = 0;
  for (let i = from; i < samples.length; i += batch) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const slice = samples.slice(i, i + batch);
    const queryable = slice.filter((s) => s.ocr_text.trim() !== '' && isArabicText(s.ocr_text));
    const hits = queryable.length ? await retriever.retrieveMany(queryable.map((s) => s.ocr_text), r.top_k, r.min_score) : [];
    const byId = new Map(queryable.map((s, j) => [s.sample_id, hits[j]]));
    for (const s of slice) {
      const chunks = byId.get(s.sample_id) ?? [];
      if (chunks.length === 0) {
        out.write(fallbackRecord(s));
        fallbacks++;
      } else {
        const rec: InferenceInputRecord = {
          sample_id: s.sample_id,
          dataset: s.dataset,
          ocr_text: s.ocr_text,
          gt_text: s.gt_text,
          prompt_type: 'rag',
          prompt_version: RAG_PROMPT_VERSION,
          retrieval_context: retriever.formatForPrompt(chunks, r.format_style),
          retrieved_k: chunks.length,
          retrieval_scores: chunks.map((c) => Number(c.score.toFixed(6))),
          retrieval_sources: chunks.map((c) => ({ source_uri: c.source_uri, idx: c.idx, date: c.date, ...(c.line != null ? { line: c.line } : {}) })),
        };
        out.write(rec);
      }
      sinceCheckpoint++;
      if (sinceCheckpoint >= every) {
        onCheckpoint(out.checkpoint());
        sinceCheckpoint = 0;
      }
    }
  }
  onCheckpoint(out.checkpoint());
  return fallbacks;
}

export async function exportShard(args: { input: StageInput; shard: ExportShard }) {
  return asActivity(async () => {
    const { input, shard } = args;
    const { config, options } = input;
    const file = shardFile(config, shard);
    const total = shard.end - shard.start;
    // One writer per shard file in this process: a newer attempt supersedes an older one still running here.
    return runExclusive(file, async (signal) => {
      if (existsSync(doneFile(file))) {
        const done = await readJson<{ fingerprint: string; records: number; fallbacks: number }>(doneFile(file));
        if (done.fingerprint === shard.fingerprint && done.records === total) return { records: total, fallbacks: done.fallbacks, reused: true };
        rmSync(doneFile(file));
        rmSync(file, { force: true }); // made with other settings: redo
      }
      mkdirSync(path.dirname(file), { recursive: true });
      const recovered = recoverJsonl(file);
      if (recovered.truncatedBytes > 0) log.warn({ file, truncatedBytes: recovered.truncatedBytes }, 'cut a torn last line left by a crash');
      // Resume by content, not by line count: whatever attempts wrote, each sample is done once it has a record.
      const present = await sampleIdsIn(file);
      if (present.size > 0) log.info({ shard: `${shard.dataset}#${shard.index}`, done: present.size, total }, 'resuming shard');
      const hb = heartbeater(`${shard.dataset}#${shard.index}`, total, present.size);
      let samples: OcrSample[];
      try {
        hb.beat(present.size, { records: present.size }, true);
        samples = (await loadSamples(config, shard.dataset, options.limit)).slice(shard.start, shard.end);
        if (samples.length !== total) throw new Error(`dataset ${shard.dataset} changed since the export was planned (${samples.length} vs ${total} samples in shard ${shard.index})`);
        const todo = samples.filter((s) => !present.has(s.sample_id));
        if (todo.length > 0) {
          const retriever = await openRetriever(config, stagePaths(config, options)).catch((err: unknown) => {
            // A stale, damaged or missing index (or model) does not get better by retrying; the message names the fix.
            if (err instanceof IndexMismatchError || err instanceof IndexCorruptError || err instanceof IndexMissingError || err instanceof ModelDirError) {
              throw new UserInputError(err.message);
            }
            throw err;
          });
          const out = new JsonlAppender(file, recovered.records);
          try {
            await writeShardRecords(todo, 0, out, retriever, config, () => hb.beat(present.size + (out.count - recovered.records), { records: present.size + (out.count - recovered.records) }), signal);
          } finally {
            out.close();
          }
        }
      } finally {
        hb.stop();
      }
      const { fallbacks, duplicates } = compactShard(file, samples);
      if (duplicates > 0) log.warn({ shard: `${shard.dataset}#${shard.index}`, duplicates }, 'dropped duplicate records left by an overlapping attempt');
      writeJsonAtomic(doneFile(file), { fingerprint: shard.fingerprint, records: total, fallbacks });
      log.info({ shard: `${shard.dataset}#${shard.index}`, records: total, fallbacks }, 'shard done');
      return { records: total, fallbacks, reused: false };
    });
  });
}

async function sampleIdsIn(file: string): Promise<Set<string>> {
  const ids = new Set<string>();
  if (!existsSync(file)) return ids;
  for await (const { value } of readJsonl<{ sample_id: string }>(file)) ids.add(value.sample_id);
  return ids;
}

/**
 * Make a finished shard canonical: one record per sample, in sample order (the first record of a sample wins;
 * records are deterministic, so duplicates are identical). Throws when a sample has no record.
 */
function compactShard(file: string, samples: OcrSample[]): { fallbacks: number; duplicates: number } {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
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
  return { fallbacks: ordered.filter((l) => l.includes('"prompt_type":"zero_shot_fallback"')).length, duplicates: lines.length - byId.size };
}

export async function mergeExport(args: { input: StageInput; plan: ExportPlan }) {
  return asActivity(async () => {
    const { config } = args.input;
    const target = path.join(resultDirs(config).phase5, 'inference_input.jsonl');
    const tmp = `${target}.tmp-${process.pid}`;
    mkdirSync(path.dirname(target), { recursive: true });
    const fd = openSync(tmp, 'w');
    const byDataset: Record<string, number> = {};
    let records = 0;
    try {
      for (const d of args.plan.datasets) {
        let n = 0;
        for (const shard of d.shards) {
          const file = shardFile(config, shard);
          if (!existsSync(doneFile(file))) throw new Error(`shard ${shard.dataset}#${shard.index} is not finished (${file})`);
          const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
          for await (const line of rl) {
            if (!line.trim()) continue;
            writeSync(fd, line + '\n');
            n++;
          }
        }
        if (n !== d.samples) throw new Error(`dataset ${d.dataset}: merged ${n} records, expected ${d.samples}`);
        byDataset[d.dataset] = n;
        records += n;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    log.info({ target, records, byDataset }, `inference_input.jsonl: ${records} records`);
    return { path: target, records, byDataset };
  });
}
