/** corpus.jsonl, the build's output: its record, streaming and whole-file reading, atomic writing. */
import { JsonlParseError, readJsonl, writeJsonlAtomic } from '../io/jsonl';
import { codePointLength } from './char-classes';

/** One line of corpus.jsonl (docs/corpus.md#corpusjsonl); the key order is part of the format. */
export interface CorpusSentence {
  text: string;
  source_uri: string;
  date: number;
  char_len: number;
  idx: number;
}

function checkSentence(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'record is not an object';
  const r = v as Record<string, unknown>;
  if (typeof r.text !== 'string' || r.text.length === 0) return 'field "text" must be a non-empty string';
  if (typeof r.source_uri !== 'string' || r.source_uri.length === 0) return 'field "source_uri" must be a non-empty string';
  for (const f of ['date', 'char_len', 'idx'] as const) if (!Number.isInteger(r[f])) return `field "${f}" must be an integer`;
  return null;
}

/** Stream a corpus.jsonl (flat memory); a malformed record throws with file:line and the field. */
export async function* readCorpus(file: string): AsyncGenerator<CorpusSentence> {
  for await (const { value, line } of readJsonl<CorpusSentence>(file)) {
    const problem = checkSentence(value);
    if (problem) throw new JsonlParseError(file, line, problem);
    yield value;
  }
}

/** Read a whole corpus into memory (fine for the 200k-sentence target). */
export async function loadCorpus(file: string): Promise<CorpusSentence[]> {
  const out: CorpusSentence[] = [];
  for await (const s of readCorpus(file)) out.push(s);
  return out;
}

/**
 * Write sentences as corpus.jsonl atomically, in the given order, with `idx`
 * renumbered from 0 and `char_len` recomputed, in the key order of docs/corpus.md#corpusjsonl.
 */
export function saveCorpus(file: string, sentences: Iterable<Pick<CorpusSentence, 'text' | 'source_uri' | 'date'>>): number {
  let idx = 0;
  const records: CorpusSentence[] = [];
  for (const s of sentences)
    records.push({ text: s.text, source_uri: s.source_uri, date: s.date, char_len: codePointLength(s.text), idx: idx++ });
  writeJsonlAtomic(file, records);
  return idx;
}
