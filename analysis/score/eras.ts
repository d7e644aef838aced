/** Eras of retrieved sources (hijri death year; the same [from, to) convention as the corpus config). */
import { DEFAULT_ERAS as OPENITI_ERAS } from '../../src/openiti/sampling';

export interface Era {
  name: string;
  /** Inclusive lower bound (AH). */
  from: number;
  /** Exclusive upper bound (AH). */
  to: number;
}

export const DEFAULT_ERAS: readonly Era[] = OPENITI_ERAS.map(({ name, from, to }) => ({ name, from, to }));

export const UNKNOWN_ERA = 'unknown';

/** Parse a source date (number, or a string such as "0276" / "276AH"); null when absent or unreadable. */
export function parseDate(d: unknown): number | null {
  if (typeof d === 'number') return Number.isFinite(d) ? d : null;
  if (typeof d === 'string') {
    const m = /^\s*(-?\d+)/.exec(d);
    return m ? Number(m[1]) : null;
  }
  return null;
}

export function eraOf(date: number | null, eras: readonly Era[] = DEFAULT_ERAS): string {
  if (date === null) return UNKNOWN_ERA;
  for (const e of eras) if (date >= e.from && date < e.to) return e.name;
  return UNKNOWN_ERA;
}
