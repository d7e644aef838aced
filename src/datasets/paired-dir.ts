/**
 * Loader for a directory of paired text files, e.g. OCR_GS: `000123.gt.txt` (gold) + `000123.png.rec.txt`
 * (kraken OCR). Order is deterministic (stems sorted by code unit), so `limit` always picks the same lines.
 */
import { promises as fsp, readFileSync } from 'node:fs';
import path from 'node:path';
import { addProblem, DEFAULT_MAX_LINE_CHARS, emptyProblems, overlongExample, overlongLine } from './problems';
import { DatasetError } from './errors';
import type { LoadDatasetOptions, LoadedDataset, OcrSample, PairedDirSpec } from './types';

export const DEFAULT_GT_SUFFIX = '.gt.txt';
export const DEFAULT_OCR_SUFFIX = '.png.rec.txt';

const READ_BATCH = 256;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Read a whole file as strict UTF-8 (a leading BOM is dropped). Throws on I/O errors and invalid bytes. */
function readUtf8(file: string): string {
  const bytes = readFileSync(file);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Error('not valid UTF-8');
  }
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function loadPairedDir(spec: PairedDirSpec, opts: LoadDatasetOptions = {}): Promise<LoadedDataset> {
  const gtSuffix = spec.gtSuffix ?? DEFAULT_GT_SUFFIX;
  const ocrSuffix = spec.ocrSuffix ?? DEFAULT_OCR_SUFFIX;
  if (!gtSuffix || !ocrSuffix || gtSuffix === ocrSuffix) {
    throw new DatasetError(
      `dataset "${spec.key}": gtSuffix and ocrSuffix must be non-empty and different (got "${gtSuffix}", "${ocrSuffix}")`,
    );
  }
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fsp.readdir(spec.path, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'directory not found' : code === 'ENOTDIR' ? 'not a directory' : (err as Error).message;
    throw new DatasetError(`dataset "${spec.key}": ${why}: ${spec.path}`);
  }

  const { pairs, problems } = pairStems(spec, entries, gtSuffix, ocrSuffix);

  const limit = opts.limit ?? Infinity;
  const maxLineChars = opts.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const samples: OcrSample[] = [];
  type Read = { stem: string; gt: string; ocr: string } | { stem: string; failed: string };
  const readPair = (stem: string): Read => {
    let current = stem + gtSuffix;
    try {
      const gt = readUtf8(path.join(spec.path, current)).trim();
      current = stem + ocrSuffix;
      const ocr = readUtf8(path.join(spec.path, current)).trim();
      return { stem, gt, ocr };
    } catch (err) {
      return { stem, failed: `${current} (${(err as Error).message})` };
    }
  };
  // Synchronous reads: for thousands of tiny files they are ~6x faster than fs.promises (thread-pool
  // round trips dominate). Yield to the event loop between batches so heartbeats/timers keep running.
  for (let i = 0; i < pairs.length && samples.length < limit; i += READ_BATCH) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    const batch = pairs.slice(i, i + READ_BATCH).map(readPair);
    for (const r of batch) {
      if (samples.length >= limit) break;
      if ('failed' in r) {
        addProblem(problems, 'unreadable', r.failed);
        continue;
      }
      if (!r.gt) {
        addProblem(problems, 'emptyGt', r.stem + gtSuffix);
        continue;
      }
      const overlong = overlongPair(r, spec.path, gtSuffix, ocrSuffix, maxLineChars);
      if (overlong) {
        addProblem(problems, 'tooLong', overlong);
        continue;
      }
      // An empty OCR output is a legitimate (if extreme) sample and is kept.
      samples.push({ sample_id: `${spec.key}/${r.stem}`, dataset: spec.key, ocr_text: r.ocr, gt_text: r.gt });
    }
  }
  return { key: spec.key, samples, problems, available: pairs.length };
}

/** `file:line (…)` of the first over-long line of a pair's OCR or gold text, or null. */
function overlongPair(
  r: { stem: string; gt: string; ocr: string },
  dir: string,
  gtSuffix: string,
  ocrSuffix: string,
  max: number,
): string | null {
  for (const [text, suffix] of [
    [r.ocr, ocrSuffix],
    [r.gt, gtSuffix],
  ] as const) {
    const found = overlongLine(text, max);
    if (found) return overlongExample(path.join(dir, r.stem + suffix), found, max);
  }
  return null;
}

/** Pair `<stem><gtSuffix>` with `<stem><ocrSuffix>` (sorted stems); orphans are counted; no pair at all is an error. */
function pairStems(spec: PairedDirSpec, entries: import('node:fs').Dirent[], gtSuffix: string, ocrSuffix: string) {
  // Match the longer suffix first so overlapping suffixes (".txt" vs ".rec.txt") classify correctly.
  const [longer, shorter] = gtSuffix.length >= ocrSuffix.length ? [gtSuffix, ocrSuffix] : [ocrSuffix, gtSuffix];
  const gtStems = new Set<string>();
  const ocrStems = new Set<string>();
  for (const e of entries) {
    if (!e.isFile() && !e.isSymbolicLink()) continue;
    const suffix = e.name.endsWith(longer) ? longer : e.name.endsWith(shorter) ? shorter : null;
    if (!suffix) continue; // other files (e.g. OCR_GS manifest.txt) are not part of the dataset
    const stem = e.name.slice(0, -suffix.length);
    if (!stem) continue;
    (suffix === gtSuffix ? gtStems : ocrStems).add(stem);
  }

  const problems = emptyProblems();
  const pairs: string[] = [];
  for (const stem of [...gtStems].sort(byCodeUnit)) {
    if (ocrStems.has(stem)) pairs.push(stem);
    else addProblem(problems, 'missingOcr', stem + gtSuffix);
  }
  for (const stem of [...ocrStems].sort(byCodeUnit)) {
    if (!gtStems.has(stem)) addProblem(problems, 'missingGt', stem + ocrSuffix);
  }
  // A folder without a single pair is a wrong path or wrong suffixes, not an empty study.
  if (pairs.length === 0) {
    throw new DatasetError(
      `dataset "${spec.key}": no OCR/gold pairs in ${spec.path} (looked for <name>${ocrSuffix} beside <name>${gtSuffix}; found ${ocrStems.size} OCR and ${gtStems.size} gold files) — check the path and the dataset's ocr_suffix / gt_suffix`,
    );
  }

  return { pairs, problems };
}
