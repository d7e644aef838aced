/**
 * Sharded infer: every arm × dataset is split into shards of `infer.shard_size` lines, each corrected by its own
 * activity on the GPU queue, so every GPU worker takes work. Three steps, each a plain function the activities
 * wrap:
 *
 *   const arms = await planInfer(options);                       // plan files + each arm's parts dir
 *   await runShard(options, arms[0], { dataset, index: 0 }, hooks, openBackend);   // any order, any worker
 *   await mergeArm(options, arms[0]);                      // corrections.jsonl in input order, then the checks
 *
 * A shard writes `<output>.parts/<dataset>-<n>.jsonl` through the corrections runner, checkpointing every line:
 * the part file is the cursor, so an attempt after a crash repeats only the lines that were in flight. The merge
 * walks the plan's input order and takes each line from its part, so the merged file is the one a single runner
 * writes (with a deterministic backend, byte for byte). Records of the output outside this selection (other
 * datasets, lines past `--limit`) stay in front of the merged ones.
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { LineWriter } from '../../io/line-writer';
import { readJsonl, recoverJsonl, writeJsonAtomic, writeJsonlAtomic } from '../../io/jsonl';
import { writeArmRequest } from '../study/arm-files';
import { writeStudyManifest } from '../study/manifest';
import type { PromptKind } from '../../llm/index';
import { findArm } from '../study/arms';
import { childLogger } from '../../util/log';
import { armServers, greedyReplicatesWarning, withArmServer } from './arm-server';
import type { CorrectorKind } from './corrector-arm';
import { readOrder, readPlannedIds, readPlannedRows, safeName, writePlan, type InferPlanFiles } from './plan';
import {
  correctLines,
  planSelection,
  RESULT_KEYS,
  runTags,
  type ArmCounts,
  type InferCheckpoint,
  type RunTags,
  type InferOptions,
  type OpenBackend,
} from './infer';
import { assertFailedShareOf, countFailedRecords } from './failures';
import { recordPlanLock } from '../../plan/plan-lock';
import { loadOver, type LlmLoad } from './llm-load';
import { skipsFromCounts, type Skips } from '../shared/skips';
import { claimReplicateOutput, replicateKey, replicateRun, replicateRuns } from '../study/replicates';
import { checkExportSettings } from '../export/finished-export';
import { UserInputError, type StageHooks } from '../shared/types';
import { writtenFile, type WrittenFile } from '../shared/written-file';

const log = childLogger('infer');

/** One arm's share of the plan (small: crosses Temporal); `arm` is the arm's name, `prompt` its kind of prompt. */
export interface ArmPlan extends RunTags {
  /** The arm's name. */
  arm: string;
  prompt: PromptKind;
  output: string;
  plan: InferPlanFiles;
  shardSize: number;
  lines: number;
  shards: number;
  /** A non-LLM corrector (docs/correctors.md): its shards run on the CPU queue (./correct-shard.ts); absent for an LLM arm. */
  corrector?: CorrectorKind;
}

export interface ShardRef {
  dataset: string;
  index: number;
}

/** `load`: the LLM endpoint's load over the shard (the HTTP backend only). */
export type InferShardResult = ArmCounts & { shard: string; lines: number; load?: LlmLoad };

export interface ArmMergeResult {
  output: string;
  /** The corrections file and the sha256 of what this merge wrote (an attach checks it; ../shared/written-file.ts). */
  outputFile: WrittenFile;
  records: number;
  failed: number;
  skipped: Skips;
}

export function partsDir(output: string): string {
  return `${output}.parts`;
}

export function partFile(output: string, dataset: string, index: number): string {
  return path.join(partsDir(output), `${safeName(dataset)}-${String(index).padStart(5, '0')}.jsonl`);
}

export function shardLabel(arm: ArmPlan, shard: ShardRef): string {
  return `${replicateKey(arm.arm, arm.replicate)}:${shard.dataset}#${shard.index}`;
}

