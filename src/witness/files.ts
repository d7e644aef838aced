/**
 * The witness index on disk: one directory of flat typed-array files plus `witness.json` (parameters,
 * works, marker labels, sizes, and the caller's fingerprint) and `lines.txt` (every line's NFC text, one
 * per line, with `line-bytes.f64` holding their byte offsets). Loading maps the arrays back; line texts are
 * read from `lines.txt` on demand, so a loaded index holds only the arrays in memory.
 * A build writes into `<dir>.partial` and renames it when complete: a directory with witness.json is whole.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { indexLayout, WitnessLayoutBuilder, type WitnessIndexData, type WitnessParams } from './build';
import type { LineTexts } from './hits';
import { readWitnessWork, type WorkFile } from './works';

const ARRAYS = {
  text: ['text.u16', Uint16Array],
  lineStart: ['line-start.u32', Uint32Array],
  lineNo: ['line-no.u32', Uint32Array],
  lineWork: ['line-work.u32', Uint32Array],
  linePage: ['line-page.i32', Int32Array],
  lineMs: ['line-ms.i32', Int32Array],
  bucketStart: ['buckets.u32', Uint32Array],
  postings: ['postings.u32', Uint32Array],
} as const;
type ArrayKey = keyof typeof ARRAYS;

export interface WitnessManifest {
  version: 1;
  fingerprint: string;
  params: WitnessParams;
  works: WitnessIndexData['works'];
  labels: string[];
  lines: number;
  key_chars: number;
  postings: number;
  /** Selected works whose file was missing (counted, not fatal). */
  missing: string[];
}

export const WITNESS_MANIFEST = 'witness.json';

/** Build the index of `files` into `dir` (replacing it), streaming one work at a time. */
export async function buildWitnessDir(o: {
  files: readonly WorkFile[];
  dir: string;
  fingerprint: string;
  missing?: string[];
  params?: Partial<WitnessParams>;
  onWork?: (done: number, total: number) => void;
}): Promise<WitnessManifest> {
  const tmp = `${o.dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const fd = openSync(path.join(tmp, 'lines.txt'), 'w');
  const offsets: number[] = [0];
  let bytes = 0;
  const builder = new WitnessLayoutBuilder((nfc) => {
    const buf = Buffer.from(`${nfc.replace(/\n/g, ' ')}\n`, 'utf8');
    writeSync(fd, buf);
    bytes += buf.length;
    offsets.push(bytes);
  });
  try {
    for (let i = 0; i < o.files.length; i++) {
      const f = o.files[i];
      builder.add(await readWitnessWork(f.file, f.uri, f.date));
      o.onWork?.(i + 1, o.files.length);
    }
  } finally {
    closeSync(fd);
  }
  const data = indexLayout(builder.finish(), o.params);
  for (const [key, [file]] of Object.entries(ARRAYS) as [ArrayKey, (typeof ARRAYS)[ArrayKey]][]) {
    const a = data[key];
    writeFileSync(path.join(tmp, file), new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  writeFileSync(path.join(tmp, 'line-bytes.f64'), new Uint8Array(Float64Array.from(offsets).buffer));
  const manifest: WitnessManifest = {
    version: 1,
    fingerprint: o.fingerprint,
    params: data.params,
    works: data.works,
    labels: data.labels,
    lines: data.lineNo.length,
    key_chars: data.text.length,
    postings: data.postings.length,
    missing: o.missing ?? [],
  };
  writeFileSync(path.join(tmp, WITNESS_MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
  rmSync(o.dir, { recursive: true, force: true });
  renameSync(tmp, o.dir);
  return manifest;
}

/** The manifest of a complete index directory, or null when there is none. */
export function readWitnessManifest(dir: string): WitnessManifest | null {
  const f = path.join(dir, WITNESS_MANIFEST);
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as WitnessManifest) : null;
}

/** A flat file as a typed array, without a copy when the file's buffer is aligned for it (a large file's is). */
export function readArray<T extends ArrayBufferView>(
  file: string,
  Ctor: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number },
): T {
  const buf = readFileSync(file);
  const ab = buf.byteOffset % Ctor.BYTES_PER_ELEMENT === 0 ? buf.buffer : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const off = ab === buf.buffer ? buf.byteOffset : 0;
  return new Ctor(ab as ArrayBuffer, off, buf.byteLength / Ctor.BYTES_PER_ELEMENT);
}

/** Line texts read from `lines.txt` with positioned reads. */
class FileLineTexts implements LineTexts {
  private readonly fd: number;
  constructor(
    file: string,
    private readonly offsets: Float64Array,
  ) {
    this.fd = openSync(file, 'r');
  }
  get(line: number): string {
    const start = this.offsets[line];
    const len = this.offsets[line + 1] - start - 1;
    const buf = Buffer.allocUnsafe(len);
    readSync(this.fd, buf, 0, len, start);
    return buf.toString('utf8');
  }
  close(): void {
    closeSync(this.fd);
  }
}

export interface LoadedWitnessIndex {
  manifest: WitnessManifest;
  data: WitnessIndexData;
  texts: LineTexts & { close(): void };
}

/** Load a complete index directory; a clear error names what is missing. */
export function loadWitnessDir(dir: string): LoadedWitnessIndex {
  const manifest = readWitnessManifest(dir);
  if (!manifest)
    throw new Error(`witness index ${dir}: no ${WITNESS_MANIFEST} (not built, or the build did not finish) — run the build stage`);
  const arrays = Object.fromEntries(
    Object.entries(ARRAYS).map(([key, [file, Ctor]]) => [key, readArray(path.join(dir, file), Ctor as never)]),
  ) as unknown as Pick<WitnessIndexData, ArrayKey>;
  const data: WitnessIndexData = { params: manifest.params, works: manifest.works, labels: manifest.labels, ...arrays };
  if (data.lineNo.length !== manifest.lines || data.postings.length !== manifest.postings)
    throw new Error(
      `witness index ${dir}: arrays do not match ${WITNESS_MANIFEST} (${data.lineNo.length} lines, ${data.postings.length} postings) — rebuild it`,
    );
  const texts = new FileLineTexts(path.join(dir, 'lines.txt'), readArray(path.join(dir, 'line-bytes.f64'), Float64Array));
  return { manifest, data, texts };
}
