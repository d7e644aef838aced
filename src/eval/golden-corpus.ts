/** The evaluation corpus of a golden set: windows around located lines, a seeded same-book sample, distractors, deduplicated. */
import type { CorpusSentence } from '../openiti/corpus-file';
import { codePointLength } from '../openiti/char-classes';
import { dedupKey } from '../openiti/scan-eligible';
import { seededKey } from '../openiti/sampling';
import type { BookSources, EvalCorpusRecord, Located, ResolvedGoldenOptions, SourceDoc, SourceRecord } from './golden-types';

/** The study corpus' length filter, in code points. */
function fitsLength(text: string, o: ResolvedGoldenOptions): boolean {
  const n = codePointLength(text);
  return n >= o.minCharLen && n <= o.maxCharLen;
}

/** Per source URI, the positions (in doc.lines) within ±window units of a well-located gold line. */
export function windowPositions(
  sources: readonly BookSources[],
  located: readonly Located[],
  o: ResolvedGoldenOptions,
): Map<string, Set<number>> {
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
export function sourceUnitRecords(
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

export function distractorRecord(s: CorpusSentence): SourceRecord {
  return { text: s.text, source_uri: s.source_uri, date: s.date, char_len: s.char_len, line: null, origin: 'distractor' };
}

/**
 * The records numbered in order, a repeated dedup key dropped (the first copy kept); `idxOf` maps each
 * source unit (`uri:line`) to its record's idx, a dropped duplicate to the kept copy.
 */
export function dedupedCorpus(records: readonly SourceRecord[]): {
  corpus: EvalCorpusRecord[];
  idxOf: Map<string, number>;
  duplicates: number;
} {
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
