/**
 * The report's first screen: one sentence per planned contrast — the estimate, its 95 % CI, what it means, or
 * "too few clusters to say" — then the forest plot of every arm vs the baseline per dataset. A report without a
 * study of arms says the one comparison of its design files (rag − zero_shot) the same way.
 */
import type { ArmsAnalysis } from '../../study/arms';
import type { ContrastResult } from '../../study/measure-contrasts';
import type { ReportDocs } from '../../charts/specs';
import { ciF, ppF, type Block, type RenderedChart } from '../blocks';

/** What a ΔCER needs to be said in words (a contrast, or the design document's comparison). */
export interface Estimate {
  delta: number | null;
  ci: [number, number] | null;
  reason: string | null;
  mde: number | null;
  pHolm: number | null;
  n: number;
  /** The contrast's metric (`analysis.primary_metric`); absent: ΔCER. */
  metric?: 'cer' | 'cmer';
}

const pF = (p: number) => (p < 0.0001 ? '< 0.0001' : p.toFixed(4));
const mdeF = (x: number) => `${(x * 100).toFixed(2)} pp`;

/** "ΔCER −1.20 pp [−2.00, −0.40 pp], p (Holm) 0.0030: A makes fewer character errors than B." */
export function answerSentence(label: string, arm: string, vs: string, e: Estimate): string {
  const name = e.metric === 'cmer' ? 'ΔcMER' : 'ΔCER';
  const head = `**${label}** (${e.n.toLocaleString('en')} paired lines): ${name} ${ppF(e.delta)}`;
  if (e.delta === null) return `${head} — no estimate: ${e.reason ?? 'no paired lines'}.`;
  if (!e.ci) {
    const few = /^too few clusters: (\d+) \(at least (\d+)\)/.exec(e.reason ?? '');
    if (few)
      return `${head} — too few clusters to say (${few[1]} clusters of lines, at least ${few[2]} needed): the estimate alone, no interval or test.`;
    return `${head} — no interval: ${e.reason ?? 'not computed'}.`;
  }
  const p = e.pHolm === null ? '' : `, p (Holm) ${pF(e.pHolm)}`;
  const said = `${head} ${ciF(e.ci)}${p}`;
  if (e.ci[1] < 0) return `${said}: ${arm} makes fewer character errors than ${vs} (the interval excludes 0).`;
  if (e.ci[0] > 0) return `${said}: ${arm} makes more character errors than ${vs} (the interval excludes 0).`;
  const detect = e.mde !== null && e.mde > 0 ? `; this study detects |${name}| ≥ ${mdeF(e.mde)}` : '';
  return `${said}: no difference between ${arm} and ${vs} that this study can tell from 0${detect}.`;
}

const contrastLabel = (c: ContrastResult) =>
  `${c.arm} − ${c.vs}${c.in_family ? '' : ' † (upper bound, not a finding)'}${c.exploratory ? ' (exploratory)' : ''}`;

function contrastSentence(a: ArmsAnalysis, c: ContrastResult): string {
  const invalid = a.arms.filter((r) => (r.name === c.arm || r.name === c.vs) && r.invalid_reason);
  if (invalid.length) return `**${contrastLabel(c)}**: not valid — ${invalid.map((r) => r.invalid_reason).join('; ')}.`;
  return answerSentence(contrastLabel(c), c.arm, c.vs, {
    delta: c.delta_cer,
    ci: c.ci,
    reason: c.reason,
    mde: c.mde,
    pHolm: c.in_family ? c.p_holm : null,
    n: c.n_paired,
    ...(c.metric ? { metric: c.metric } : {}),
  });
}

/** The metric, the profile and the method every answer sentence uses, in one line. */
function methodLine(a: ArmsAnalysis): string {
  const profile = a.profiles.find((p) => p.primary)?.profile ?? 'nfc';
  const scope = a.datasets.length > 1 ? `pooled over ${a.datasets.length} datasets` : `dataset ${a.datasets[0] ?? '—'}`;
  const metric =
    a.primary_metric === 'cmer'
      ? `ΔcMER = cMER(arm) − cMER(vs), ${scope}; cMER = Σ (S + D + I) / Σ (H + S + D + I) of the character alignment under the ${profile} profile; `
      : `ΔCER = CER(arm) − CER(vs), ${scope}; CER = Levenshtein over code points / gold characters under the ${profile} profile; `;
  return (
    metric +
    `95% CI: paired block bootstrap (${a.methods.bootstrap.iterations.toLocaleString('en')} resamples); p (Holm) over the planned contrasts (one family).`
  );
}

/** The answer for a study of arms: a sentence per planned contrast, then the forest plot. */
export function armsAnswerBlocks(a: ArmsAnalysis, forest: RenderedChart | null): Block[] {
  const items = a.contrasts.map((c) => contrastSentence(a, c));
  return [
    { kind: 'h2', text: 'The answer', id: 'answer' },
    { kind: 'p', text: methodLine(a) },
    items.length
      ? { kind: 'list', items, id: 'answer-sentences' }
      : { kind: 'p', text: 'No planned contrast: one arm only.', id: 'answer-sentences' },
    ...(forest ? [{ kind: 'chart' as const, chart: forest }] : []),
  ];
}

/** The answer of a report without a study of arms: rag (RAG over OpenITI) − zero_shot (zero-shot), all datasets. */
export function documentAnswerBlocks(d: ReportDocs): Block[] {
  const o = d.comparison.overall ?? {};
  const b = o.bootstrap?.delta_cer ?? {};
  const sentence =
    o.valid === false
      ? `**rag − zero_shot**: not valid — ${o.invalid_reason}.`
      : answerSentence('rag (RAG over OpenITI) − zero_shot (zero-shot)', 'rag', 'zero_shot', {
          delta: o.delta?.cer_absolute ?? null,
          ci: b.ci95 ?? null,
          reason: b.reason ?? null,
          mde: b.mde ?? null,
          pHolm: null,
          n: d.comparison.meta?.n_paired ?? 0,
        });
  return [
    { kind: 'h2', text: 'The answer', id: 'answer' },
    {
      kind: 'p',
      text: `ΔCER = rag CER − zero_shot CER over every dataset's paired lines (CER: ${d.metrics.scoring?.cer ?? 'Levenshtein over code points'}); 95% CI: ${o.bootstrap?.method ?? 'bootstrap'}.`,
    },
    { kind: 'list', items: [sentence], id: 'answer-sentences' },
  ];
}
