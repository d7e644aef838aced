/**
 * What the design files state and arms.json does not, measured by the arms analysis of the default arms on its own
 * scopes (each dataset, pooled), clusters, resamples and permutations: ΔWER rag − zero_shot, the OCR text's CER and
 * WER intervals, and each dataset's ΔCER per top-1 score bucket. Seeds are derived as arms.json's are: `arms:<rag vs baseline key>:wer`,
 * `arms:ocr:<scope>` and `arms:ocr:<scope>:wer`. Kept with the analysis in memory, not written to arms.json; the
 * comparison files take every figure of their `bootstrap` block from here and from arms.json's
 * (analysis/documents/arms-figures.ts).
 */
import { blockRateInterval } from '../stats/block-stats';
import { seedFor } from '../stats/bootstrap';
import { round } from '../format';
import type { ArmRow } from '../score/arm-line';
import { baselineKey, comparePaired, POOLED, type PairedComparison, type PairedResult, type Scope } from './compare';
import { scoreBands, type ScoreBand } from '../stats/score-bands';
import type { ScoreBucket } from '../score/bands';
import type { Settings } from './settings-type';

/** One scope's figures. */
export interface DesignScopeFigures {
  /** Clusters of the scope's lines. */
  clusters: number;
  /** Why the intervals are null (too few clusters); null when they are given. */
  reason: string | null;
  /** Resamples drawn (0 with too few clusters). */
  iterations: number;
  /** WER(rag) − WER(zero_shot) on the same lines (in `delta_cer`, as comparePaired names its delta), with its interval, p, SE and detectable effect. */
  delta_wer: PairedComparison | null;
  ocr_cer_ci: [number, number] | null;
  ocr_wer_ci: [number, number] | null;
  /**
   * ΔCER rag − zero_shot per top-1 score bucket (analysis/stats/score-bands.ts) on a dataset's lines, as
   * retrieval_analysis.json's `by_score_bucket` states it; null pooled, without zero_shot or without scores.
   */
  score_bands: Record<ScoreBucket, ScoreBand> | null;
}

/** Per scope key (a dataset, or the pooled scope). */
export type DesignFigures = Record<string, DesignScopeFigures>;

const sl = (x: Float64Array, scope: Scope) => x.subarray(scope.from, scope.to);

const withoutMacro = ({ macro: _macro, ...c }: PairedResult): PairedComparison => c;

const roundPair = (ci: [number, number] | null): [number, number] | null => (ci ? [round(ci[0])!, round(ci[1])!] : null);

/** What the score bands are made of: each line's top-1 score, and rag's pooled bands of arms.json (`when.by_score_band`). */
export interface RagBands {
  top1: ReadonlyArray<number | null> | null;
  pooled: Record<ScoreBucket, ScoreBand> | null;
}

/**
 * The figures of `rag` (its scored lines) on every scope, against zero_shot's lines when given (else no ΔWER and
 * no bands). A study of one dataset has its bands already: arms.json's pooled ones are on the same lines, clusters
 * and seeds.
 */
export function designFigures(
  rag: readonly ArmRow[],
  base: readonly ArmRow[] | null,
  scopes: readonly Scope[],
  s: Settings,
  { top1, pooled }: RagBands,
): DesignFigures {
  const col = (rows: readonly ArmRow[], f: (r: ArmRow) => number) => Float64Array.from(rows, f);
  const refWords = col(rag, (r) => r.ref_words);
  const refChars = col(rag, (r) => r.ref_chars);
  const ocrCe = col(rag, (r) => r.ocr_ce);
  const ocrWe = col(rag, (r) => r.ocr_we);
  const baseWe = base && col(base, (r) => r.we);
  const ragWe = col(rag, (r) => r.we);
  const baseCe = base && col(base, (r) => r.ce);
  const ragCe = col(rag, (r) => r.ce);
  const single = scopes.length === 2;
  const bands = (scope: Scope) => {
    if (!baseCe || !top1 || scope.key === POOLED) return null;
    if (single) return pooled;
    const lines = { ref: sl(refChars, scope), reference: sl(baseCe, scope), arm: sl(ragCe, scope), top1: top1.slice(scope.from, scope.to) };
    return scoreBands(lines, scope, s, `rag:${scope.key}`);
  };
  const out: DesignFigures = {};
  for (const scope of scopes) {
    const ocrKey = `ocr:${scope.key}`;
    const interval = (ref: Float64Array, edits: Float64Array, key: string) =>
      blockRateInterval(sl(ref, scope), sl(edits, scope), scope.design, s.iterations, seedFor(s.seed, `arms:${key}`), s.minClusters);
    const cer = interval(refChars, ocrCe, ocrKey);
    const wer = interval(refWords, ocrWe, `${ocrKey}:wer`);
    const delta = baseWe && withoutMacro(comparePaired(refWords, baseWe, ragWe, scope, s, `${baselineKey('rag', scope.key)}:wer`));
    out[scope.key] = {
      clusters: scope.design.stratumOfBlock.length,
      reason: cer.reason,
      iterations: cer.reason === null ? s.iterations : 0,
      delta_wer: delta,
      ocr_cer_ci: roundPair(cer.ci95),
      ocr_wer_ci: roundPair(wer.ci95),
      score_bands: bands(scope),
    };
  }
  return out;
}
