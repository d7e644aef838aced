/**
 * The tidy table on disk (docs/tidy-data.md): `<results>/study/lines.parquet` (hyparquet-writer: pure
 * JavaScript, no native or WebAssembly build, Snappy-compressed, read by pandas/pyarrow, polars, DuckDB) and
 * `lines.csv.gz` (the same columns, arquero's CSV quoting, gzip from node:zlib), each through a temporary file.
 * Both are written one row group at a time (1,000 rows, then 100,000 each: hyparquet-writer's default groups),
 * so a study of 100,000 lines × 8 arms never holds its whole table at once.
 */
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as aq from 'arquero';
import { fileWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { tidyColumns, type TidyRow } from './columns';

export const TIDY_FILES = ['lines.parquet', 'lines.csv.gz'] as const;
export const TIDY_SCHEMA_ID = 'openiti-rag/tidy-lines/1';

/** gzip's output buffer: larger than one row group's compressed CSV, so a group is compressed in one job. */
const GZIP_CHUNK = 64 * 1024 * 1024;
/** Rows per row group: the first, then every other (hyparquet-writer's default `rowGroupSize`). */
const GROUP_ROWS = [1000, 100000] as const;

/**
 * The free texts: their Parquet column chunks carry no min / max statistics (a reader filters on the dataset, the arm
 * or a count, never on the bounds of a text, and they cost a comparison of every value).
 */
const TEXT_COLUMNS = new Set(['ocr_text', 'gold_text', 'corrected_text', 'error']);

/** Column name → values, in table order. */
export function tidyColumnData(rows: readonly TidyRow[], profiles: readonly string[], probe = false) {
  return tidyColumns(profiles, probe).map((c) => ({
    name: c.name,
    type: c.type,
    data: rows.map(c.of),
    ...(TEXT_COLUMNS.has(c.name) ? { statistics: false } : {}),
  }));
}

/** The rows in row groups (one empty group when there are none, so both files get their columns). */
function* groups(rows: Iterable<TidyRow>): Generator<TidyRow[]> {
  let group: TidyRow[] = [];
  let size: number = GROUP_ROWS[0];
  let any = false;
  for (const row of rows) {
    group.push(row);
    if (group.length === size) {
      yield group;
      [group, size, any] = [[], GROUP_ROWS[1], true];
    }
  }
  if (group.length > 0 || !any) yield group;
}

/** Write both files into `dir`; `meta` goes into the Parquet key-value metadata; `probe`: with the probe columns. */
export async function writeTidyFiles(
  dir: string,
  rows: Iterable<TidyRow>,
  profiles: readonly string[],
  meta: Record<string, string>,
  probe = false,
): Promise<string[]> {
  const [parquet, csv] = [`${dir}/lines.parquet`, `${dir}/lines.csv.gz`];
  const tmp = (f: string) => `${f}.tmp-${process.pid}`;
  const gzip = createGzip({ chunkSize: GZIP_CHUNK });
  const csvDone = finished(gzip.pipe(createWriteStream(tmp(csv))));
  csvDone.catch(() => undefined); // awaited below; a write error surfaces there
  const kvMetadata = Object.entries({ schema: TIDY_SCHEMA_ID, ...meta }).map(([key, value]) => ({ key, value }));
  let pq: ParquetWriter | null = null;
  let header = true;
  for (const group of groups(rows)) {
    const columnData = tidyColumnData(group, profiles, probe);
    pq ??= new ParquetWriter({
      writer: fileWriter(tmp(parquet)),
      schema: schemaFromColumnData({ columnData }),
      kvMetadata,
      createdBy: 'openiti-rag',
    });
    if (group.length > 0) await pq.write({ columnData, rowGroupSize: group.length });
    // One write per group into an output buffer larger than its compressed CSV: gzip compresses it on libuv's
    // thread pool in one go while the next group's rows and Parquet pages are made here; it is awaited only then,
    // so at most one group's CSV waits in memory.
    if (gzip.writableNeedDrain) await once(gzip, 'drain');
    gzip.write(aq.table(Object.fromEntries(columnData.map((c) => [c.name, c.data]))).toCSV({ header }));
    header = false;
  }
  await pq!.finish();
  gzip.end();
  await csvDone;
  renameSync(tmp(parquet), parquet);
  renameSync(tmp(csv), csv);
  return [...TIDY_FILES];
}

/** Remove an earlier run's tidy files (the analysis wrote none this time). */
export function removeTidyFiles(dir: string): void {
  for (const f of TIDY_FILES) rmSync(`${dir}/${f}`, { force: true });
}
