/**
 * lines.json on disk: one-line JSON `{"meta":…,"lines":[…]}` — the bytes of JSON.stringify(doc) + '\n' — written
 * and read a line at a time, because a study of 100,000 lines × 8 arms is over the longest string JavaScript
 * holds (about 537 million characters): one JSON.stringify or readFileSync of it fails.
 */
import { closeSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BATCH = 1000;

/** Write `doc` ({meta, lines}) as JSON.stringify(doc) + '\n', through a temporary file (never half a file). */
export function writeLinesJson(file: string, doc: { meta: unknown; lines: readonly unknown[] }): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `{"meta":${JSON.stringify(doc.meta)},"lines":[`);
    for (let i = 0; i < doc.lines.length; i += BATCH) {
      writeSync(
        fd,
        (i > 0 ? ',' : '') +
          doc.lines
            .slice(i, i + BATCH)
            .map((l) => JSON.stringify(l))
            .join(','),
      );
    }
    writeSync(fd, ']}\n');
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]

/** End (exclusive) of the JSON object or array starting at `i`, or -1 (UTF-8 bytes ≥ 0x80 never look like ASCII). */
function valueEnd(buf: Buffer, i: number): number {
  let depth = 0;
  let inString = false;
  for (; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (OPEN.has(c)) depth++;
    else if (CLOSE.has(c) && --depth === 0) return i + 1;
  }
  return -1;
}

const at = (buf: Buffer, i: number, s: string) => buf.toString('latin1', i, i + s.length) === s;

/** The document, line by line when it has the layout writeLinesJson writes; otherwise parsed whole. */
export function readLinesJson(file: string): Json {
  const buf = readFileSync(file);
  const parsed = readByLine(buf);
  if (parsed) return parsed;
  try {
    return JSON.parse(buf.toString('utf8')) as Json;
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

function readByLine(buf: Buffer): Json | null {
  if (!at(buf, 0, '{"meta":')) return null;
  const metaEnd = valueEnd(buf, 8);
  if (metaEnd < 0 || !at(buf, metaEnd, ',"lines":[')) return null;
  const meta = JSON.parse(buf.toString('utf8', 8, metaEnd));
  const lines: Json[] = [];
  let i = metaEnd + ',"lines":['.length;
  while (buf[i] !== 0x5d) {
    if (buf[i] !== 0x7b) return null;
    const end = valueEnd(buf, i);
    if (end < 0) return null;
    lines.push(JSON.parse(buf.toString('utf8', i, end)));
    i = buf[end] === 0x2c ? end + 1 : end;
  }
  return at(buf, i, ']}') && buf.toString('latin1', i + 2).trim() === '' ? { meta, lines } : null;
}
