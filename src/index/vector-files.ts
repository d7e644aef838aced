/**
 * Raw vector files.
 *
 * - Partial vectors (`*.f32.partial`, written by the resumable build): headerless little-endian float32
 *   rows in corpus order. The file is its own cursor: rows = floor(size / (4·dims)); a trailing partial
 *   row (crash mid-write) is cut off on resume.
 * - Vector matrix (the exact index's `index.usearch`): a 16-byte header — magic "ORAGVEC1", uint32 rows,
 *   uint32 dims — then rows × dims float32. usearch has no flat (exact) index type, and its
 *   `exactSearch` measured 5–7× slower than faiss, so exact search keeps its own matrix (searched with
 *   onnxruntime, see exact-search.ts) while HNSW indexes are native usearch files.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { IndexCorruptError } from './errors';

export const MATRIX_MAGIC = 'ORAGVEC1';
export const MATRIX_HEADER_BYTES = 16;

export interface PartialRows {
  rows: number;
  /** Bytes of an incomplete trailing row that were cut off. */
  truncatedBytes: number;
}

/** Count complete rows in a partial vectors file, truncating a trailing partial row. Missing → 0. */
export function recoverPartialVectors(file: string, dims: number): PartialRows {
  if (!existsSync(file)) return { rows: 0, truncatedBytes: 0 };
  const rowBytes = 4 * dims;
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const rows = Math.floor(size / rowBytes);
    const extra = size - rows * rowBytes;
    if (extra > 0) {
      ftruncateSync(fd, rows * rowBytes);
      fsyncSync(fd);
    }
    return { rows, truncatedBytes: extra };
  } finally {
    closeSync(fd);
  }
}

/** Append float32 rows to an open file descriptor (little-endian, as the platform's typed arrays). */
export function writeFloats(fd: number, data: Float32Array): void {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/** Read rows [start, start+count) of a headerless float32 file at byte offset `headerBytes`. */
export function readFloatRows(fd: number, dims: number, start: number, count: number, headerBytes = 0): Float32Array {
  const out = new Float32Array(count * dims);
  const buf = Buffer.from(out.buffer);
  let off = 0;
  const pos0 = headerBytes + start * dims * 4;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, pos0 + off);
    if (n === 0) throw new Error(`unexpected end of file after ${off} bytes reading rows ${start}..${start + count}`);
    off += n;
  }
  return out;
}

export function matrixHeader(rows: number, dims: number): Buffer {
  const h = Buffer.alloc(MATRIX_HEADER_BYTES);
  h.write(MATRIX_MAGIC, 0, 'latin1');
  h.writeUInt32LE(rows, 8);
  h.writeUInt32LE(dims, 12);
  return h;
}

/** Expected size in bytes of a vector matrix file. */
export function matrixFileBytes(rows: number, dims: number): number {
  return MATRIX_HEADER_BYTES + rows * dims * 4;
}

/** Read a whole vector matrix file into memory, checking magic, header and size. */
export function readMatrixFile(file: string): { rows: number; dims: number; data: Float32Array } {
  const size = statSync(file).size;
  if (size < MATRIX_HEADER_BYTES)
    throw new IndexCorruptError(file, `only ${size} bytes, shorter than the ${MATRIX_HEADER_BYTES}-byte header (truncated?)`);
  const fd = openSync(file, 'r');
  try {
    const h = Buffer.alloc(MATRIX_HEADER_BYTES);
    readSync(fd, h, 0, MATRIX_HEADER_BYTES, 0);
    if (h.toString('latin1', 0, 8) !== MATRIX_MAGIC)
      throw new IndexCorruptError(
        file,
        `not a vector matrix (magic ${JSON.stringify(h.toString('latin1', 0, 8))}, expected "${MATRIX_MAGIC}")`,
      );
    const rows = h.readUInt32LE(8);
    const dims = h.readUInt32LE(12);
    const want = matrixFileBytes(rows, dims);
    if (size !== want)
      throw new IndexCorruptError(
        file,
        `header says ${rows} × ${dims} vectors (${want} bytes) but the file has ${size} bytes (truncated?)`,
      );
    return { rows, dims, data: readFloatRows(fd, dims, 0, rows, MATRIX_HEADER_BYTES) };
  } finally {
    closeSync(fd);
  }
}
