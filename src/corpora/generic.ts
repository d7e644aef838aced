/**
 * Generic corpora besides OpenITI: JSONL records (`text` + metadata) and folders of .txt / .md files,
 * chunked by tokens with overlap and heading hints (docs/corpus.md#generic-corpora: 900 / 180), written in the corpus.jsonl
 * schema the index reads — `{text, source_uri, date, char_len, idx}` first, then chunk fields
 * (`chunk`, `char_start`, `char_end`, `tokens`, `heading`, `sha256`) and the selected metadata.
 *
 * Output is deterministic (sources in the given order, files sorted, stable JSON), so the corpus sha256
 * changes exactly when the content or the chunking changes; the index manifest records that hash, so
 * `RAGRetriever.buildIndex` re-embeds on a content change and skips the work otherwise (docs/corpus.md#generic-corpora). Chunks whose normalised text repeats an earlier chunk (SHA-256) are
 * dropped and counted (docs/corpus.md#generic-corpora). Bad input is counted with file:line examples.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { TextTokenizer } from '../embed/tokenizer';
import { JsonlAppender } from '../io/jsonl';
import { codePointLength } from '../openiti/char-classes';
import { dedupText } from '../retrieval/text';
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { chunkText, type ChunkOptions, type TextChunk } from './chunk';

const log = childLogger('corpora');

export interface JsonlSource {
  type: 'jsonl';
  path: string;
  /** Field holding the text (default "text"). */
  text_field?: string;
  /** Field naming the record in source_uri (`<file>#<id>`; default: the line number). */
  id_field?: string | null;
  /** Integer field copied to `date` (default "date" when present; else null). */
  date_field?: string | null;
  /** Extra fields copied to every chunk of the record (default none). */
  metadata_fields?: string[];
}

export interface FolderSource {
  type: 'folder';
  path: string;
  /** File name endings to read (default .txt, .md). */
  extensions?: string[];
  recursive?: boolean;
}

export type GenericSource = JsonlSource | FolderSource;

export interface GenericCorpusOptions {
  sources: GenericSource[];
  outPath: string;
  chunk?: { size?: number; overlap?: number; sentence_bias?: number; heading_pattern?: string | null };
  /** tokenizer.json whose tokens chunk_size counts (default: whitespace words). */
  tokenizerFile?: string | null;
  /** Drop chunks whose normalised text repeats an earlier one (default true). */
  dedup?: boolean;
  /** What a bad JSONL line does: skip and count (default) or fail. */
  onBadLine?: 'skip' | 'fail';
}

export type GenericProblem = 'bad_line' | 'empty_text' | 'unreadable' | 'not_utf8';

export interface GenericCorpusSummary {
  outPath: string;
  corpusSha256: string;
  records: number;
  documents: number;
  chunks: number;
  duplicates: number;
  problems: Record<GenericProblem, number>;
  examples: Partial<Record<GenericProblem, string[]>>;
  chunking: { size: number; overlap: number; unit: 'words' | 'tokenizer' };
}

export class GenericCorpusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenericCorpusError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function listFiles(root: string, exts: string[], recursive: boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (recursive) walk(p);
      } else if (e.isFile() && exts.some((x) => e.name.toLowerCase().endsWith(x.toLowerCase()))) out.push(p);
    }
  };
  walk(root);
  return out;
}

interface Doc {
  uri: string;
  text: string;
  date: number | null;
  meta: Record<string, unknown>;
}

export async function buildGenericCorpus(opts: GenericCorpusOptions): Promise<GenericCorpusSummary> {
  if (!opts.sources?.length) throw new GenericCorpusError('generic corpus: no sources given');
  const chunking = resolveChunking(opts);
  const problems = new ProblemLog();
  const out = path.resolve(opts.outPath);
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const writer = new ChunkWriter(new JsonlAppender(tmp), chunking.options, opts.dedup ?? true, problems);
  try {
    for (const src of opts.sources) readSource(src, opts.onBadLine, writer, problems);
  } catch (err) {
    writer.close();
    rmSync(tmp, { force: true });
    throw err;
  }
  writer.close();
  const idx = writer.records;
  if (idx === 0) {
    rmSync(tmp, { force: true });
    throw new GenericCorpusError(
      `generic corpus: no text found in ${opts.sources.map((s) => s.path).join(', ')} (problems: ${JSON.stringify(problems.counts)})`,
    );
  }
  renameSync(tmp, out);
  const summary: GenericCorpusSummary = {
    outPath: out,
    corpusSha256: await sha256File(out),
    records: idx,
    documents: writer.documents,
    chunks: writer.chunks,
    duplicates: writer.duplicates,
    problems: problems.counts,
    examples: problems.examples,
    chunking: { size: chunking.size, overlap: chunking.overlap, unit: chunking.tokenizer ? 'tokenizer' : 'words' },
  };
  log.info(
    { out, records: idx, documents: writer.documents, duplicates: writer.duplicates, problems: problems.counts },
    `generic corpus: wrote ${idx} chunks`,
  );
  return summary;
}

