/**
 * A real golden set for retrieval: OCR_GS lines whose printed book has a digital edition in the OpenITI
 * slice (Ibn Qutayba's Adab al-Katib, al-Yaʿqubi's Tarikh). Each *gold* transcription is located in its
 * source file (FuzzyLocator); the units it overlaps are the relevant sentences, and the task is to
 * retrieve one of them from the *OCR* text.
 *
 * The evaluation corpus holds, deterministically:
 *   - every unit of the source files within ±`window` units of a located gold line (the hard negatives:
 *     same page, same author, same topic),
 *   - `sameBookSample` further units of the source files,
 *   - `distractors` sentences from the rest of the slice, sampled by the corpus builder with the two books
 *     excluded (date-stratified, as the study corpus is),
 * with the study corpus' length filter (min/max characters) and duplicate key. A line is *evaluable* when
 * its gold line matched with quality ≥ minQuality and at least one relevant unit is in the corpus; the
 * others are counted by reason, never silently dropped.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadDataset, type OcrSample } from '../datasets';
import { buildCorpus } from '../openiti/build-corpus';
import { loadCorpus, type CorpusSentence } from '../openiti/corpus-file';
import { DEFAULT_METADATA_RELPATH, globToRegExp, readMetadata, resolveTextPath } from '../openiti/metadata';
import { codePointLength } from '../openiti/char-classes';
import { dedupKey } from '../openiti/scan-eligible';
import { seededKey } from '../openiti/sampling';
import { readSourceLines, type SourceLine } from '../retrieval/source-lines';
import { sha256Text } from '../util/hash';
import { childLogger } from '../util/log';
import { FuzzyLocator, type Location } from './locate';

const log = childLogger('eval');

export interface GoldenBook {
  /** Dataset key, e.g. "OCR_GS-IbnQutayba.Adab". */
  key: string;
  /** Folder under the OCR_GS root. */
  folder: string;
  /** Version-URI glob of the book's OpenITI versions (also what the distractor sample excludes). */
  sourcePattern: string;
}

export const DEFAULT_GOLDEN_BOOKS: readonly GoldenBook[] = [
  { key: 'OCR_GS-IbnQutayba.Adab', folder: 'book_IbnQutayba.Adab', sourcePattern: '0276IbnQutaybaDinawari.AdabKatib*' },
  { key: 'OCR_GS-Yacqubi.Tarikh', folder: 'book_Yacqubi.Tarikh', sourcePattern: '0292Yacqubi.Tarikh*' },
];

export interface GoldenOptions {
  openitiRoot: string;
  ocrGsRoot: string;
  /** Where the distractor sample is cached. */
  cacheDir: string;
  books?: readonly GoldenBook[];
  /** Which versions of a book are its source: the primary one (as in a study corpus, default) or all. */
  sourceStatus?: 'pri' | 'all';
  /** At most this many OCR lines per book (the first ones, consecutive pages); null = all. */
  linesPerBook?: number | null;
  /** Gold-to-source match quality needed (1 − edits/length; default 0.85). */
  minQuality?: number;
  /** Source units kept around each located line (default 2). */
  window?: number;
  sameBookSample?: number;
  distractors?: number;
  minCharLen?: number;
  maxCharLen?: number;
  seed?: number;
  onProgress?: (done: number, total: number, stage: string) => void;
}

export interface EvalCorpusRecord {
  text: string;
  source_uri: string;
  date: number;
  char_len: number;
  idx: number;
  /** 1-based physical line in the source file (the proposed corpus.jsonl field); null for distractors. */
  line: number | null;
  /** "source" (a golden book) or "distractor". */
  origin: 'source' | 'distractor';
}

export type LineStatus = 'evaluable' | 'no_match' | 'low_quality' | 'relevant_not_in_corpus';

export interface GoldenLine {
  sample_id: string;
  dataset: string;
  ocr_text: string;
  gt_text: string;
  status: LineStatus;
  /** Match quality of the gold line in its source (null without a match). */
  quality: number | null;
  source_uri: string | null;
  /** Source lines the gold line overlaps, with overlap in key characters. */
  units: { line: number; overlap: number; unit_length: number; relevant: boolean; idx: number | null }[];
  /** Corpus idx of the relevant sentences (empty unless evaluable). */
  relevant: number[];
}

export interface GoldenSet {
  lines: GoldenLine[];
  corpus: EvalCorpusRecord[];
  summary: {
    books: { key: string; sources: string[]; lines: number; evaluable: number; by_status: Record<LineStatus, number> }[];
    lines: number;
    evaluable: number;
    by_status: Record<LineStatus, number>;
    corpus: { total: number; source_units: number; distractors: number; duplicates_dropped: number; too_short_or_long: number };
    options: Required<Omit<GoldenOptions, 'onProgress' | 'books' | 'cacheDir'>> & { books: GoldenBook[] };
  };
}

