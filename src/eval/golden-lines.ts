/** The golden lines: each OCR_GS line located in its book, its status, the relevant corpus idx, and the summary by status. */
import path from 'node:path';
import { loadDataset } from '../datasets';
import type {
  BookSources,
  EvalCorpusRecord,
  GoldenLine,
  GoldenOptions,
  GoldenSet,
  LineStatus,
  Located,
  ResolvedGoldenOptions,
} from './golden-types';
import { FuzzyLocator } from './locate';

const STATUSES: LineStatus[] = ['evaluable', 'no_match', 'low_quality', 'relevant_not_in_corpus'];

/**
 * A unit is relevant when the matched span covers at least 30 % of the gold line or at least half of the
 * unit (a short unit wholly inside the line), and at least 8 letters either way.
 */
export function isRelevantOverlap(overlap: number, goldLength: number, unitLength: number): boolean {
  return overlap >= 8 && (overlap >= 0.3 * goldLength || overlap >= 0.5 * unitLength);
}

/** Each book's OCR_GS lines (up to linesPerBook), with where their gold text sits in the book's sources. */
export async function locateGoldLines(
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

/** One OCR line with its status, the source units its gold text overlaps and the relevant corpus idx. */
export function goldenLine({ sample, loc }: Located, idxOf: ReadonlyMap<string, number>, minQuality: number): GoldenLine {
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

export function goldenSummary(
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
