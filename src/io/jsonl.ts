/**
 * The one JSONL reader/writer every stage uses.
 *
 * Durability model (see docs/design-decisions.md, "Checkpoints"): an output file is only ever appended to, in whole lines,
 * and fsync'd at each checkpoint. The file itself is the durable cursor: on resume, `recoverJsonl`
 * drops a trailing partial line (a crash mid-write) and reports how many complete records exist, so a
 * resumed activity continues at record N with no gap and no duplicate. Heartbeat details carry the same
 * count for progress display and as a cross-check.
 */
import {
  createReadStream,
  existsSync,
  promises as fsp,
  openSync,
  fsyncSync,
  closeSync,
  writeSync,
  ftruncateSync,
  fstatSync,
  readSync,
  mkdirSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

export class JsonlParseError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'JsonlParseError';
  }
}

export interface JsonlLine<T> {
  value: T;
  /** 1-based line number in the file. */
  line: number;
  /** The line as it stands in the file (without its newline), for callers that copy records unchanged. */
  text: string;
}

/** Stream a JSONL file record by record (flat memory). Blank lines are skipped; a bad line throws with file:line. */
export async function* readJsonl<T = unknown>(file: string): AsyncGenerator<JsonlLine<T>> {
  const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    if (!text.trim()) continue;
    let value: T;
    try {
      value = JSON.parse(text) as T;
    } catch (err) {
      throw new JsonlParseError(file, line, `invalid JSON (${(err as Error).message})`);
    }
    yield { value, line, text };
  }
}

/** Read a whole JSONL file into memory (for small files: manifests, per-dataset splits). */
export async function readJsonlAll<T = unknown>(file: string): Promise<T[]> {
  const out: T[] = [];
  for await (const { value } of readJsonl<T>(file)) out.push(value);
  return out;
}

export interface RecoveredJsonl {
  /** Complete records in the file after recovery. */
  records: number;
  /** File size in bytes after recovery. */
  bytes: number;
  /** Bytes of a trailing partial line that were cut off (0 when the file ended cleanly). */
  truncatedBytes: number;
}

/**
 * Make `file` end on a line boundary and count its complete records. A missing file counts as empty.
 * Reads in chunks so memory stays flat for large outputs.
 */
export function recoverJsonl(file: string): RecoveredJsonl {
  if (!existsSync(file)) return { records: 0, bytes: 0, truncatedBytes: 0 };
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(1 << 20);
    let records = 0;
    let lastNewlineEnd = 0;
    let pos = 0;
    let lineHasContent = false;
    while (pos < size) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      const chunk = buf.subarray(0, n);
      // Byte by byte only until a line shows content; from there indexOf jumps to its newline.
      for (let i = 0; i < n;) {
        if (!lineHasContent) {
          const b = chunk[i];
          if (b === 0x0a) lastNewlineEnd = pos + i + 1;
          else if (b !== 0x20 && b !== 0x0d && b !== 0x09) lineHasContent = true;
          if (!lineHasContent) i++;
          continue;
        }
        const nl = chunk.indexOf(0x0a, i);
        if (nl < 0) break;
        records++;
        lineHasContent = false;
        lastNewlineEnd = pos + nl + 1;
        i = nl + 1;
      }
      pos += n;
    }
    const truncatedBytes = size - lastNewlineEnd;
    if (truncatedBytes > 0) {
      ftruncateSync(fd, lastNewlineEnd);
      fsyncSync(fd);
    }
    return { records, bytes: lastNewlineEnd, truncatedBytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * Append-only JSONL writer. `write` buffers whole lines; `checkpoint` writes them and fsyncs, so
 * everything before a checkpoint survives a crash. Use `recoverJsonl` before opening to resume.
 */
export class JsonlAppender {
  private fd: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private written: number;

  /** Open `file` for appending; `existingRecords` is the count recovered from it (0 for a fresh file). */
  constructor(
    readonly file: string,
    existingRecords = 0,
    private readonly flushBytes = 1 << 20,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.fd = openSync(file, 'a');
    this.written = existingRecords;
  }

  /** Records in the file including buffered ones. */
  get count(): number {
    return this.written + this.pending.length;
  }

  write(record: unknown): void {
    const line = JSON.stringify(record) + '\n';
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= this.flushBytes) this.flushBuffer();
  }

  private flushBuffer(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.written += this.pending.length;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Write buffered lines without fsync: they survive the process dying, not the machine. */
  flush(): number {
    this.flushBuffer();
    return this.written;
  }

  /** Write buffered lines and fsync: after this returns, `count` records are durable. */
  checkpoint(): number {
    this.flushBuffer();
    fsyncSync(this.fd);
    return this.written;
  }

  close(): void {
    this.checkpoint();
    closeSync(this.fd);
  }
}

/** Write a file atomically (temp file + fsync + rename) so readers never see half a file. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Pretty JSON with a trailing newline, written atomically. Key order is the object's own (deterministic). */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

export async function readJson<T = unknown>(file: string): Promise<T> {
  const text = await fsp.readFile(file, 'utf8');
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`${file}: invalid JSON (${(err as Error).message})`);
  }
}

/** Write a whole JSONL file atomically (used for small derived files such as per-dataset splits). */
export function writeJsonlAtomic(file: string, records: Iterable<unknown>): void {
  const parts: string[] = [];
  for (const r of records) parts.push(JSON.stringify(r) + '\n');
  writeFileAtomic(file, parts.join(''));
}

/**
 * `writeJsonlAtomic` for large files, the same bytes: records are written in batches and the event loop runs
 * between them, so an activity's heartbeats go out while it writes a million lines.
 */
export async function writeJsonlAtomicAsync(file: string, records: readonly unknown[], batch = 2000): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  const fh = await fsp.open(tmp, 'w');
  try {
    for (let i = 0; i < records.length; i += batch) {
      await fh.write(
        records
          .slice(i, i + batch)
          .map((r) => JSON.stringify(r) + '\n')
          .join(''),
      );
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
}
