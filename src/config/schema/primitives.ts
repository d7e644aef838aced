/** The value types every config section builds on: counts, shares and durations. */
import { z } from 'zod';

export const positiveInt = z.number().int().positive();
export const nonNegInt = z.number().int().nonnegative();
export const unitInterval = z.number().min(0).max(1);
/** Durations as Temporal accepts them: "30s", "5m", "2h", or milliseconds. */
export const duration = z.union([z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/, 'a duration like "30s", "5m" or "2h"'), nonNegInt]);

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A validated duration ("30s", "5m", or ms) in milliseconds. */
export function durationMs(d: string | number): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(d);
  if (!m) throw new Error(`not a duration: "${d}"`);
  return Math.round(Number(m[1]) * UNIT_MS[m[2]]);
}
