/** metrics.json: every corrected line of a dataset — rates of the corrected text and of the OCR, counts, failures. */
import { canonicalDescription } from '../../src/text/canonical';
import { ratio, round } from '../format';
import { ALIGNMENT_SKIPPED } from './error-changes';
import { profilesBlock } from './profiles-block';
import type { ScoredDataset } from './pair-rows';
import type { SectionContext } from './context';
import { rateBlock, normalizationLabel, normCerWer } from './rates';
import type { Rollup, Sums } from './sums';

/** The `meta` of metrics.json: per dataset (`dataset` right after `phase`) or for all of them (`datasets` last). */
export function metricsMeta(ctx: SectionContext, numSamples: number, scope: { dataset: string } | { datasets: string[] }) {
  return {
    phase: 'phase5',
    ...('dataset' in scope ? { dataset: scope.dataset } : {}),
    model: ctx.meta.model,
    prompt_type: 'rag',
    prompt_version: ctx.meta.prompt_version,
    embedding_model: ctx.meta.embedding_model,
    top_k: ctx.meta.top_k,
    corpus_size: ctx.meta.corpus_size,
    generated_at: ctx.generatedAt,
    num_samples: numSamples,
    ...('datasets' in scope ? { datasets: scope.datasets } : {}),
  };
}

export const FAILED_SCORED_AS = 'identity (corrected = OCR text)';

/** The rag arm's failures of metrics.json. */
export function failuresBlock(all: Sums) {
  return {
    total: all.rag_fail_n,
    error: all.rag_fail_error,
    empty_output: all.rag_fail_empty,
    rate: round(ratio(all.rag_fail_n, all.n)),
    scored_as: FAILED_SCORED_AS,
  };
}

/** metrics.json (docs/outputs.md#metricsjson, and counts): every rag line of the dataset. */
export function metricsDocument(scored: ScoredDataset, { t, all }: Rollup, ctx: SectionContext) {
  return {
    meta: metricsMeta(ctx, all.n, { dataset: scored.dataset }),
    corrected: rateBlock(all, 'rag'),
    ocr_baseline: rateBlock(all, 'ocr'),
    line_effects: {
      helped: all.rag_help,
      harmed: all.rag_harm,
      unchanged: all.n - all.rag_help - all.rag_harm,
      help_rate: round(ratio(all.rag_help, all.n)),
      harm_rate: round(ratio(all.rag_harm, all.n)),
      definition: 'per line, Phase 5 character edits vs the raw OCR line: fewer = helped, more = harmed',
    },
    counts: {
      samples: all.n,
      by_prompt_type: { rag: all.n - all.fallback_n, zero_shot_fallback: all.fallback_n },
      with_retrieval: t.filter('d => d.has_retrieval').numRows(),
      without_inference_input: all.no_input_n,
      empty_reference: all.empty_ref,
      gold_mismatch_with_other_inputs: all.gold_mismatch_n,
      alignment_skipped: ALIGNMENT_SKIPPED,
    },
    failures: failuresBlock(all),
    normalized: ctx.normalization
      ? {
          label: normalizationLabel(ctx.normalization),
          settings: ctx.normalization,
          corrected: normCerWer(all, 'rag'),
          ocr_baseline: normCerWer(all, 'ocr'),
        }
      : null,
    profiles: profilesBlock(scored.profiles),
    scoring: scoringNote(ctx),
  };
}

export function scoringNote(ctx: Pick<SectionContext, 'collapseWhitespace'>) {
  return {
    cer: 'Levenshtein distance over Unicode code points, summed over lines / summed gold characters',
    wer: 'Levenshtein distance over whitespace tokens, summed over lines / summed gold words',
    text_preparation: canonicalDescription(ctx.collapseWhitespace),
    mean_per_line: 'mean of per-line rates over lines with a non-empty gold text',
    failed_lines: 'corrections with an error or an empty output are scored as identity (corrected = OCR text) and counted under failures',
  };
}
