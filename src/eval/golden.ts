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
import { childLogger } from '../util/log';
import { dedupedCorpus, distractorRecord, sourceUnitRecords, windowPositions } from './golden-corpus';
import { goldenLine, goldenSummary, locateGoldLines } from './golden-lines';
import { distractorSample, sourcesOf } from './golden-sources';
import type { GoldenBook, GoldenOptions, GoldenSet, ResolvedGoldenOptions } from './golden-types';

export type { EvalCorpusRecord, GoldenBook, GoldenLine, GoldenOptions, GoldenSet, LineStatus } from './golden-types';
export { isRelevantOverlap } from './golden-lines';

const log = childLogger('eval');

export const DEFAULT_GOLDEN_BOOKS: readonly GoldenBook[] = [
  { key: 'OCR_GS-IbnQutayba.Adab', folder: 'book_IbnQutayba.Adab', sourcePattern: '0276IbnQutaybaDinawari.AdabKatib*' },
  { key: 'OCR_GS-Yacqubi.Tarikh', folder: 'book_Yacqubi.Tarikh', sourcePattern: '0292Yacqubi.Tarikh*' },
];

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