/** Write the plan (once per input selection) and make every arm's parts dir ready for its shards. */
export async function planInfer(options: InferOptions): Promise<ArmPlan[]> {
  const plans = new Map<string, InferPlanFiles>();
  const shardSize = options.shardSize ?? 256;
  const arms: ArmPlan[] = [];
  const servers = await armServers(options.arms);
  if (options.config) await writeStudyManifest(options.config, servers);
  for (const a of options.arms) {
    if (!existsSync(a.input)) throw new UserInputError(`no ${a.input} — run \`phase5 export\` first`);
    await writeArmRequest(a, servers[a.name] ?? null);
    const greedy = greedyReplicatesWarning(a);
    if (greedy) log.warn(greedy);
    // The default arms read the link to the latest export: it must be the export of their own settings.
    if (!a.dir) checkExportSettings(a.input, a.config);
    const plan = plans.get(a.input) ?? (await writePlan(a.input, planSelection(options)));
    plans.set(a.input, plan);
    const shards = plan.datasets.reduce((n, d) => n + Math.ceil(d.lines / shardSize), 0);
    for (const run of replicateRuns(a)) {
      const arm: ArmPlan = {
        arm: a.name,
        prompt: a.prompt,
        output: run.output,
        plan,
        shardSize,
        lines: plan.lines,
        shards,
        ...runTags(run),
      };
      if (a.corrector) arm.corrector = a.corrector.kind;
      claimReplicateOutput(run, options.force);
      recordPlanLock(a.config, run.output); // the frozen plan this arm's corrections are made under (docs/plan.md#frozen-plan)
      await prepareParts(options, arm);
      arms.push(arm);
    }
  }
  return arms;
}

/**
 * The parts dir holds this shard size's parts (`layout.json`). `--force` starts over; a new dir (first sharded
 * run, or another shard size) is seeded from the arm's existing output, so finished lines are not redone.
 */
