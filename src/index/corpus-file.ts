/** Reading corpus.jsonl records for indexing (only the fields the index needs are required). */
import { createReadStream } from 'node:fs';
import { JsonlParseError, readJsonl } from '../io/jsonl';

export interface IndexedSentence {
  idx: number;
  text: string;
  source_uri: string;
  date: number | null;
}

/**
 * Stream corpus records in file order, checking that `text` is a non-empty string and `idx` equals the
 * record's position (the index uses idx as the vector key and the row number). `source_uri` and `date`
 * may be absent (generic corpora): they become "" and null.
 */
export async function* readCorpusForIndex(file: string, skip = 0): AsyncGenerator<IndexedSentence> {
  let row = 0;
  for await (const { value, line } of readJsonl<Record<string, unknown>>(file)) {
    const r = value;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new JsonlParseError(file, line, 'record is not an object');
    if (typeof r.text !== 'string' || r.text.length === 0) throw new JsonlParseError(file, line, 'field "text" must be a non-empty string');
    const idx = r.idx ?? row;
    if (idx !== row)
      throw new JsonlParseError(
        file,
        line,
        `field "idx" is ${JSON.stringify(r.idx)} but this is record ${row}; idx must count 0, 1, 2, … in file order`,
      );
    if (row++ < skip) continue;
    yield {
      idx: idx as number,
      text: r.text,
      source_uri: typeof r.source_uri === 'string' ? r.source_uri : '',
      date: typeof r.date === 'number' ? r.date : null,
    };
  }
}

/** Number of non-blank lines (records) in a JSONL file, without parsing. */
export async function countJsonlRecords(file: string): Promise<number> {
  let records = 0;
  let lineHasContent = false;
  for await (const chunk of createReadStream(file)) {
    const buf = chunk as Buffer;
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i];
      if (b === 0x0a) {
        if (lineHasContent) records++;
        lineHasContent = false;
      } else if (b !== 0x20 && b !== 0x0d && b !== 0x09) lineHasContent = true;
    }
  }
  return lineHasContent ? records + 1 : records;
}
