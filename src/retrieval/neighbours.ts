/**
 * Context windows (docs/retrieval.md#retriever-options: ± n units around each hit) with batched lookups — never one file read per hit.
 *
 * - CorpusNeighbours: neighbours are the corpus units idx ± j with the same source_uri. Right for corpora
 *   that hold whole documents in order (generic corpora: consecutive chunks of a file).
 * - OpenITINeighbours: the OpenITI corpus is a *sample* of lines, so idx ± 1 is usually another book;
 *   neighbours come from the original file instead. Hits are grouped by source_uri, each file is parsed
 *   once per batch (and kept in a small LRU cache), and a hit is placed by its `line` (the proposed
 *   corpus.jsonl field) or, without it, by the first content line whose text equals the hit (the corpus
 *   builder keeps a file's first occurrence of a repeated line, so that is the same line).
 */
import path from 'node:path';
import { DEFAULT_METADATA_RELPATH, readMetadata, resolveTextPath } from '../openiti/metadata';
import { childLogger } from '../util/log';
import { findLine, readSourceLines, type SourceLine } from './source-lines';
import type { CorpusStore } from './store';

const log = childLogger('neighbours');

export interface NeighbourQuery {
  idx: number;
  source_uri: string;
  text: string;
  line?: number | null;
}

export interface Neighbourhood {
  before: string[];
  after: string[];
  /** The hit's physical line in its source file when the lookup established it. */
  line: number | null;
  /** Why no window could be built (file missing, line not found); null when found. */
  problem: string | null;
}

export interface NeighbourSource {
  readonly kind: string;
  /** Up to `n` units before and after each hit, in the order of `hits`. */
  lookup(hits: readonly NeighbourQuery[], n: number): Promise<Neighbourhood[]>;
}

export class CorpusNeighbours implements NeighbourSource {
  readonly kind = 'corpus';
  constructor(private readonly store: CorpusStore) {}
  async lookup(hits: readonly NeighbourQuery[], n: number): Promise<Neighbourhood[]> {
    const { texts, uris, lines } = this.store;
    return hits.map((h) => {
      if (!(h.idx >= 0 && h.idx < texts.length)) return { before: [], after: [], line: null, problem: `idx ${h.idx} is not in the corpus` };
      const before: string[] = [];
      const after: string[] = [];
      for (let j = h.idx - 1; j >= 0 && before.length < n && uris[j] === h.source_uri; j--) before.unshift(texts[j]);
      for (let j = h.idx + 1; j < texts.length && after.length < n && uris[j] === h.source_uri; j++) after.push(texts[j]);
      return { before, after, line: lines[h.idx] ?? null, problem: null };
    });
  }
}

export interface OpenITINeighboursOptions {
  openitiRoot: string;
  /** Default `<openitiRoot>/metadata/OpenITI_metadata_2023-1-8.csv`. */
  metadataPath?: string;
  /** Parsed files kept between batches (default 16). */
  cacheFiles?: number;
}

interface ParsedFile {
  lines: SourceLine[];
  /** text → first position, built on first use. */
  firstByText: Map<string, number> | null;
}

export class OpenITINeighbours implements NeighbourSource {
  readonly kind = 'openiti';
  private files: Map<string, string> | null = null;
  private readonly cache = new Map<string, ParsedFile>();
  private readonly cacheFiles: number;
  /** Files parsed so far (a batching check for tests and logs). */
  filesParsed = 0;

  constructor(private readonly opts: OpenITINeighboursOptions) {
    this.cacheFiles = opts.cacheFiles ?? 16;
  }

  private async fileOf(uri: string): Promise<string | { problem: string }> {
    if (!this.files) {
      const root = path.resolve(this.opts.openitiRoot);
      const metadataPath = path.resolve(this.opts.metadataPath ?? path.join(root, DEFAULT_METADATA_RELPATH));
      const meta = await readMetadata(metadataPath);
      this.files = new Map();
      for (const row of meta.rows) {
        const r = resolveTextPath(root, path.dirname(metadataPath), row.localPath);
        if (r.ok) this.files.set(row.versionUri, r.file);
      }
    }
    return this.files.get(uri) ?? { problem: `no readable file for ${uri} in the OpenITI metadata` };
  }

  private async parsed(uri: string): Promise<ParsedFile | { problem: string }> {
    const hit = this.cache.get(uri);
    if (hit) {
      this.cache.delete(uri); // LRU: move to the end
      this.cache.set(uri, hit);
      return hit;
    }
    const file = await this.fileOf(uri);
    if (typeof file !== 'string') return file;
    let lines: SourceLine[];
    try {
      lines = await readSourceLines(file);
    } catch (err) {
      return { problem: `cannot read ${file}: ${(err as Error).message}` };
    }
    this.filesParsed++;
    const p: ParsedFile = { lines, firstByText: null };
    this.cache.set(uri, p);
    while (this.cache.size > this.cacheFiles) this.cache.delete(this.cache.keys().next().value as string);
    return p;
  }

  async lookup(hits: readonly NeighbourQuery[], n: number): Promise<Neighbourhood[]> {
    const out: Neighbourhood[] = new Array(hits.length);
    const byUri = new Map<string, number[]>();
    hits.forEach((h, i) => {
      const list = byUri.get(h.source_uri);
      if (list) list.push(i);
      else byUri.set(h.source_uri, [i]);
    });
    let problems = 0;
    for (const [uri, members] of [...byUri.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      const p = await this.parsed(uri);
      for (const i of members) {
        const h = hits[i];
        if ('problem' in p) {
          out[i] = { before: [], after: [], line: h.line ?? null, problem: p.problem };
          problems++;
          continue;
        }
        let pos = h.line ? findLine(p.lines, h.line) : -1;
        if (pos >= 0 && p.lines[pos].text !== h.text) pos = -1; // stale line number: fall back to the text
        if (pos < 0) {
          if (!p.firstByText) {
            p.firstByText = new Map();
            p.lines.forEach((l, j) => {
              if (!p.firstByText!.has(l.text)) p.firstByText!.set(l.text, j);
            });
          }
          pos = p.firstByText.get(h.text) ?? -1;
        }
        if (pos < 0) {
          out[i] = { before: [], after: [], line: h.line ?? null, problem: `sentence idx ${h.idx} not found in ${uri}` };
          problems++;
          continue;
        }
        out[i] = {
          before: p.lines.slice(Math.max(0, pos - n), pos).map((l) => l.text),
          after: p.lines.slice(pos + 1, pos + 1 + n).map((l) => l.text),
          line: p.lines[pos].line,
          problem: null,
        };
      }
    }
    if (problems) log.warn({ problems, hits: hits.length }, 'context window: some hits have no neighbours (see chunk.context.problem)');
    return out;
  }
}
