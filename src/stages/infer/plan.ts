/**
 * The infer plan: which input lines each shard corrects, written once per input selection so a shard reads only
 * its own lines. `writePlan` scans inference_input.jsonl once (dataset filter, `--limit` or `--sample`, first record of each
 * sample_id) and writes, in `<arm folder>/infer-plan/<hash>/` (beside the arm's inference_input.jsonl):
 *  - `<dataset>.offsets`: (byte offset, byte length) of the dataset's selected lines, in input order (float64 pairs);
 *  - `order.u16`: the dataset (index into `plan.json`'s list) of every selected line, in input order — the merge
 *    order, so merged outputs follow the input exactly as a single run writes them;
 *  - `plan.json` last (the marker that the plan is complete).
 * Shard n of a dataset is its lines [n·size, (n+1)·size).
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { JsonlParseError, writeJsonAtomic } from '../../io/jsonl';
import { InferenceInputSchema, type InferenceInputRow } from '../../llm/records';
import { describeZodError } from '../../llm/record-files';
import { UserInputError } from '../shared/types';
import type { ClusterSpec } from '../../datasets/clusters';
import { drawSample, type SampleSpec } from '../../datasets/sample';

export interface PlanDataset {
  dataset: string;
  /** Selected lines (distinct sample_ids). */
  lines: number;
}

export interface InferPlanFiles {
  dir: string;
  input: string;
  datasets: PlanDataset[];
  lines: number;
  /** Input records whose sample_id appeared earlier (left out), with the first few ids. */
  duplicates: number;
  duplicateIds: string[];
}

export interface PlanSelection {
  datasets?: readonly string[];
  limit?: number;
  /** `--sample N --seed S` with the config's clusters: the pilot's lines of each dataset (src/datasets/sample.ts). */
  sample?: { spec: SampleSpec; clusters: ClusterSpec };
}

/** A dataset key as a file name (dataset keys are config keys: letters, digits, `.`, `_`, `-` stay). */
export function safeName(dataset: string): string {
  return dataset.replace(/[^A-Za-z0-9._-]/g, '_');
}

function planDirFor(input: string, sel: PlanSelection): string {
  const st = statSync(input);
  const key = JSON.stringify([
    path.resolve(input),
    st.size,
    st.mtimeMs,
    sel.datasets ?? null,
    sel.limit ?? null,
    ...(sel.sample ? [sel.sample] : []),
  ]);
  return path.join(path.dirname(input), 'infer-plan', createHash('sha256').update(key).digest('hex').slice(0, 12));
}

/**
 * Every line of `file` with its byte offset and length (without the newline), read in 4 MB chunks; the event loop
 * runs between chunks, so an activity scanning a large input keeps heartbeating.
 */
async function forEachLine(file: string, fn: (text: string, offset: number, length: number, lineNo: number) => void): Promise<void> {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(4 << 20);
    let carry = Buffer.alloc(0);
    let carryOffset = 0;
    let lineNo = 0;
    for (let pos = 0; ;) {
      if (pos > 0) await new Promise((resolve) => setImmediate(resolve));
      const n = readSync(fd, chunk, 0, chunk.length, pos);
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
        fn(buf.toString('utf8', start, nl), carryOffset + start, nl - start, ++lineNo);
        start = nl + 1;
      }
      carryOffset += start;
      carry = Buffer.from(buf.subarray(start));
      pos += n;
      if (n === 0) {
        if (carry.length) fn(carry.toString('utf8'), carryOffset, carry.length, ++lineNo);
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
}

interface Scan {
  byDataset: Map<string, number[]>;
  /** The sample_ids of each dataset's lines, kept only when a pilot is drawn from them. */
  ids: Map<string, string[]>;
  order: number[];
  duplicates: number;
  duplicateIds: string[];
}

async function scanInput(input: string, sel: PlanSelection): Promise<Scan> {
  const wanted = sel.datasets ? new Set(sel.datasets) : null;
  const seen = new Set<string>();
  const scan: Scan = { byDataset: new Map(), ids: new Map(), order: [], duplicates: 0, duplicateIds: [] };
  const datasetIndex = new Map<string, number>();
  await forEachLine(input, (text, offset, length, lineNo) => {
    if (!text.trim()) return;
    let v: { sample_id?: unknown; dataset?: unknown };
    try {
      v = JSON.parse(text);
    } catch (err) {
      throw new JsonlParseError(input, lineNo, `invalid JSON (${(err as Error).message})`);
    }
    if (typeof v?.sample_id !== 'string' || typeof v.dataset !== 'string')
      throw new JsonlParseError(input, lineNo, 'needs string "sample_id" and "dataset"');
    if (wanted && !wanted.has(v.dataset)) return;
    if (seen.has(v.sample_id)) {
      if (scan.duplicates++ < 3) scan.duplicateIds.push(v.sample_id);
      return;
    }
    const list = scan.byDataset.get(v.dataset) ?? [];
    // `list` holds (offset, length) pairs: two entries per selected line.
    if (sel.limit !== undefined && list.length / 2 >= sel.limit) return;
    seen.add(v.sample_id);
    if (!datasetIndex.has(v.dataset)) datasetIndex.set(v.dataset, datasetIndex.size);
    scan.byDataset.set(v.dataset, list);
    list.push(offset, length);
    scan.order.push(datasetIndex.get(v.dataset) as number);
    if (sel.sample) {
      const ids = scan.ids.get(v.dataset) ?? [];
      scan.ids.set(v.dataset, ids);
      ids.push(v.sample_id);
    }
  });
  return sel.sample ? pilotOf(scan, sel.sample) : scan;
}

/** The scan cut to the pilot's lines of each dataset (input order kept). */
function pilotOf(scan: Scan, sample: NonNullable<PlanSelection['sample']>): Scan {
  const keep = new Map<string, Set<number>>();
  for (const [dataset, ids] of scan.ids) keep.set(dataset, new Set(drawSample(ids, sample.spec, sample.clusters, dataset)));
  const names = [...scan.byDataset.keys()];
  const seen = names.map(() => 0);
  const order = scan.order.filter((d) => keep.get(names[d])!.has(seen[d]++));
  const byDataset = new Map(
    [...scan.byDataset].map(([dataset, pairs]) => [dataset, pairs.filter((_, i) => keep.get(dataset)!.has(Math.floor(i / 2)))]),
  );
  return { ...scan, byDataset, order };
}

/** Scan the input once and write the plan files; an existing complete plan for the same selection is reused. */
export async function writePlan(input: string, sel: PlanSelection): Promise<InferPlanFiles> {
  const dir = planDirFor(input, sel);
  const marker = path.join(dir, 'plan.json');
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, 'utf8')) as InferPlanFiles;
  const scan = await scanInput(input, sel);
  if (scan.byDataset.size > 0xffff) throw new Error(`infer plan: more than 65,535 datasets in ${input}`);
  mkdirSync(dir, { recursive: true });
  const datasets: PlanDataset[] = [];
  for (const [dataset, offsets] of scan.byDataset) {
    writeFileSync(path.join(dir, `${safeName(dataset)}.offsets`), Buffer.from(Float64Array.from(offsets).buffer));
    datasets.push({ dataset, lines: offsets.length / 2 });
  }
  writeFileSync(path.join(dir, 'order.u16'), Buffer.from(Uint16Array.from(scan.order).buffer));
  const plan: InferPlanFiles = {
    dir,
    input,
    datasets,
    lines: scan.order.length,
    duplicates: scan.duplicates,
    duplicateIds: scan.duplicateIds,
  };
  writeJsonAtomic(marker, plan);
  return plan;
}

