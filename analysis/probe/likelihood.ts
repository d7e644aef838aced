/**
 * The likelihood test's figures of a book against its control: the mean Min-K% Prob and Min-K%++ of each, and per
 * book text its place in the control's distribution — the AUC (the probability that a book text scores above a
 * control text, ties half) and the share of book texts above the control's 95th percentile (5 % when the book is
 * read like the control).
 */
import type { ProbeRecord } from '../../src/stages/probe/types';

export interface LikelihoodFigures {
  min_k: number;
  min_k_pp: number;
  /** From the full next-token distribution (local model) rather than the server's top-n. */
  exact: boolean;
  units: number;
}

export interface VersusControl {
  /** `shuffled` or the unpublished dataset's key. */
  control: string;
  auc_min_k: number | null;
  auc_min_k_pp: number | null;
  above_control_p95_min_k_pp: number | null;
}

const scored = (rs: readonly ProbeRecord[]) => rs.filter((r) => r.likelihood !== null);

export function likelihoodFigures(records: readonly ProbeRecord[]): LikelihoodFigures | null {
  const s = scored(records);
  if (s.length === 0) return null;
  const mean = (f: (r: ProbeRecord) => number) => s.reduce((a, r) => a + f(r), 0) / s.length;
  return {
    min_k: mean((r) => r.likelihood!.min_k),
    min_k_pp: mean((r) => r.likelihood!.min_k_pp),
    exact: s.every((r) => r.likelihood!.exact),
    units: s.length,
  };
}

/** P(book > control) + ½ P(tie) over all pairs (the Mann–Whitney U over the pair count). */
export function auc(book: readonly number[], control: readonly number[]): number | null {
  if (book.length === 0 || control.length === 0) return null;
  let wins = 0;
  for (const b of book) for (const c of control) wins += b > c ? 1 : b === c ? 0.5 : 0;
  return wins / (book.length * control.length);
}

function p95(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}

export function versusControl(book: readonly ProbeRecord[], control: readonly ProbeRecord[], name: string): VersusControl {
  const b = scored(book).map((r) => r.likelihood!);
  const c = scored(control).map((r) => r.likelihood!);
  const cut = c.length ? p95(c.map((l) => l.min_k_pp)) : null;
  return {
    control: name,
    auc_min_k: auc(
      b.map((l) => l.min_k),
      c.map((l) => l.min_k),
    ),
    auc_min_k_pp: auc(
      b.map((l) => l.min_k_pp),
      c.map((l) => l.min_k_pp),
    ),
    above_control_p95_min_k_pp: cut === null || b.length === 0 ? null : b.filter((l) => l.min_k_pp > cut).length / b.length,
  };
}