async function prepareParts(options: InferOptions, arm: ArmPlan): Promise<void> {
  const dir = partsDir(arm.output);
  const layout = path.join(dir, 'layout.json');
  if (options.force) {
    if (existsSync(arm.output)) writeJsonlAtomic(arm.output, []);
  } else if (existsSync(layout) && (JSON.parse(readFileSync(layout, 'utf8')) as { shard_size: number }).shard_size === arm.shardSize) {
    return;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (!options.force) await seedParts(arm);
  writeJsonAtomic(layout, { shard_size: arm.shardSize });
}

/** Which part each planned sample_id belongs to (the event loop runs between shards). */
async function partsOfIds(arm: ArmPlan): Promise<Map<string, string>> {
  const where = new Map<string, string>();
  for (const d of arm.plan.datasets) {
    for (let start = 0; start < d.lines; start += arm.shardSize) {
      const file = partFile(arm.output, d.dataset, start / arm.shardSize);
      for (const id of readPlannedIds(arm.plan, d.dataset, start, start + arm.shardSize)) where.set(id, file);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return where;
}

/**
 * Each planned line of the arm's existing output into its part, in output order. Lines wait per part and are
 * appended once about 16 MB are waiting, so memory stays flat however large the output.
 */
async function seedParts(arm: ArmPlan): Promise<void> {
  if (!existsSync(arm.output) || recoverJsonl(arm.output).records === 0) return;
  const where = await partsOfIds(arm);
  let waiting = new Map<string, string[]>();
  let waitingChars = 0;
  const append = async () => {
    for (const [file, lines] of waiting) await appendFile(file, lines.join(''));
    waiting = new Map();
    waitingChars = 0;
  };
  for await (const { value, text } of readJsonl<{ sample_id: string }>(arm.output)) {
    const file = where.get(value.sample_id);
    if (!file) continue;
    const lines = waiting.get(file) ?? [];
    waiting.set(file, lines);
    lines.push(text + '\n');
    waitingChars += text.length;
    if (waitingChars >= 16 << 20) await append();
  }
  await append();
}

/** Correct one shard's lines into its part file (resuming from what the part holds). */
export async function runShard(
  options: InferOptions,
  arm: ArmPlan,
  shard: ShardRef,
  hooks: StageHooks<InferCheckpoint>,
  openBackend: OpenBackend,
): Promise<InferShardResult> {
  const start = shard.index * arm.shardSize;
  const rows = readPlannedRows(arm.plan, shard.dataset, start, start + arm.shardSize);
  if (rows.length === 0) throw new UserInputError(`infer shard ${shardLabel(arm, shard)}: the plan in ${arm.plan.dir} has no lines for it`);
  const run = replicateRun(findArm(options.arms, arm.arm), arm.replicate ?? 0);
  const backend = await openBackend(await withArmServer(run.backend(), run.name));
  try {
    const target = {
      input: rows,
      output: partFile(arm.output, shard.dataset, shard.index),
      checkpointEvery: 1,
      progress: 'silent' as const,
    };
    const loadAtStart = backend.load?.();
    const summary = await correctLines(options, run, backend, hooks, target);
    const counts = Object.fromEntries(RESULT_KEYS.map((k) => [k, summary[k]])) as ArmCounts;
    const loadAtEnd = backend.load?.();
    const load = loadAtStart && loadAtEnd ? { load: loadOver(loadAtStart, loadAtEnd) } : {};
    return { shard: shardLabel(arm, shard), lines: rows.length, ...counts, ...load };
  } finally {
    await backend.close();
  }
}

interface LoadedPart {
  shard: number;
  ids: string[];
  lines: Map<string, string>;
}

function loadPart(arm: ArmPlan, dataset: string, shard: number, partial: boolean): LoadedPart {
  const ids = readPlannedIds(arm.plan, dataset, shard * arm.shardSize, (shard + 1) * arm.shardSize);
  const file = partFile(arm.output, dataset, shard);
  const lines = new Map<string, string>();
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let id: string;
    try {
      id = (JSON.parse(line) as { sample_id: string }).sample_id;
    } catch (err) {
      if (partial) continue; // a line being written by a shard still running
      throw err;
    }
    if (!lines.has(id)) lines.set(id, line);
  }
  return { shard, ids, lines };
}

/**
 * The planned lines in input order, from their parts, into `file`; returns their sample_ids. Writes are
 * asynchronous and the work between two is one part or about 1 MB of lines, so an activity merging a large arm
 * keeps heartbeating, on a slow disk too.
 */
async function writeMerged(arm: ArmPlan, file: string, partial: boolean): Promise<Set<string>> {
  const order = readOrder(arm.plan);
  const counters = new Array<number>(arm.plan.datasets.length).fill(0);
  const loaded: (LoadedPart | undefined)[] = [];
  const planned = new Set<string>();
  const out = await LineWriter.open(file);
  try {
    for (const d of order) {
      const k = counters[d]++;
      const shard = Math.floor(k / arm.shardSize);
      const dataset = arm.plan.datasets[d].dataset;
      if (loaded[d]?.shard !== shard) {
        loaded[d] = loadPart(arm, dataset, shard, partial);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const part = loaded[d] as LoadedPart;
      const id = part.ids[k - shard * arm.shardSize];
      const line = part.lines.get(id);
      if (line === undefined && partial) continue;
      if (line === undefined)
        throw new Error(
          `merge ${arm.arm}: sample ${id} is missing from ${partFile(arm.output, dataset, shard)} (the shard did not finish)`,
        );
      planned.add(id);
      await out.write(line + '\n');
    }
  } finally {
    await out.close();
  }
  return planned;
}

/** Existing output records outside the selection (kept, in front), then the merged lines; atomic rename. */
async function assemble(output: string, merged: string, planned: Set<string>): Promise<void> {
  const tmp = `${output}.assemble-${process.pid}.tmp`;
  const out = await LineWriter.open(tmp);
  try {
    if (existsSync(output)) {
      for await (const { value, text } of readJsonl<{ sample_id: string }>(output)) {
        if (!planned.has(value.sample_id)) await out.write(text + '\n');
      }
    }
    for await (const chunk of createReadStream(merged)) await out.writeBytes(chunk as Buffer);
  } finally {
    await out.close();
  }
  renameSync(tmp, output);
  unlinkSync(merged);
}

/**
 * Write the arm's corrections.jsonl from its parts, then fail the stage if too many lines failed. `partial` (the
 * arm failed for good, e.g. an outage past its budget): the lines that are done, in order, and no checks — what
 * succeeded stays where analyze and `phase5 report` read it, as with an unsharded run.
 */
export async function mergeArm(options: InferOptions, arm: ArmPlan, partial = false): Promise<ArmMergeResult> {
  mkdirSync(path.dirname(arm.output), { recursive: true });
  const merged = `${arm.output}.merge-${process.pid}.tmp`;
  const planned = await writeMerged(arm, merged, partial);
  await assemble(arm.output, merged, planned);
  const failed = await countFailedRecords(arm.output, options.datasets);
  if (!partial) assertFailedShareOf(options, arm.arm, failed);
  const counts: Record<string, number> = { 'duplicate input record': arm.plan.duplicates };
  for (const [reason, n] of Object.entries(failed.byReason)) counts[`failed: ${reason}`] = n;
  return {
    output: arm.output,
    outputFile: await writtenFile(arm.output),
    records: planned.size,
    failed: failed.failed,
    skipped: skipsFromCounts(counts, { 'duplicate input record': arm.plan.duplicateIds }),
  };
}
