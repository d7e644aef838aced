/**
 * `phase5 plan --freeze`: the analysis plan as plan.lock.json (docs/plan.md#frozen-plan) — arms with their
 * prompts (the messages infer builds, with `{ocr_text}` and `{retrieval_context}` in place of a line's, and
 * their sha256), decoding, replicates, the contrasts with their family and detectable effects, the primary
 * metric and normalisation profiles, α, the sampling, and the planned requests, tokens and time.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Config } from '../../src/config/schema';
import { correctionPrompt } from '../../src/llm/correction-calls';
import { maxTokensOf, replicatesOf } from '../../src/plan/arm-requests';
import { writePlanLock, type ReadLock } from '../../src/plan/plan-lock';
import { studyPlan } from '../../src/stages/study/plan';
import type { RunOptions } from '../../src/stages/shared/types';
import { resolveNormalization } from '../../src/text/profiles';
import { ALPHA, type PlanReport } from './plan';

const TEMPLATE_LINE = {
  sample_id: '{sample_id}',
  dataset: '{dataset}',
  ocr_text: '{ocr_text}',
  gt_text: '',
  retrieval_context: '{retrieval_context}',
};

/** Lines already in a corrections file (0 when it does not exist). */
function correctedLines(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim()).length;
}

export function freezePlan(
  config: Config,
  options: RunOptions,
  report: PlanReport,
  now = new Date(),
): ReadLock & { afterCorrections: boolean } {
  const plan = studyPlan(config, options);
  const norm = resolveNormalization(config.analysis.normalization);
  const corrected = Object.fromEntries(plan.declared.map((a) => [a.name, correctedLines(a.output)]));
  const afterCorrections = Object.values(corrected).some((n) => n > 0);
  const arms = plan.declared.map((a) => {
    const messages = correctionPrompt(a.prompt, TEMPLATE_LINE, a.template).messages;
    return {
      name: a.name,
      role: a.role,
      upper_bound: a.upperBound,
      prompt: { kind: a.prompt, messages, sha256: createHash('sha256').update(JSON.stringify(messages)).digest('hex') },
      model: a.model,
      retrieval: { mode: a.retrieval.mode, top_k: a.retrieval.top_k, fingerprint: a.retrieval.fingerprint },
      decoding: { temperature: a.config.infer.temperature, max_tokens: maxTokensOf(a) },
      replicates: replicatesOf(a),
    };
  });
  const pw = report.detail.power;
  const written = writePlanLock(config, {
    written_at: now.toISOString(),
    corrected_lines_at_freeze: corrected,
    after_first_correction: afterCorrections,
    arms,
    baseline: config.study?.baseline ?? 'zero_shot',
    contrasts: pw.contrasts.map((c) => ({ arm: c.arm, vs: c.vs, in_family: c.in_family, mde: c.mde, se: c.se, se_source: c.source })),
    primary_metric: 'cer',
    normalization: {
      primary: norm.primary.name,
      secondary: norm.secondary.map((p) => p.name),
      collapse_whitespace: config.analysis.collapse_whitespace,
    },
    alpha: ALPHA,
    family: {
      size: pw.family_size,
      correction: 'holm',
      scopes: 'every in-family contrast on each dataset, pooled, and macro (more than one dataset)',
    },
    sampling: { datasets: options.datasets ?? Object.keys(config.datasets), limit: options.limit ?? null, sample: options.sample ?? null },
    planned: { arms: report.arms, totals: report.totals },
  });
  return { ...written, afterCorrections };
}