const STATUSES: LineStatus[] = ['evaluable', 'no_match', 'low_quality', 'relevant_not_in_corpus'];

/**
 * A unit is relevant when the matched span covers at least 30 % of the gold line or at least half of the
 * unit (a short unit wholly inside the line), and at least 8 letters either way.
 */
export function isRelevantOverlap(overlap: number, goldLength: number, unitLength: number): boolean {
  return overlap >= 8 && (overlap >= 0.3 * goldLength || overlap >= 0.5 * unitLength);
}

interface SourceDoc {
  uri: string;
  date: number;
  lines: SourceLine[];
}

interface BookSources {
  book: GoldenBook;
  docs: SourceDoc[];
}

async function sourcesOf(o: { openitiRoot: string; books: readonly GoldenBook[]; sourceStatus: 'pri' | 'all' }): Promise<BookSources[]> {
  const root = path.resolve(o.openitiRoot);
  const metadataPath = path.join(root, DEFAULT_METADATA_RELPATH);
  const meta = await readMetadata(metadataPath);
  const out: BookSources[] = [];
  for (const book of o.books) {
    const re = globToRegExp(book.sourcePattern);
    const rows = meta.rows.filter((r) => re.test(r.versionUri) && (o.sourceStatus === 'all' || r.status === 'pri'));
    if (rows.length === 0)
      throw new Error(
        `golden book ${book.key}: no ${o.sourceStatus === 'pri' ? 'primary ' : ''}version matching ${book.sourcePattern} in ${metadataPath}`,
      );
    const docs = [];
    for (const r of rows.sort((a, b) => (a.versionUri < b.versionUri ? -1 : 1))) {
      const f = resolveTextPath(root, path.dirname(metadataPath), r.localPath);
      if (!f.ok) throw new Error(`golden book ${book.key}: source ${r.versionUri} is not readable (${f.detail})`);
      docs.push({ uri: r.versionUri, date: r.date, lines: await readSourceLines(f.file) });
    }
    out.push({ book, docs });
  }
  return out;
}

/** Distractor sentences from the rest of the slice (cached by options). */
async function distractorSample(o: {
  openitiRoot: string;
  cacheDir: string;
  count: number;
  exclude: string[];
  minCharLen: number;
  maxCharLen: number;
  seed: number;
}) {
  if (o.count === 0) return [];
  const key = sha256Text(JSON.stringify({ ...o, cacheDir: undefined, v: 1 })).slice(0, 16);
  const file = path.join(o.cacheDir, `distractors-${key}.jsonl`);
  if (!existsSync(file)) {
    mkdirSync(o.cacheDir, { recursive: true });
    const tmp = `${file}.build`;
    rmSync(tmp, { force: true });
    await buildCorpus({
      openitiRoot: o.openitiRoot,
      outPath: tmp,
      maxSentences: o.count,
      exclude: o.exclude,
      minCharLen: o.minCharLen,
      maxCharLen: o.maxCharLen,
      seed: o.seed,
      statusFilter: 'pri',
      progressMode: 'silent',
    });
    renameSync(tmp, file);
  }
  return loadCorpus(file);
}

type ResolvedGoldenOptions = GoldenSet['summary']['options'];
type Located = { sample: OcrSample; book: BookSources; loc: Location | null };
type SourceRecord = Omit<EvalCorpusRecord, 'idx'>;

export async function buildGoldenSet(opts: GoldenOptions): Promise<GoldenSet> {
  const o = resolveGoldenOptions(opts);
  const sources = await sourcesOf({ openitiRoot: o.openitiRoot, books: o.books, sourceStatus: o.sourceStatus });
  const total = sources.length;

  // 1. Locate every gold line in its book's source(s).
  const located = await locateGoldLines(sources, o, opts.onProgress);

  // 2. Source units to include: windows around located lines, then a seeded sample of the rest.
  const { records: sourceRecords, tooShortOrLong } = sourceUnitRecords(sources, windowPositions(sources, located, o), o);

  // 3. Distractors from the rest of the slice.
  const distractors = await distractorSample({
    openitiRoot: o.openitiRoot,
    cacheDir: opts.cacheDir,
    count: o.distractors,
    exclude: o.books.map((b) => b.sourcePattern),
    minCharLen: o.minCharLen,
    maxCharLen: o.maxCharLen,
    seed: o.seed,
  });
  opts.onProgress?.(total, total, 'distractors');

  // 4. Corpus with duplicate keys dropped (first kept), idx in order.
  const { corpus, idxOf, duplicates } = dedupedCorpus([...sourceRecords, ...distractors.map(distractorRecord)]);

  // 5. Golden lines.
  const lines = located.map((l) => goldenLine(l, idxOf, o.minQuality));
  const summary = goldenSummary(sources, lines, corpus, { duplicates, tooShortOrLong }, o);
  log.info(
    { lines: summary.lines, evaluable: summary.evaluable, by_status: summary.by_status, corpus: summary.corpus },
    'golden set built',
  );
  return { lines, corpus, summary };
}

