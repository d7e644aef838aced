/** The finished vector files of a build (one file, or the part files of a fanned-out build) read as one matrix. */
import { closeSync, openSync, statSync } from 'node:fs';
import type { BuildIndexOptions } from './build-index-options';
import { readFloatRows } from './vector-files';

export function vectorFiles(opts: Pick<BuildIndexOptions, 'vectorsPath'>): readonly string[] {
  return typeof opts.vectorsPath === 'string' ? [opts.vectorsPath] : opts.vectorsPath;
}

/** Rows of the vector files read as one matrix: rows [start, start+count) may span part files. */
export class VectorRows {
  private readonly parts: { fd: number; firstRow: number; rows: number }[] = [];

  constructor(
    files: readonly string[],
    private readonly dims: number,
  ) {
    let firstRow = 0;
    try {
      for (const f of files) {
        const rows = statSync(f).size / (4 * dims);
        this.parts.push({ fd: openSync(f, 'r'), firstRow, rows });
        firstRow += rows;
      }
    } catch (err) {
      this.close();
      throw err;
    }
  }

  read(start: number, count: number): Float32Array {
    const out = new Float32Array(count * this.dims);
    for (const p of this.parts) {
      const from = Math.max(start, p.firstRow);
      const to = Math.min(start + count, p.firstRow + p.rows);
      if (from < to) out.set(readFloatRows(p.fd, this.dims, from - p.firstRow, to - from), (from - start) * this.dims);
    }
    return out;
  }

  close(): void {
    for (const p of this.parts) closeSync(p.fd);
  }
}