/** The dataset of every planned line, in input order (indices into `plan.datasets`). */
export function readOrder(plan: InferPlanFiles): Uint16Array {
  const buf = readFileSync(path.join(plan.dir, 'order.u16'));
  return new Uint16Array(buf.buffer, buf.byteOffset, buf.length / 2);
}

/** The (byte offset, byte length) pairs of a dataset's lines [start, end): only that slice of the offsets file is read. */
function plannedOffsets(plan: InferPlanFiles, dataset: string, start: number, end: number): Float64Array {
  const fd = openSync(path.join(plan.dir, `${safeName(dataset)}.offsets`), 'r');
  try {
    const lines = Math.max(0, Math.min(end, fstatSync(fd).size / 16) - start);
    const pairs = Buffer.alloc(lines * 16);
    readSync(fd, pairs, 0, pairs.length, start * 16);
    return new Float64Array(pairs.buffer, pairs.byteOffset, lines * 2);
  } finally {
    closeSync(fd);
  }
}

/** The raw input lines (JSON text) of a dataset's lines [start, end), read at their offsets. */
function readPlannedLines(plan: InferPlanFiles, dataset: string, start: number, end: number): { text: string; offset: number }[] {
  const offsets = plannedOffsets(plan, dataset, start, end);
  const fd = openSync(plan.input, 'r');
  try {
    const lines: { text: string; offset: number }[] = [];
    let buf = Buffer.alloc(0);
    for (let i = 0; i < offsets.length; i += 2) {
      const length = offsets[i + 1];
      if (buf.length < length) buf = Buffer.alloc(Math.max(length, 2 * buf.length, 1 << 16));
      readSync(fd, buf, 0, length, offsets[i]);
      lines.push({ text: buf.toString('utf8', 0, length), offset: offsets[i] });
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}

/** The validated input records of a dataset's lines [start, end), read at their offsets. */
export function readPlannedRows(plan: InferPlanFiles, dataset: string, start: number, end: number): InferenceInputRow[] {
  return readPlannedRecords(plan, dataset, start, end).map((r) => r.row);
}

/** readPlannedRows, each record also as written (with the keys the schema leaves out, such as retrieval_sources). */
export function readPlannedRecords(
  plan: InferPlanFiles,
  dataset: string,
  start: number,
  end: number,
): { row: InferenceInputRow; raw: Record<string, unknown> }[] {
  return readPlannedLines(plan, dataset, start, end).map(({ text, offset }) => {
    const raw = JSON.parse(text) as Record<string, unknown>;
    const parsed = InferenceInputSchema.safeParse(raw);
    if (!parsed.success) throw new UserInputError(`${plan.input} (byte ${offset}, ${dataset}): ${describeZodError(parsed.error)}`);
    return { row: parsed.data, raw };
  });
}

/** The sample_ids of a dataset's lines [start, end) (the plan's scan checked each is a string). */
export function readPlannedIds(plan: InferPlanFiles, dataset: string, start: number, end: number): string[] {
  return readPlannedLines(plan, dataset, start, end).map(({ text }) => (JSON.parse(text) as { sample_id: string }).sample_id);
}