/** Options with defaults (the key order is the summary's); throws on out-of-range values. */
function resolveGoldenOptions(opts: GoldenOptions): ResolvedGoldenOptions {
  const o = {
    books: [...(opts.books ?? DEFAULT_GOLDEN_BOOKS)],
    sourceStatus: opts.sourceStatus ?? 'pri',
    linesPerBook: opts.linesPerBook ?? null,
    minQuality: opts.minQuality ?? 0.85,
    window: opts.window ?? 2,
    sameBookSample: opts.sameBookSample ?? 300,
    distractors: opts.distractors ?? 1500,
    minCharLen: opts.minCharLen ?? 30,
    maxCharLen: opts.maxCharLen ?? 300,
    seed: opts.seed ?? 42,
    openitiRoot: opts.openitiRoot,
    ocrGsRoot: opts.ocrGsRoot,
  };
  if (!(o.minQuality >= 0 && o.minQuality <= 1)) throw new RangeError(`minQuality must be in [0, 1], got ${o.minQuality}`);
  for (const [k, v] of Object.entries({ window: o.window, sameBookSample: o.sameBookSample, distractors: o.distractors })) {
    if (!(Number.isInteger(v) && v >= 0)) throw new RangeError(`${k} must be a non-negative integer, got ${v}`);
  }
  return o;
}

/** The study corpus' length filter, in code points. */
function fitsLength(text: string, o: ResolvedGoldenOptions): boolean {
  const n = codePointLength(text);
  return n >= o.minCharLen && n <= o.maxCharLen;
}

/** Each book's OCR_GS lines (up to linesPerBook), with where their gold text sits in the book's sources. */
async function locateGoldLines(
  sources: readonly BookSources[],
  o: ResolvedGoldenOptions,
  onProgress: GoldenOptions['onProgress'],
): Promise<Located[]> {
  const located: Located[] = [];
  let booksDone = 0;
  for (const bs of sources) {
    const ds = await loadDataset(
      { key: bs.book.key, type: 'paired_dir', path: path.join(o.ocrGsRoot, bs.book.folder) },
      { limit: o.linesPerBook ?? undefined },
    );
    const locator = new FuzzyLocator(bs.docs.map((d) => ({ uri: d.uri, lines: d.lines })));
    for (const s of ds.samples) located.push({ sample: s, book: bs, loc: locator.locate(s.gt_text) });
    onProgress?.(++booksDone, sources.length, 'locate');
  }
  return located;
}

/** Per source URI, the positions (in doc.lines) within ±window units of a well-located gold line. */
function windowPositions(sources: readonly BookSources[], located: readonly Located[], o: ResolvedGoldenOptions): Map<string, Set<number>> {
  const docOf = new Map<string, SourceDoc>();
  for (const bs of sources) for (const d of bs.docs) docOf.set(d.uri, d);
  const chosen = new Map<string, Set<number>>(); // uri → positions in doc.lines
  for (const { loc } of located) {
    if (!loc || loc.quality < o.minQuality) continue;
    const d = docOf.get(loc.uri)!;
    const set = chosen.get(loc.uri) ?? new Set<number>();
    chosen.set(loc.uri, set);
    const first = loc.units[0].pos;
    const last = loc.units[loc.units.length - 1].pos;
    for (let p = Math.max(0, first - o.window); p <= Math.min(d.lines.length - 1, last + o.window); p++) set.add(p);
  }
  return chosen;
}

/**
 * The corpus records of the source books: the chosen windows plus each doc's share of sameBookSample,
 * in file order; units outside the length filter are counted, not kept.
 */
function sourceUnitRecords(
  sources: readonly BookSources[],
  chosen: Map<string, Set<number>>,
  o: ResolvedGoldenOptions,
): { records: SourceRecord[]; tooShortOrLong: number } {
  let tooShortOrLong = 0;
  const records: SourceRecord[] = [];
  for (const bs of sources) {
    for (const d of bs.docs) {
      const set = chosen.get(d.uri) ?? new Set<number>();
      addSameBookSample(set, d, Math.round(o.sameBookSample / (sources.length * bs.docs.length)), o);
      for (const p of [...set].sort((a, b) => a - b)) {
        const l = d.lines[p];
        if (!fitsLength(l.text, o)) {
          tooShortOrLong++;
          continue;
        }
        records.push({ text: l.text, source_uri: d.uri, date: d.date, char_len: codePointLength(l.text), line: l.line, origin: 'source' });
      }
    }
  }
  return { records, tooShortOrLong };
}

