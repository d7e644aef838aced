/**
 * Loader for a JSONL dataset: one object per line with `ocr_text` and `gt_text` (strings) and an optional
 * `sample_id` (string or number; default `<key>/<line number>`). Bad lines are skipped and counted with
 * their `file:line` (default) or fail the load (`onBadLine: 'fail'`).
 */
import { promises as fsp } from 'node:fs';
import { addProblem, DEFAULT_MAX_LINE_CHARS, emptyProblems, overlongExample, overlongLine } from './problems';
import { DatasetError } from './errors';
import type { JsonlDatasetSpec, LoadDatasetOptions, LoadedDataset, OcrSample } from './types';

/**
 * Bytes parsed between two turns of the event loop: a bound on the work whatever the lines' length. A count of
 * lines bounds nothing when lines are long: 10,000 lines of about 1,000 characters hold the loop 150–380 ms on
 * a quiet 2-core machine, enough to miss a 1 s heartbeat on a busy one.
 */
const YIELD_EVERY_BYTES = 1 << 20;

export class DatasetLineError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'DatasetLineError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

type Parsed = { ok: true; sampleId: string | null; ocr: string; gt: string } | { ok: false; why: string };

function parseLine(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, why: `invalid JSON (${(err as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, why: 'not a JSON object' };
  const rec = value as Record<string, unknown>;
  for (const field of ['ocr_text', 'gt_text'] as const) {
    if (!(field in rec)) return { ok: false, why: `missing field "${field}"` };
    if (typeof rec[field] !== 'string')
      return { ok: false, why: `field "${field}" must be a string, got ${rec[field] === null ? 'null' : typeof rec[field]}` };
  }
  let sampleId: string | null = null;
  if (rec.sample_id !== undefined && rec.sample_id !== null) {
    if (typeof rec.sample_id === 'string' && rec.sample_id.trim()) sampleId = rec.sample_id;
    else if (typeof rec.sample_id === 'number' && Number.isFinite(rec.sample_id)) sampleId = String(rec.sample_id);
    else return { ok: false, why: 'field "sample_id" must be a non-empty string or a number' };
  }
  return { ok: true, sampleId, ocr: (rec.ocr_text as string).trim(), gt: (rec.gt_text as string).trim() };
}

export async function loadJsonlDataset(spec: JsonlDatasetSpec, opts: LoadDatasetOptions = {}): Promise<LoadedDataset> {
  const onBadLine = spec.onBadLine ?? 'skip';
  try {
    const st = await fsp.stat(spec.path);
    if (!st.isFile()) throw new Error('not a file');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DatasetError(`dataset "${spec.key}": ${code === 'ENOENT' ? 'file not found' : (err as Error).message}: ${spec.path}`);
  }
  const problems = emptyProblems();
  const samples: OcrSample[] = [];
  const seen = new Set<string>();
  const limit = opts.limit ?? Infinity;
  const maxLineChars = opts.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  let available = 0;
  // Whole-file read, split on LF bytes, strict UTF-8 per line: an invalid byte sequence is reported for its
  // own line instead of being silently replaced by U+FFFD. Dataset files are small enough for this.
  const bytes = await fsp.readFile(spec.path);
  let line = 0;
  let start = 0;
  let yieldAt = YIELD_EVERY_BYTES;
  while (start < bytes.length) {
    // The event loop runs between batches of lines: an activity loading a large dataset keeps heartbeating.
    if (start >= yieldAt) {
      yieldAt = start + YIELD_EVERY_BYTES;
      await new Promise((resolve) => setImmediate(resolve));
    }
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    line++;
    const raw = bytes.subarray(start, end);
    start = end + 1;
    const where = `${spec.path}:${line}`;
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      if (onBadLine === 'fail') throw new DatasetLineError(spec.path, line, 'not valid UTF-8');
      addProblem(problems, 'unreadable', `${where}: not valid UTF-8`);
      continue;
    }
    if (!text.trim()) continue;
    const parsed = parseLine(text);
    if (!parsed.ok) {
      if (onBadLine === 'fail') throw new DatasetLineError(spec.path, line, parsed.why);
      addProblem(problems, 'badLines', `${where}: ${parsed.why}`);
      continue;
    }
    if (!parsed.gt) {
      addProblem(problems, 'emptyGt', where);
      continue;
    }
    const overlong = overlongLine(parsed.ocr, maxLineChars) ?? overlongLine(parsed.gt, maxLineChars);
    if (overlong) {
      addProblem(problems, 'tooLong', overlongExample(spec.path, { line, chars: overlong.chars }, maxLineChars));
      continue;
    }
    const sampleId = parsed.sampleId ?? `${spec.key}/${line}`;
    if (seen.has(sampleId)) {
      addProblem(problems, 'duplicateIds', `${where}: ${sampleId}`);
      continue;
    }
    seen.add(sampleId);
    available++;
    if (samples.length < limit) samples.push({ sample_id: sampleId, dataset: spec.key, ocr_text: parsed.ocr, gt_text: parsed.gt });
  }
  // A file without one usable line is a wrong file, not an empty study.
  if (available === 0)
    throw new DatasetError(
      `dataset "${spec.key}": no samples in ${spec.path} (expected one JSON object per line with "ocr_text" and "gt_text"; ${line} line(s) read)`,
    );
  return { key: spec.key, samples, problems, available };
}
