/** The all-datasets documents: metrics.json, comparison.json and error_changes.json over the pooled lines. */
import { ErrorChangeAccumulator } from '../score/error-changes';
import { ratio, round } from '../format';
import { pooledProfiles } from './profiles-block';
import type { ScoredDataset } from './pair-rows';
import { armsBlock, POOLED_SCOPE, type BootstrapBlock } from './arms-figures';
import { comparisonHeadline, pairedLineEffects } from './comparison';
import type { SectionContext } from './context';
import type { DatasetDigest, DatasetDocuments } from './dataset';
import { errorChangesDocument } from './error-changes';
import { failuresBlock, metricsMeta, scoringNote } from './metrics-json';
import { byOcrCerBand, cerWer, rateBlock, normalizationLabel, normCerWer } from './rates';
import { rollup, type Rollup, type Sums } from './sums';
import { comparisonValidity, type Validity } from './validity';

/** The aggregate is not valid when its pooled lines are not, or when any dataset's comparison is not. */
function aggregateValidity(pooled: Validity, docs: DatasetDocuments[]): Validity {
  if (pooled) return pooled;
  const bad = docs.filter((d) => d.digest.validity);
  if (bad.length === 0) return null;
  return {
    valid: false,
    invalid_reason: bad.map((d) => `${d.digest.dataset} not valid — ${d.digest.validity!.invalid_reason}`).join(' | '),
  };
}

export function aggregateDocuments(scoredAll: ScoredDataset[], docs: DatasetDocuments[], ctx: SectionContext) {
  // Lines of all datasets (each dataset a stratum of the pooled figures).
  const r = rollup(scoredAll.flatMap((s, k) => s.rows.map((row) => ({ ...row, dataset: s.dataset, stratum: k }))));
  const { all, cmp, hasBaseline } = r;
  const boot = armsBlock(ctx.arms, POOLED_SCOPE, ctx.bootstrap.seed, true, hasBaseline);
  const names = docs.map((d) => d.digest.dataset);
  const validity = aggregateValidity(comparisonValidity(cmp, hasBaseline, ctx.maxFailedShare), docs);
  const comparison = aggregateComparison(r, boot, validity, docs, names, ctx);
  return {
    metrics: aggregateMetrics(all, docs, names, ctx),
    comparison,
    errorChanges: aggregateErrorChanges(scoredAll, names, all.n, ctx),
    all,
    cmp,
    hasBaseline,
    boot,
    validity,
    interpretation: comparison.overall.interpretation,
  };
}

/** The aggregate metrics.json: all lines pooled, plus a short line per dataset. */
function aggregateMetrics(all: Sums, docs: DatasetDocuments[], names: string[], ctx: SectionContext) {
  return {
    meta: metricsMeta(ctx, all.n, { datasets: names }),
    overall: {
      corrected: rateBlock(all, 'rag'),
      ocr_baseline: rateBlock(all, 'ocr'),
      failures: failuresBlock(all),
      line_effects: { help_rate: round(ratio(all.rag_help, all.n)), harm_rate: round(ratio(all.rag_harm, all.n)) },
      normalized: ctx.normalization ? { corrected: normCerWer(all, 'rag'), ocr_baseline: normCerWer(all, 'ocr') } : null,
    },
    datasets: Object.fromEntries(docs.map((d) => [d.digest.dataset, datasetMetricsLine(d.digest)])),
    normalization: ctx.normalization ? { label: normalizationLabel(ctx.normalization), settings: ctx.normalization } : null,
    profiles: pooledProfiles(docs.map((d) => d.metrics.profiles)),
    scoring: scoringNote(ctx),
  };
}

function datasetMetricsLine(g: DatasetDigest) {
  const s = g.all;
  return {
    num_samples: s.n,
    corrected: cerWer(s, 'rag'),
    ocr_baseline: cerWer(s, 'ocr'),
    failures: s.rag_fail_n,
    help_rate: round(ratio(s.rag_help, s.n)),
    harm_rate: round(ratio(s.rag_harm, s.n)),
    avg_top1_score: g.avgTop1,
    leakage: g.leakage.statement,
  };
}

/** The aggregate comparison.json: micro-averaged over datasets, plus each dataset's headline. */
function aggregateComparison(
  r: Rollup,
  boot: BootstrapBlock,
  validity: Validity,
  docs: DatasetDocuments[],
  names: string[],
  ctx: SectionContext,
) {
  return {
    meta: {
      comparison: 'phase5_vs_phase2',
      generated_at: ctx.generatedAt,
      datasets: names,
      n_paired: r.cmp.paired,
      aggregation: 'micro: summed edits over summed gold length across datasets; bootstrap resamples lines within each dataset',
    },
    overall: {
      ...comparisonHeadline(r.cmp, r.hasBaseline, boot, validity),
      line_effects: pairedLineEffects(r.cmp, r.hasBaseline, false),
      by_ocr_cer_band: byOcrCerBand(r.cmpT, r.hasBaseline),
    },
    datasets: Object.fromEntries(docs.map((d) => [d.digest.dataset, datasetComparisonLine(d)])),
  };
}

function datasetComparisonLine(d: DatasetDocuments) {
  const c = d.comparison as {
    phase2_baseline: unknown;
    phase5_corrected: unknown;
    delta: unknown;
    interpretation: string;
    meta: { n_paired: number };
  };
  return {
    ...d.digest.validity,
    n_paired: c.meta.n_paired,
    phase2_baseline: c.phase2_baseline,
    phase5_corrected: c.phase5_corrected,
    delta: c.delta,
    delta_cer_ci95: d.digest.bootstrap.delta_cer?.ci95 ?? null,
    significant: d.digest.bootstrap.delta_cer?.significant ?? null,
    interpretation: c.interpretation,
  };
}

/** All-datasets error changes (beside the per-dataset files): merged accumulators. */
function aggregateErrorChanges(
  scoredAll: ScoredDataset[],
  names: string[],
  n: number,
  ctx: SectionContext,
): Record<string, unknown> | null {
  if (!ctx.errorAnalysis || !scoredAll.every((s) => s.ragChanges)) return null;
  const rag = new ErrorChangeAccumulator();
  const withZeroShot = scoredAll.filter((s) => s.zeroShotChanges);
  const zeroShot = withZeroShot.length > 0 ? new ErrorChangeAccumulator() : null;
  for (const s of scoredAll) rag.merge(s.ragChanges!);
  for (const s of withZeroShot) zeroShot!.merge(s.zeroShotChanges!);
  return errorChangesDocument({ datasets: names }, n, rag, zeroShot, ctx);
}