/** Extra units of the same book: the `count` lowest seeded priorities among the eligible units not chosen yet. */
function addSameBookSample(set: Set<number>, d: SourceDoc, count: number, o: ResolvedGoldenOptions): void {
  const rest = d.lines
    .map((l, p) => ({ p, key: seededKey(o.seed, `${d.uri}:${l.line}`) }))
    .filter((x) => !set.has(x.p) && fitsLength(d.lines[x.p].text, o));
  rest.sort((a, b) => a.key - b.key || a.p - b.p);
  for (const x of rest.slice(0, count)) set.add(x.p);
}

function distractorRecord(s: CorpusSentence): SourceRecord {
  return { text: s.text, source_uri: s.source_uri, date: s.date, char_len: s.char_len, line: null, origin: 'distractor' };
}

/**
 * The records numbered in order, a repeated dedup key dropped (the first copy kept); `idxOf` maps each
 * source unit (`uri:line`) to its record's idx, a dropped duplicate to the kept copy.
 */
function dedupedCorpus(records: readonly SourceRecord[]): { corpus: EvalCorpusRecord[]; idxOf: Map<string, number>; duplicates: number } {
  const corpus: EvalCorpusRecord[] = [];
  const byKey = new Map<string, number>();
  const idxOf = new Map<string, number>(); // `${uri}:${line}` → idx (duplicates map to the kept copy)
  let duplicates = 0;
  for (const r of records) {
    const key = dedupKey(r.text);
    const existing = byKey.get(key);
    if (existing !== undefined) {
      duplicates++;
      if (r.origin === 'source') idxOf.set(`${r.source_uri}:${r.line}`, existing);
      continue;
    }
    const idx = corpus.length;
    byKey.set(key, idx);
    if (r.origin === 'source') idxOf.set(`${r.source_uri}:${r.line}`, idx);
    corpus.push({ ...r, idx });
  }
  return { corpus, idxOf, duplicates };
}

/** One OCR line with its status, the source units its gold text overlaps and the relevant corpus idx. */
function goldenLine({ sample, loc }: Located, idxOf: ReadonlyMap<string, number>, minQuality: number): GoldenLine {
  const base = { sample_id: sample.sample_id, dataset: sample.dataset, ocr_text: sample.ocr_text, gt_text: sample.gt_text };
  if (!loc) return { ...base, status: 'no_match', quality: null, source_uri: null, units: [], relevant: [] };
  const units = loc.units.map((u) => {
    const idx = idxOf.get(`${loc.uri}:${u.line}`) ?? null;
    return {
      line: u.line,
      overlap: u.overlap,
      unit_length: u.unitLength,
      relevant: isRelevantOverlap(u.overlap, loc.goldLength, u.unitLength),
      idx,
    };
  });
  const q = Number(loc.quality.toFixed(4));
  if (loc.quality < minQuality) return { ...base, status: 'low_quality', quality: q, source_uri: loc.uri, units, relevant: [] };
  const relevant = [...new Set(units.filter((u) => u.relevant && u.idx !== null).map((u) => u.idx!))].sort((a, b) => a - b);
  return { ...base, status: relevant.length ? 'evaluable' : 'relevant_not_in_corpus', quality: q, source_uri: loc.uri, units, relevant };
}

function countByStatus(ls: readonly GoldenLine[]): Record<LineStatus, number> {
  return Object.fromEntries(STATUSES.map((s) => [s, ls.filter((l) => l.status === s).length])) as Record<LineStatus, number>;
}

function goldenSummary(
  sources: readonly BookSources[],
  lines: readonly GoldenLine[],
  corpus: readonly EvalCorpusRecord[],
  dropped: { duplicates: number; tooShortOrLong: number },
  o: ResolvedGoldenOptions,
): GoldenSet['summary'] {
  return {
    books: sources.map((bs) => {
      const ls = lines.filter((l) => l.dataset === bs.book.key);
      return {
        key: bs.book.key,
        sources: bs.docs.map((d) => d.uri),
        lines: ls.length,
        evaluable: ls.filter((l) => l.status === 'evaluable').length,
        by_status: countByStatus(ls),
      };
    }),
    lines: lines.length,
    evaluable: lines.filter((l) => l.status === 'evaluable').length,
    by_status: countByStatus(lines),
    corpus: {
      total: corpus.length,
      source_units: corpus.filter((r) => r.origin === 'source').length,
      distractors: corpus.filter((r) => r.origin === 'distractor').length,
      duplicates_dropped: dropped.duplicates,
      too_short_or_long: dropped.tooShortOrLong,
    },
    options: { ...o },
  };
}
