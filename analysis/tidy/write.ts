/**
 * The tidy table on disk (docs/tidy-data.md): `<results>/study/lines.parquet` (hyparquet-writer: pure
 * JavaScript, no native or WebAssembly build, Snappy-compressed, read by pandas/pyarrow, polars, DuckDB) and
 * `lines.csv.gz` (the same columns, arquero's CSV quoting, gzip from node:zlib), each through a temporary file.
 */
import { createWriteStream, renameSync, rmSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import * as aq from 'arquero';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { tidyColumns, type TidyRow } from './columns';

export const TIDY_FILES = ['lines.parquet', 'lines.csv.gz'] as const;
export const TIDY_SCHEMA_ID = 'openiti-rag/tidy-lines/1';

const CSV_ROWS = 5000;

/** Column name → values, in table order. */
export function tidyColumnData(rows: readonly TidyRow[], profiles: readonly string[]) {
  return tidyColumns(profiles).map((c) => ({ name: c.name, type: c.type, data: rows.map(c.of) }));
}

/** Write both files into `dir`; `meta` goes into the Parquet key-value metadata. */
export async function writeTidyFiles(
  dir: string,
  rows: readonly TidyRow[],
  profiles: readonly string[],
  meta: Record<string, string>,
): Promise<string[]> {
  const columns = tidyColumnData(rows, profiles);
  const parquet = `${dir}/lines.parquet`;
  const buffer = parquetWriteBuffer({
    columnData: columns,
    createdBy: 'openiti-rag',
    kvMetadata: Object.entries({ schema: TIDY_SCHEMA_ID, ...meta }).map(([key, value]) => ({ key, value })),
  });
  writeFileSync(`${parquet}.tmp-${process.pid}`, new Uint8Array(buffer));
  renameSync(`${parquet}.tmp-${process.pid}`, parquet);
  await writeCsvGz(`${dir}/lines.csv.gz`, columns);
  return [...TIDY_FILES];
}

/** Remove an earlier run's tidy files (the analysis wrote none this time). */
export function removeTidyFiles(dir: string): void {
  for (const f of TIDY_FILES) rmSync(`${dir}/${f}`, { force: true });
}

async function writeCsvGz(file: string, columns: { name: string; data: unknown[] }[]): Promise<void> {
  const table = aq.table(Object.fromEntries(columns.map((c) => [c.name, c.data])));
  const n = table.numRows();
  function* chunks() {
    for (let offset = 0; offset === 0 || offset < n; offset += CSV_ROWS)
      yield table.toCSV({ offset, limit: CSV_ROWS, header: offset === 0 });
  }
  const tmp = `${file}.tmp-${process.pid}`;
  await pipeline(Readable.from(chunks()), createGzip(), createWriteStream(tmp));
  renameSync(tmp, file);
}
