/**
 * lines.json in the form the Lines view loads it, so a study of any size opens at once:
 *
 * - an index embedded in report.html (gzip + base64 of compact JSON columns): per line its dataset, sample_id,
 *   OCR CER band, reference length and OCR edits; per arm and line its edits (null: no line) and guard. That is
 *   everything the table, its sort and its filters need; a line CER is derived in the page exactly as
 *   analysis/lines/explorer-lines.ts computes it (round(edits / ref_chars, 6), checked here for every line);
 * - side files in `report-lines/` beside report.html, read only when needed: `lines-NNNN.js` hold the lines
 *   of lines.json (the diffs, retrieved sentences, raw output) for an expanded line, `text-NNNN.js` the gold
 *   and OCR text (scoring form) for the text search. Each is a script calling `openitiLinesChunk(id, kind, n,
 *   data)`: a page opened from file:// may load a script beside it but may not fetch() a file.
 *
 * The id (a hash of everything written) ties the side files to their page: a page never shows lines of
 * another render.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { diffSides, type DiffSegment } from '../lines/diff';
import { round } from '../format';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The folder of side files, beside report.html. */
export const SIDE_DIR = 'report-lines';
/** Lines per `lines-NNNN.js` (one expanded line loads one file) and per `text-NNNN.js` (the search loads all). */
export const DETAIL_LINES = 250;
export const TEXT_LINES = 5000;

export interface LinesBundle {
  /** Hash of the index and every side file: the page accepts only side files of its own render. */
  id: string;
  /** gzip + base64 of the index JSON, for the page. */
  index: string;
  /** Side files, name relative to the report's folder → content. */
  files: Map<string, string>;
}

const gzip64 = (s: string, level: number) => gzipSync(Buffer.from(s, 'utf8'), { level }).toString('base64');
const fileName = (kind: 'lines' | 'text', n: number) => `${SIDE_DIR}/${kind}-${String(n).padStart(4, '0')}.js`;

/** A line CER as lines.json has it: the page derives it from edits and ref_chars. */
const lineCer = (edits: number, refChars: number) => (refChars > 0 ? round(edits / refChars) : null);

/** The compact columns of the index; throws naming the line when a CER is not the one its edits give. */
export function indexColumns(doc: Json): Json {
  const lines = doc.lines as Json[];
  const datasets = (doc.meta.datasets as Array<{ name: string }>).map((d) => d.name);
  const bands = doc.meta.bands as string[];
  const guards: string[] = [];
  const guardIndex = (g: string | null) => {
    if (g === null) return -1;
    const k = guards.indexOf(g);
    return k >= 0 ? k : guards.push(g) - 1;
  };
  const arms: Json = {};
  for (const { name } of doc.meta.arms as Array<{ name: string }>) {
    const edits = lines.map((l) => l.arms[name]?.edits ?? null);
    const guard = lines.map((l) => guardIndex(l.arms[name]?.guard ?? null));
    // 1 / 0: the arm's context held / did not hold the gold passage; -1: not known (no provenance).
    const context = lines.map((l) => {
      const g = l.arms[name]?.gold_in_context;
      return g === true ? 1 : g === false ? 0 : -1;
    });
    // 1 / 0: the arm's replicates scored different / the same texts on the line; -1: no replicates (or no line).
    const disagree = lines.map((l) => {
      const d = l.arms[name]?.replicates_disagree;
      return d === true ? 1 : d === false ? 0 : -1;
    });
    arms[name] = {
      edits,
      guard: guard.some((g) => g >= 0) ? guard : null,
      ...(context.some((c) => c >= 0) ? { context } : {}),
      ...(disagree.some((d) => d >= 0) ? { disagree } : {}),
    };
  }
  lines.forEach((l, i) => checkCers(l, i));
  return {
    dataset: lines.map((l) => datasets.indexOf(l.dataset)),
    sample_id: lines.map((l) => l.sample_id),
    band: lines.map((l) => bands.indexOf(l.band)),
    ref_chars: lines.map((l) => l.ref_chars),
    ocr_edits: lines.map((l) => l.ocr.edits),
    arms,
    guards,
  };
}

function checkCers(l: Json, i: number): void {
  const bad = (what: string, cer: unknown, edits: number) => {
    if (cer !== lineCer(edits, l.ref_chars))
      throw new Error(
        `lines.json line ${i + 1} (${l.sample_id}): ${what} cer ${cer} is not round(edits ${edits} / ref_chars ${l.ref_chars})`,
      );
  };
  bad('ocr', l.ocr.cer, l.ocr.edits);
  for (const [arm, a] of Object.entries(l.arms as Record<string, Json | null>)) if (a) bad(arm, a.cer, a.edits);
}

/** The side file of chunk `n`: a script handing its gzip + base64 JSON to the page. */
const sideFile = (id: string, kind: string, n: number, data: string) =>
  `openitiLinesChunk(${JSON.stringify(id)},${JSON.stringify(kind)},${n},"${data}");\n`;

function chunks<T>(xs: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

function buildBundle(doc: Json): LinesBundle {
  const lines = doc.lines as Json[];
  const detail = chunks(lines, DETAIL_LINES).map((c) => gzip64(JSON.stringify(c), 6));
  const text = chunks(lines, TEXT_LINES).map((c) =>
    gzip64(
      JSON.stringify(
        c.map((l) => {
          const s = diffSides(l.ocr.diff as DiffSegment[]);
          return [s.gold, s.output];
        }),
      ),
      6,
    ),
  );
  const side = { dir: SIDE_DIR, lines: { size: DETAIL_LINES, count: detail.length }, text: { size: TEXT_LINES, count: text.length } };
  const body = JSON.stringify({ meta: doc.meta, side, columns: indexColumns(doc) });
  const hash = createHash('sha256').update(body);
  for (const c of [...detail, ...text]) hash.update(c);
  const id = hash.digest('hex').slice(0, 16);
  const files = new Map<string, string>();
  detail.forEach((c, n) => files.set(fileName('lines', n), sideFile(id, 'lines', n, c)));
  text.forEach((c, n) => files.set(fileName('text', n), sideFile(id, 'text', n, c)));
  return { id, index: gzip64(`{"id":${JSON.stringify(id)},${body.slice(1)}`, 9), files };
}

const built = new WeakMap<object, LinesBundle>();

/** The bundle of a lines.json document (built once per document: the page and the side files share it). */
export function linesBundle(doc: Json): LinesBundle {
  let b = built.get(doc);
  if (!b) built.set(doc, (b = buildBundle(doc)));
  return b;
}
