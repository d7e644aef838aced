/**
 * Tallies of an arm's scored lines: the raw OCR line's CER band, improved / unchanged / worsened lines per band,
 * the guard's decisions, and the column totals every figure of analysis/study/arms.ts divides.
 */
import * as aq from 'arquero';
import { ratio, round } from '../format';
import { OCR_CER_BANDS, type OcrCerBand } from '../score/bands';

const { op } = aq;
type Table = ReturnType<typeof aq.from>;

export interface BandCounts {
  lines: number;
  ocr_cer: number | null;
  cer: number | null;
  improved: number;
  unchanged: number;
  worsened: number;
}

export interface GuardRates {
  /** Lines whose record carries a `guard` value. */
  lines: number;
  kept: number;
  trimmed: number;
  fell_back: number;
  /** Share of the arm's lines per `fell_back:<reason>` reason. */
  by_reason: Record<string, number>;
  counts: Record<string, number>;
}

export type Totals = Record<
  'n' | 'ref_chars' | 'ref_words' | 'ce' | 'we' | 'raw_ce' | 'ocr_ce' | 'improved' | 'worsened' | 'failed_n',
  number
>;

const TOTALS = {
  n: op.count(),
  ...Object.fromEntries(
    ['ref_chars', 'ref_words', 'ce', 'we', 'raw_ce', 'ocr_ce', 'improved', 'worsened', 'failed_n'].map((c) => [c, op.sum(c)]),
  ),
};

export function totals(t: Table): Totals {
  const o = t.numRows() > 0 ? (t.rollup(TOTALS as never).objects()[0] as Record<string, number>) : {};
  return Object.fromEntries(Object.keys(TOTALS).map((k) => [k, Number(o[k] ?? 0)])) as Totals;
}

/** Improved / unchanged / worsened lines (vs the raw OCR line) per OCR-CER band, every band present. */
export function bandCounts(t: Table): Record<OcrCerBand, BandCounts> {
  const got = new Map<string, Totals>();
  for (const o of t
    .groupby('band')
    .rollup(TOTALS as never)
    .objects() as Array<Record<string, number | string>>) {
    got.set(String(o.band), Object.fromEntries(Object.keys(TOTALS).map((k) => [k, Number(o[k] ?? 0)])) as Totals);
  }
  const out = {} as Record<OcrCerBand, BandCounts>;
  for (const band of OCR_CER_BANDS) {
    const g = got.get(band);
    out[band] = g
      ? {
          lines: g.n,
          ocr_cer: round(ratio(g.ocr_ce, g.ref_chars)),
          cer: round(ratio(g.ce, g.ref_chars)),
          improved: g.improved,
          unchanged: g.n - g.improved - g.worsened,
          worsened: g.worsened,
        }
      : { lines: 0, ocr_cer: null, cer: null, improved: 0, unchanged: 0, worsened: 0 };
  }
  return out;
}

/** Shares of the lines per guard outcome; null when no line of the arm carries a `guard` value. */
export function guardRates(t: Table, n: number): GuardRates | null {
  const g = t.filter('d => d.guard != null');
  if (g.numRows() === 0) return null;
  const counts: Record<string, number> = {};
  for (const o of g.groupby('guard').count().orderby('guard').objects() as Array<{ guard: string; count: number }>)
    counts[o.guard] = o.count;
  const share = (x: number) => round(ratio(x, n)) ?? 0;
  const byReason: Record<string, number> = {};
  let fell = 0;
  for (const [k, c] of Object.entries(counts)) {
    if (!k.startsWith('fell_back:')) continue;
    fell += c;
    byReason[k.slice('fell_back:'.length)] = share(c);
  }
  return {
    lines: g.numRows(),
    kept: share(counts.kept ?? 0),
    trimmed: share(counts.trimmed ?? 0),
    fell_back: share(fell),
    by_reason: byReason,
    counts,
  };
}
