/** retrieval_analysis.json: retrieval scores, CER improvement by score, corpus eras, source-book leakage. */
import { ERROR_CATEGORIES } from '../score/error-changes';
import { SCORE_BUCKETS, type ScoreBucket } from '../score/bands';
import type { ScoreBand } from '../stats/score-bands';
import { UNKNOWN_ERA } from '../score/eras';
import { ratio, round } from '../format';
import { spearman } from '../stats/correlation';
import type { ScoredDataset } from './pair-rows';
import type { DatasetInfo } from '../types';
import type { SectionContext } from './context';
import type { Table } from './table';
import { groupStats, pct } from './rates';
import { sums, sumsBy, type Rollup, type Sums } from './sums';

export function leakageBlock(info: DatasetInfo | undefined, withRetrieval: number, top1Matches: number | null, anyMatches: number | null) {
  const excluded = info ? info.excluded : null;
  const pattern = info?.sourcePattern ?? null;
  let statement: string;
  if (!info) {
    statement = 'No source-book information configured for this dataset; leakage not checked.';
  } else if (pattern === null) {
    statement = `Source book ${excluded ? 'excluded from' : 'NOT excluded from'} the corpus per config; no source pattern known, so retrieved sources were not checked.`;
  } else if (withRetrieval === 0) {
    statement = `Source book ${excluded ? 'excluded from' : 'NOT excluded from'} the corpus per config; no retrievals to check against ${pattern}.`;
  } else if (excluded) {
    statement =
      top1Matches === 0 && anyMatches === 0
        ? `Source book excluded from the corpus; none of ${withRetrieval} retrievals came from it (pattern ${pattern}).`
        : `Source book excluded from the corpus per config, yet ${top1Matches}/${withRetrieval} top-1 hits (${anyMatches} within top-k) match ${pattern}: check the exclusion.`;
  } else {
    statement =
      top1Matches === 0 && anyMatches === 0
        ? `Source book NOT excluded from the corpus, but none of ${withRetrieval} retrievals came from it (pattern ${pattern}).`
        : `LEAKAGE: source book NOT excluded from the corpus; ${top1Matches}/${withRetrieval} top-1 hits (${pct((top1Matches ?? 0) / withRetrieval)}; ${anyMatches} within top-k) come from it (pattern ${pattern}), so results for this dataset may be inflated.`;
  }
  return {
    source_excluded_by_config: excluded,
    source_pattern: pattern,
    samples_with_retrieval: withRetrieval,
    top1_source_matches: top1Matches,
    topk_source_matches: anyMatches,
    top1_match_rate: top1Matches === null ? null : round(ratio(top1Matches, withRetrieval)),
    statement,
  };
}

const HIST_WIDTH = 0.025;

