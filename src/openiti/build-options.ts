/** The corpus build's options, their defaults and validation (a bad option is a CorpusBuildError naming it). */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ProgressOptions } from '../util/progress';
import { DEFAULT_METADATA_RELPATH, type StatusFilter } from './metadata';
import { DEFAULT_ERAS, validateEras, type EraSpec } from './sampling';
import type { FilterOptions } from './scan-eligible';

export interface CorpusBuildOptions {
  /** OpenITI checkout: holds `data/` and `metadata/`. */
  openitiRoot: string;
  /** Default `<openitiRoot>/metadata/OpenITI_metadata_2023-1-8.csv`. */
  metadataPath?: string;
  /** Where corpus.jsonl goes (written as `<outPath>.tmp-<pid>` and renamed when complete). */
  outPath: string;
  /** Default 200000 (docs/corpus.md#size-targets). */
  maxSentences?: number;
  /** Default 30 (code points). */
  minCharLen?: number;
  /** Default 300 (code points). */
  maxCharLen?: number;
  /** Default "pri" (docs/openiti.md#metadata). */
  statusFilter?: StatusFilter;
  /** Default 42. */
  seed?: number;
  /** Default: the four eras of docs/corpus.md#eras (10/30/30/30). */
  eras?: readonly EraSpec[];
  /** Optional hard cap on sentences from any one file, on top of the author-balanced allocation. */
  maxPerFile?: number | null;
  /** Glob patterns on the version URI to hold out, e.g. `0276IbnQutayba*` (OCR source books). */
  exclude?: readonly string[];
  /** Drop a sentence already written from another file (SHA-256 of its dedup key). Default true. */
  dedupAcrossCorpus?: boolean;
  /** Parser knobs (defaults: 10 Arabic letters, ≤ 20 % foreign letters). */
  minArabicLetters?: number;
  maxForeignLetterRatio?: number;
  /** Progress display (default: bar in a TTY, log lines otherwise). */
  progressMode?: ProgressOptions['mode'];
  /** Cancels between files. */
  signal?: AbortSignal;
}

export class CorpusBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorpusBuildError';
  }
}

export interface ResolvedOptions {
  root: string;
  metadataPath: string;
  outPath: string;
  maxSentences: number;
  minCharLen: number;
  maxCharLen: number;
  statusFilter: StatusFilter;
  seed: number;
  eras: readonly EraSpec[];
  maxPerFile: number | null;
  exclude: readonly string[];
  dedupAcrossCorpus: boolean;
  minArabicLetters: number;
  maxForeignLetterRatio: number;
  progressMode?: ProgressOptions['mode'];
  signal?: AbortSignal;
}

export function resolveOptions(opts: CorpusBuildOptions): ResolvedOptions {
  const fail = (field: string, why: string): never => {
    throw new CorpusBuildError(`corpus options: ${field} ${why}`);
  };
  if (!opts.openitiRoot) fail('openitiRoot', 'is required');
  if (!opts.outPath) fail('outPath', 'is required');
  const root = path.resolve(opts.openitiRoot);
  if (!existsSync(root) || !statSync(root).isDirectory())
    fail('openitiRoot', `${root} is not a directory (set data.openiti / --openiti-root to an OpenITI checkout)`);
  const metadataPath = path.resolve(opts.metadataPath ?? path.join(root, DEFAULT_METADATA_RELPATH));
  if (!existsSync(metadataPath)) fail('metadataPath', `${metadataPath} does not exist`);
  const int = (field: string, v: number | undefined, def: number, min: number): number => {
    const x = v ?? def;
    if (!Number.isInteger(x) || x < min) fail(field, `must be an integer ≥ ${min} (got ${x})`);
    return x;
  };
  const maxSentences = int('maxSentences', opts.maxSentences, 200_000, 1);
  const minCharLen = int('minCharLen', opts.minCharLen, 30, 1);
  const maxCharLen = int('maxCharLen', opts.maxCharLen, 300, 1);
  if (minCharLen > maxCharLen) fail('minCharLen', `(${minCharLen}) is greater than maxCharLen (${maxCharLen})`);
  const statusFilter = opts.statusFilter ?? 'pri';
  if (!['pri', 'sec', 'all'].includes(statusFilter))
    fail('statusFilter', `must be "pri", "sec" or "all" (got ${JSON.stringify(statusFilter)})`);
  const seed = opts.seed ?? 42;
  if (!Number.isInteger(seed)) fail('seed', `must be an integer (got ${seed})`);
  const eras = opts.eras ?? DEFAULT_ERAS;
  validateEras(eras);
  const maxPerFile = opts.maxPerFile ?? null;
  if (maxPerFile !== null && (!Number.isInteger(maxPerFile) || maxPerFile < 1))
    fail('maxPerFile', `must be a positive integer or null (got ${maxPerFile})`);
  const exclude = opts.exclude ?? [];
  if (!Array.isArray(exclude) || exclude.some((p) => typeof p !== 'string' || p === ''))
    fail('exclude', 'must be a list of non-empty glob patterns');
  const maxForeignLetterRatio = opts.maxForeignLetterRatio ?? 0.2;
  if (!(maxForeignLetterRatio >= 0 && maxForeignLetterRatio <= 1)) fail('maxForeignLetterRatio', 'must be in [0, 1]');
  return {
    root,
    metadataPath,
    outPath: path.resolve(opts.outPath),
    maxSentences,
    minCharLen,
    maxCharLen,
    statusFilter,
    seed,
    eras,
    maxPerFile,
    exclude,
    dedupAcrossCorpus: opts.dedupAcrossCorpus ?? true,
    minArabicLetters: int('minArabicLetters', opts.minArabicLetters, 10, 0),
    maxForeignLetterRatio,
    progressMode: opts.progressMode,
    signal: opts.signal,
  };
}

export function filterOptions(o: ResolvedOptions): FilterOptions {
  return {
    minCharLen: o.minCharLen,
    maxCharLen: o.maxCharLen,
    minArabicLetters: o.minArabicLetters,
    maxForeignLetterRatio: o.maxForeignLetterRatio,
  };
}
