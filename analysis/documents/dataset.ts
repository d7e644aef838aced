/** The four documents of one dataset, and the digest the summary and the aggregate read. */
import type { ScoredDataset } from './pair-rows';
import type { DatasetInfo } from '../types';
import { armsBlock, type BootstrapBlock } from './arms-figures';
import { comparisonDocument } from './comparison';
import type { SectionContext } from './context';
import { errorChangesDocument } from './error-changes';
import { metricsDocument } from './metrics-json';
import { retrievalDocument, type leakageBlock } from './retrieval';
import { rollup, type Sums } from './sums';
import { comparisonValidity, type Validity } from './validity';

export interface DatasetDocuments {
  metrics: Record<string, unknown>;
  comparison: Record<string, unknown>;
  errorChanges: Record<string, unknown> | null;
  retrieval: Record<string, unknown>;
  /** Everything the summary and the aggregate need. */
  digest: DatasetDigest;
}

export interface DatasetDigest {
  dataset: string;
  all: Sums;
  cmp: Sums;
  hasBaseline: boolean;
  bootstrap: BootstrapBlock;
  interpretation: string;
  leakage: ReturnType<typeof leakageBlock>;
  avgTop1: number | null;
  validity: Validity;
}

export function datasetDocuments(scored: ScoredDataset, ctx: SectionContext, info: DatasetInfo | undefined): DatasetDocuments {
  const ds = scored.dataset;
  const r = rollup(scored.rows);
  const boot = armsBlock(ctx.arms, ds, ctx.bootstrap.seed, false, r.hasBaseline);
  const validity = comparisonValidity(r.cmp, r.hasBaseline, ctx.maxFailedShare);
  const comparison = comparisonDocument(ds, r, boot, validity, ctx);
  const retrieval = retrievalDocument(scored, r, ctx, info);
  return {
    metrics: metricsDocument(scored, r, ctx),
    comparison,
    errorChanges: scored.ragChanges ? errorChangesDocument({ dataset: ds }, r.all.n, scored.ragChanges, scored.zeroShotChanges, ctx) : null,
    retrieval,
    digest: {
      dataset: ds,
      all: r.all,
      cmp: r.cmp,
      hasBaseline: r.hasBaseline,
      bootstrap: boot,
      interpretation: comparison.interpretation,
      leakage: retrieval.leakage,
      avgTop1: retrieval.retrieval_stats.avg_top1_score,
      validity,
    },
  };
}