function scoreHistogram(scores: number[]) {
  const counts = new Map<number, number>();
  for (const s of scores) {
    const b = Math.floor(s / HIST_WIDTH + 1e-9);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  const keys = [...counts.keys()].sort((a, b) => a - b);
  const bins: Array<{ from: number; to: number; count: number }> = [];
  if (keys.length > 0) {
    for (let b = keys[0]; b <= keys[keys.length - 1]; b++) {
      bins.push({ from: round(b * HIST_WIDTH, 6)!, to: round((b + 1) * HIST_WIDTH, 6)!, count: counts.get(b) ?? 0 });
    }
  }
  return { bin_width: HIST_WIDTH, of: 'top-1 score', bins };
}

/** retrieval_analysis.json (docs/outputs.md#retrieval_analysisjson, and more). */
export function retrievalDocument(
  scored: ScoredDataset,
  { t, all, cmpT, hasBaseline }: Rollup,
  ctx: SectionContext,
  info: DatasetInfo | undefined,
) {
  const rAll = t.filter('d => d.has_retrieval');
  // Comparison lines with retrieval, ordered by top-1 score so halves and quartiles are slices.
  const rCmp = cmpT.filter('d => d.has_retrieval').orderby('top1', 'idx');
  const eraLabels = [...ctx.eras.map((e) => e.name), UNKNOWN_ERA];
  const eraCounts = Object.fromEntries(sumsBy(rAll, 'top1_era', eraLabels).map(([e, s]) => [e, s.n]));
  const nRetr = rAll.numRows();
  return {
    meta: {
      dataset: scored.dataset,
      top_k: ctx.meta.top_k,
      embedding_model: ctx.meta.embedding_model,
      generated_at: ctx.generatedAt,
      num_samples: all.n,
      samples_without_inference_input: all.no_input_n,
    },
    retrieval_stats: retrievalStats(rAll, all),
    retrieval_by_error_type: retrievalByScore(scored, rCmp, hasBaseline, bucketDeltas(hasBaseline, ctx, scored.dataset)),
    corpus_date_distribution: Object.fromEntries(ctx.eras.map((e) => [e.name, round(ratio(eraCounts[e.name], nRetr), 4) ?? 0])),
    corpus_date_counts: eraCounts,
    score_histogram: scoreHistogram(Array.from(rAll.array('top1') as ArrayLike<number>)),
    leakage: sourceLeakage(rAll, info),
  };
}

function retrievalStats(rAll: Table, all: Sums) {
  const rs = sums(rAll);
  const nRetr = rAll.numRows();
  return {
    samples_with_any_retrieval: nRetr,
    samples_zero_results: all.n - nRetr,
    avg_top1_score: round(rs.top1),
    avg_top3_score: round(rs.top3_mean),
    avg_topk_score: round(rs.topk_mean),
    median_top1_score: round(rs.median_top1),
    score_distribution: Object.fromEntries(sumsBy(rAll, 'bucket', SCORE_BUCKETS).map(([b, s]) => [b, s.n])),
  };
}

/** CER improvement by top-1 score: halves, quartiles, buckets and the rank correlation (rCmp sorted by score). */
function retrievalByScore(scored: ScoredDataset, rCmp: Table, hasBaseline: boolean, bands: Record<ScoreBucket, ScoreBand> | null) {
  const nR = rCmp.numRows();
  const half = Math.floor(nR / 2);
  const quarter = Math.floor(nR / 4);
  const part = (from: number, to: number) => {
    const sub = rCmp.slice(from, to);
    return { ...groupStats(sums(sub), hasBaseline), by_error_category: categoryChanges(scored, sub) };
  };
  return {
    note: 'Correlation between retrieval score and per-sample CER improvement',
    split: {
      by: 'top-1 retrieval score',
      set: hasBaseline ? 'samples with retrieval and a Phase 2 line' : 'samples with retrieval (no Phase 2 baseline)',
      n_samples: nR,
      median_top1_score: round(sums(rCmp).median_top1),
      improvement: 'cer_improvement = Phase 2 CER − Phase 5 CER on the group (positive = RAG helped); delta_cer = −cer_improvement',
    },
    high_score_samples: part(nR - half, nR),
    low_score_samples: part(0, half),
    top_quartile: part(nR - quarter, nR),
    bottom_quartile: part(0, quarter),
    by_score_bucket: Object.fromEntries(
      sumsBy(rCmp, 'bucket', SCORE_BUCKETS).map(([b, s]) => [
        b,
        {
          ...groupStats(s, hasBaseline),
          delta_cer_ci95: bands?.[b as ScoreBucket].ci ?? null,
          delta_cer_p_value: bands?.[b as ScoreBucket].p ?? null,
          delta_cer_reason: bands?.[b as ScoreBucket].reason ?? null,
        },
      ]),
    ),
    correlation: scoreCorrelation(rCmp, hasBaseline),
  };
}

/**
 * ΔCER rag − zero_shot per top-1 score bucket on the comparison lines, with interval and p, as the arms analysis of
 * the two arms measured them (analysis/study/design-figures.ts: the one band computation of arms.json's
 * `when.by_score_band`, on this dataset's clusters). Null without a zero_shot baseline.
 */
function bucketDeltas(hasBaseline: boolean, ctx: SectionContext, ds: string): Record<ScoreBucket, ScoreBand> | null {
  return hasBaseline ? (ctx.arms.pair?.design_figures?.[ds]?.score_bands ?? null) : null;
}

/** The rag arm's fixed / introduced errors per category over a subset of lines (null without error analysis). */
function categoryChanges(scored: ScoredDataset, sub: Table) {
  if (!scored.ragLineCategories) return null;
  const tot = new Int32Array(ERROR_CATEGORIES.length * 2);
  for (const i of Array.from(sub.array('idx') as ArrayLike<number>)) {
    const c = scored.ragLineCategories[i];
    for (let k = 0; k < tot.length; k++) tot[k] += c[k];
  }
  return Object.fromEntries(
    ERROR_CATEGORIES.map((c, k) => [c, { fixed: tot[2 * k], introduced: tot[2 * k + 1], net_fixed: tot[2 * k] - tot[2 * k + 1] }]),
  );
}

/** Spearman of the top-1 score vs the per-line CER improvement (over zero_shot, or over raw OCR without it). */
function scoreCorrelation(rCmp: Table, hasBaseline: boolean) {
  const corrRows = rCmp.filter('d => d.ref_chars > 0');
  const xs = Array.from(corrRows.array('top1') as ArrayLike<number>);
  const imp = hasBaseline
    ? (corrRows.derive({ v: 'd => (d.base_ce - d.rag_ce) / d.ref_chars' }).array('v') as ArrayLike<number>)
    : (corrRows.derive({ v: 'd => (d.ocr_ce - d.rag_ce) / d.ref_chars' }).array('v') as ArrayLike<number>);
  return {
    of: hasBaseline ? 'top-1 score vs per-line CER improvement over Phase 2' : 'top-1 score vs per-line CER improvement over raw OCR',
    n: xs.length,
    spearman: round(spearman(xs, Array.from(imp)), 4),
  };
}

/** How many retrievals came from the dataset's own source book (counted only when its pattern is known). */
function sourceLeakage(rAll: Table, info: DatasetInfo | undefined) {
  const leakTop1 = info?.sourcePattern ? rAll.filter('d => d.leak_top1').numRows() : null;
  const leakAny = info?.sourcePattern ? rAll.filter('d => d.leak_any').numRows() : null;
  return leakageBlock(info, rAll.numRows(), leakTop1, leakAny);
}
