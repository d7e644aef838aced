/** The report's Plan section (docs/plan.md#frozen-plan): the frozen plan beside what the run did. */
import type { ArmsAnalysis } from '../../study/types';
import { dash, labelledTable, type Block } from '../blocks';

const int = (n: number | null) => (n === null ? dash : n.toLocaleString('en'));
const mdeF = (x: number | null) => (x === null ? dash : `${(x * 100).toFixed(2)} pp`);

export function planBlocks(a: ArmsAnalysis): Block[] {
  const p = a.plan_lock;
  if (!p) return [];
  const flags = [
    p.after_first_correction
      ? 'written after the first correction — flagged: its contrasts were not fixed before any result existed'
      : null,
    p.not_under_lock.length ? `corrections made under no lock or another one: ${p.not_under_lock.join(', ')}` : null,
  ].filter((x): x is string => x !== null);
  const expl = [
    ...p.exploratory.contrasts.map((c) => `contrast ${c.arm} vs ${c.vs}`),
    ...p.exploratory.arms.map((x) => `arm ${x}`),
    ...p.exploratory.profiles.map((x) => `profile ${x}`),
  ];
  const rows = p.arms.map((r) => [
    r.arm,
    int(r.planned_requests),
    int(r.actual_requests),
    int(r.planned_prompt_tokens),
    int(r.actual_prompt_tokens),
  ]);
  const t = p.totals;
  rows.push(['total', int(t.planned_requests), int(t.actual_requests), int(t.planned_prompt_tokens), int(t.actual_prompt_tokens)]);
  return [
    { kind: 'h3', text: 'Plan' },
    {
      kind: 'p',
      text:
        `Frozen plan plan.lock.json, sha256 ${p.sha256}, written ${p.written_at}` +
        (flags.length ? `; ${flags.join('; ')}.` : '; every arm was corrected under it.') +
        ` Planned time: ${hours(t.planned_seconds)}; actual (first arm's start to the last correction): ${hours(t.actual_seconds)}.`,
    },
    labelledTable(['Arm', 'Requests planned', 'Requests made', 'Prompt tokens planned', 'Prompt tokens counted'], rows),
    labelledTable(
      ['Contrast', 'Detectable |ΔCER| planned', 'Detectable |ΔCER| measured'],
      p.contrasts.map((c) => [`${c.arm} vs ${c.vs}`, mdeF(c.planned_mde), mdeF(c.actual_mde)]),
    ),
    {
      kind: 'p',
      text: expl.length
        ? `Exploratory (not in the frozen plan, outside the confirmatory Holm family): ${expl.join(', ')}.`
        : 'Every contrast, arm and profile reported is in the frozen plan.',
    },
  ];
}

function hours(seconds: number | null): string {
  return seconds === null ? dash : `${(seconds / 3600).toFixed(2)} h`;
}
