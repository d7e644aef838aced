/**
 * ΔCER of an arm against a reference per top-1 retrieval-score band (analysis/score/bands.ts), with its
 * block-bootstrap interval and block-permutation p (analysis/study/compare.ts `comparePaired`): the one
 * computation behind arms.json's `when.by_score_band` (analysis/study/when.ts) and retrieval_analysis.json's
 * `by_score_bucket` (analysis/documents/retrieval.ts). A band's lines keep their clusters, so its interval
 * resamples the clusters they fall in.
 */
import { SCORE_BUCKETS, scoreBucket, type ScoreBucket } from '../score/bands';
import { comparePaired, subScope, type ResampleSettings, type Scope } from '../study/compare';

export interface ScoreBand {
  lines: number;
  /** CER(arm) − CER(reference) on the band's lines, block-bootstrap CI, permutation p. */
  delta_cer: number | null;
  ci: [number, number] | null;
  p: number | null;
  /** Why ci and p are null (too few clusters in the band; analysis/stats/min-clusters.ts); else null. */
  reason: string | null;
}

/** Per line of `scope` (indices from 0): gold length, the reference's and the arm's edits, the top-1 score. */
export interface BandLines {
  ref: ArrayLike<number>;
  reference: ArrayLike<number>;
  arm: ArrayLike<number>;
  /** null: no retrieval score (the line is in no band). */
  top1: ArrayLike<number | null>;
}

/**
 * ΔCER on the lines `idx` of `scope` (a band, a split), named `label` in the sub-scope, seeded by `seedKey`;
 * no lines: counts 0 and no figures.
 */
export function subsetBand(
  lines: Omit<BandLines, 'top1'>,
  idx: number[],
  scope: Scope,
  label: string,
  s: ResampleSettings,
  seedKey: string,
): ScoreBand {
  if (idx.length === 0) return { lines: 0, delta_cer: null, ci: null, p: null, reason: null };
  const pick = (x: ArrayLike<number>) => Float64Array.from(idx, (i) => x[i]);
  const c = comparePaired(pick(lines.ref), pick(lines.reference), pick(lines.arm), subScope(scope, idx, label), s, seedKey);
  return { lines: idx.length, delta_cer: c.delta_cer, ci: c.ci, p: c.p, reason: c.reason };
}

/** Every band of SCORE_BUCKETS; `key` names the comparison for its seeds (`<key>:score_band:<band>`). */
export function scoreBands(lines: BandLines, scope: Scope, s: ResampleSettings, key: string): Record<ScoreBucket, ScoreBand> {
  const out = {} as Record<ScoreBucket, ScoreBand>;
  const top1 = Array.from(lines.top1);
  for (const band of SCORE_BUCKETS) {
    const idx = top1.flatMap((x, i) => (x !== null && scoreBucket(x) === band ? [i] : []));
    out[band] = subsetBand(lines, idx, scope, band, s, `${key}:score_band:${band}`);
  }
  return out;
}