interface Chunking {
  size: number;
  overlap: number;
  tokenizer: TextTokenizer | null;
  options: ChunkOptions;
}

/** Chunk options from the corpus options, validated before any output is written. */
function resolveChunking(opts: GenericCorpusOptions): Chunking {
  const size = opts.chunk?.size ?? 900;
  const overlap = opts.chunk?.overlap ?? 180;
  const tokenizer = opts.tokenizerFile ? TextTokenizer.load(opts.tokenizerFile) : null;
  const options: ChunkOptions = {
    size,
    overlap,
    countTokens: tokenizer ? tokenCounter(tokenizer) : undefined,
    sentenceBias: opts.chunk?.sentence_bias,
    headingPattern:
      opts.chunk?.heading_pattern === null ? null : opts.chunk?.heading_pattern ? new RegExp(opts.chunk.heading_pattern) : undefined,
  };
  chunkText('', options); // validates size/overlap before any output
  return { size, overlap, tokenizer, options };
}

/** Tokens of one word without the tokenizer's special tokens (at least 1), memoised for common words. */
function tokenCounter(tokenizer: TextTokenizer): (word: string) => number {
  const specials = tokenizer.prefixSpecials + tokenizer.suffixSpecials;
  const cache = new Map<string, number>();
  return (w: string) => {
    let n = cache.get(w);
    if (n === undefined) {
      n = Math.max(1, tokenizer.tokens(w).length - specials);
      if (cache.size < 200_000) cache.set(w, n);
    }
    return n;
  };
}

/** Bad input, counted by kind, with up to 10 examples each; the first 20 of each kind are logged. */
class ProblemLog {
  readonly counts: Record<GenericProblem, number> = { bad_line: 0, empty_text: 0, unreadable: 0, not_utf8: 0 };
  readonly examples: Partial<Record<GenericProblem, string[]>> = {};

  add(kind: GenericProblem, where: string): void {
    this.counts[kind]++;
    const list = (this.examples[kind] ??= []);
    if (list.length < 10) list.push(where);
    if (this.counts[kind] <= 20) log.warn({ kind, where }, `generic corpus: ${kind} — skipped`);
  }
}

/** Chunks documents and appends the chunks, numbered, skipping repeats of an earlier chunk. */
class ChunkWriter {
  records = 0;
  documents = 0;
  chunks = 0;
  duplicates = 0;
  private readonly seen = new Set<string>();

  constructor(
    private readonly writer: JsonlAppender,
    private readonly chunkOpts: ChunkOptions,
    private readonly dedup: boolean,
    private readonly problems: ProblemLog,
  ) {}

  emit(doc: Doc): void {
    this.documents++;
    chunkText(doc.text, this.chunkOpts).forEach((c, i) => this.writeChunk(doc, c, i));
  }

  close(): void {
    this.writer.close();
  }

  private writeChunk(doc: Doc, c: TextChunk, i: number): void {
    this.chunks++;
    const norm = dedupText(c.text);
    if (!norm) {
      this.problems.add('empty_text', `${doc.uri} chunk ${i} (no letters or digits)`);
      return;
    }
    const digest = createHash('sha256').update(norm, 'utf8').digest('hex');
    if (this.dedup) {
      if (this.seen.has(digest)) {
        this.duplicates++;
        return;
      }
      this.seen.add(digest);
    }
    this.writer.write({
      text: c.text,
      source_uri: doc.uri,
      date: doc.date,
      char_len: codePointLength(c.text),
      idx: this.records++,
      chunk: i,
      char_start: c.char_start,
      char_end: c.char_end,
      tokens: c.tokens,
      heading: c.heading,
      sha256: digest,
      ...doc.meta,
    });
  }
}

