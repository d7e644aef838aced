/**
 * The corpus as the pipeline needs it in memory: texts (for the lexical index and rerankers), source
 * URIs and, when the corpus records it, each unit's line in its source file (citations, context windows).
 * Loaded from corpus.jsonl or the index's `index.usearch.sentences.jsonl`; records must be in idx order.
 */
import { existsSync } from 'node:fs';
import { JsonlParseError, readJsonl } from '../io/jsonl';

export interface CorpusStore {
  readonly texts: readonly string[];
  readonly uris: readonly string[];
  readonly dates: readonly (number | null)[];
  /** Physical line in the source file (1-based), null when the corpus has no `line` field. */
  readonly lines: readonly (number | null)[];
}

export async function loadCorpusStore(file: string): Promise<CorpusStore> {
  if (!existsSync(file)) throw new Error(`corpus file ${file} does not exist`);
  const texts: string[] = [];
  const uris: string[] = [];
  const dates: (number | null)[] = [];
  const lines: (number | null)[] = [];
  const intern = new Map<string, string>();
  for await (const { value, line } of readJsonl<Record<string, unknown>>(file)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new JsonlParseError(file, line, 'record is not an object');
    if (typeof value.text !== 'string' || value.text.length === 0)
      throw new JsonlParseError(file, line, 'field "text" must be a non-empty string');
    const idx = value.idx ?? texts.length;
    if (idx !== texts.length)
      throw new JsonlParseError(
        file,
        line,
        `field "idx" is ${JSON.stringify(value.idx)}, expected ${texts.length} (records must be in idx order)`,
      );
    if (value.line !== undefined && value.line !== null && !(Number.isInteger(value.line) && (value.line as number) > 0)) {
      throw new JsonlParseError(file, line, 'field "line" must be a positive integer or null');
    }
    const uri = typeof value.source_uri === 'string' ? value.source_uri : '';
    let u = intern.get(uri);
    if (u === undefined) intern.set(uri, (u = uri));
    texts.push(value.text);
    uris.push(u);
    dates.push(typeof value.date === 'number' ? value.date : null);
    lines.push(typeof value.line === 'number' ? value.line : null);
  }
  return { texts, uris, dates, lines };
}

/** A store from in-memory records (tests, the evaluation). */
export function corpusStoreFrom(
  records: readonly { text: string; source_uri?: string; date?: number | null; line?: number | null }[],
): CorpusStore {
  return {
    texts: records.map((r) => r.text),
    uris: records.map((r) => r.source_uri ?? ''),
    dates: records.map((r) => r.date ?? null),
    lines: records.map((r) => r.line ?? null),
  };
}