type BadLinePolicy = GenericCorpusOptions['onBadLine'];

function readSource(src: GenericSource, onBadLine: BadLinePolicy, writer: ChunkWriter, problems: ProblemLog): void {
  const root = path.resolve(src.path);
  if (!existsSync(root)) throw new GenericCorpusError(`generic corpus: source ${root} does not exist`);
  if (src.type === 'folder') readFolderSource(root, src, writer, problems);
  else if (src.type === 'jsonl') readJsonlSource(root, src, onBadLine, writer, problems);
  else
    throw new GenericCorpusError(
      `generic corpus: unknown source type ${JSON.stringify((src as { type: unknown }).type)} (expected "jsonl" or "folder")`,
    );
}

/** One document per text file (sorted paths); source_uri is `<folder name>/<relative path>`. */
function readFolderSource(root: string, src: FolderSource, writer: ChunkWriter, problems: ProblemLog): void {
  if (!statSync(root).isDirectory()) throw new GenericCorpusError(`generic corpus: folder source ${root} is not a directory`);
  const base = path.basename(root);
  for (const file of listFiles(root, src.extensions ?? ['.txt', '.md'], src.recursive ?? true)) {
    let text: string;
    try {
      text = utf8.decode(readFileSync(file)).replace(/^\ufeff/, '');
    } catch (err) {
      problems.add((err as NodeJS.ErrnoException).code ? 'unreadable' : 'not_utf8', file);
      continue;
    }
    if (!text.trim()) {
      problems.add('empty_text', file);
      continue;
    }
    writer.emit({ uri: `${base}/${path.relative(root, file).split(path.sep).join('/')}`, text, date: null, meta: {} });
  }
}

/** One document per JSONL record; source_uri is `<file name>#<id field or line number>`. */
function readJsonlSource(root: string, src: JsonlSource, onBadLine: BadLinePolicy, writer: ChunkWriter, problems: ProblemLog): void {
  const cx: JsonlContext = { root, name: path.basename(root), src, onBadLine, problems };
  const lines = readFileSync(root, 'utf8').split('\n');
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    const doc = jsonlDoc(raw, i + 1, cx);
    if (doc) writer.emit(doc);
  });
}

interface JsonlContext {
  root: string;
  /** File name, the source_uri prefix. */
  name: string;
  src: JsonlSource;
  onBadLine: BadLinePolicy;
  problems: ProblemLog;
}

/** The document of JSONL line `lineNo`, or null for a bad or empty record (counted, or thrown with onBadLine "fail"). */
function jsonlDoc(raw: string, lineNo: number, cx: JsonlContext): Doc | null {
  const where = `${cx.root}:${lineNo}`;
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(raw);
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) throw new Error('not an object');
  } catch (err) {
    if (cx.onBadLine === 'fail') throw new GenericCorpusError(`${where}: not a JSON object (${(err as Error).message})`);
    cx.problems.add('bad_line', `${where}: not a JSON object`);
    return null;
  }
  const textField = cx.src.text_field ?? 'text';
  const text = rec[textField];
  if (typeof text !== 'string') {
    if (cx.onBadLine === 'fail') throw new GenericCorpusError(`${where}: field "${textField}" must be a string`);
    cx.problems.add('bad_line', `${where}: field "${textField}" missing or not a string`);
    return null;
  }
  if (!text.trim()) {
    cx.problems.add('empty_text', where);
    return null;
  }
  return recordDoc(rec, text, lineNo, cx);
}

/** source_uri, date and the selected metadata fields of a record with valid text. */
function recordDoc(rec: Record<string, unknown>, text: string, lineNo: number, cx: JsonlContext): Doc {
  const { src } = cx;
  const id = src.id_field ? rec[src.id_field] : undefined;
  const dateField = src.date_field === undefined ? 'date' : src.date_field;
  const date = dateField && Number.isInteger(rec[dateField]) ? (rec[dateField] as number) : null;
  const meta: Record<string, unknown> = {};
  for (const f of src.metadata_fields ?? [])
    if (f in rec && !['text', 'source_uri', 'date', 'char_len', 'idx'].includes(f)) meta[f] = rec[f];
  return { uri: `${cx.name}#${id !== undefined && id !== null && id !== '' ? String(id) : lineNo}`, text, date, meta };
}
