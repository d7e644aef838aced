/** What `phase5 score` prints: per arm, pooled and per dataset, CER beside the bounded figures (JSON or a table). */
import type { ArmsAnalysis, ArmMetrics } from '../study/arms';

const FIELDS = ['lines', 'cer', 'wer', 'cmer', 'cmer_ci', 'cmer_macro', 'wmer', 'wmer_macro', 'preference'] as const;

type Figures = Pick<ArmMetrics, (typeof FIELDS)[number]>;

const pick = (m: ArmMetrics): Figures => Object.fromEntries(FIELDS.map((k) => [k, m[k]])) as Figures;

export interface ScoreSummary {
  profile: string;
  baseline: string;
  arms: Array<Figures & { name: string; datasets: Record<string, Figures> }>;
  warnings: string[];
}

export function scoreSummary(a: ArmsAnalysis): ScoreSummary {
  return {
    profile: a.profiles[0]?.profile ?? 'nfc',
    baseline: a.baseline,
    arms: a.arms.map((r) => ({
      name: r.name,
      ...pick(r),
      datasets: Object.fromEntries(Object.entries(r.datasets).map(([ds, m]) => [ds, pick(m)])),
    })),
    warnings: a.warnings,
  };
}

const f4 = (x: number | null) => (x === null ? '—' : x.toFixed(4));
const ci = (c: [number, number] | null) => (c ? `[${c[0].toFixed(2)}, ${c[1].toFixed(2)}]` : '—');

/** One table per scope (each dataset, then pooled when there are several), arms in the analysis's order. */
export function scoreTableLines(s: ScoreSummary): string[] {
  const header = ['arm', 'lines', 'CER', 'cMER', 'cMER macro', 'wMER', 'wMER macro', 'preference', '[95 % CI]', 'worse'];
  const row = (name: string, m: Figures) => [
    name,
    String(m.lines),
    f4(m.cer),
    f4(m.cmer),
    f4(m.cmer_macro),
    f4(m.wmer),
    f4(m.wmer_macro),
    f4(m.preference.score),
    ci(m.preference.ci95),
    f4(m.preference.worse_share),
  ];
  const datasets = Object.keys(s.arms[0]?.datasets ?? {});
  const scopes: Array<[string, (a: ScoreSummary['arms'][number]) => Figures | undefined]> = datasets.map((ds) => [
    ds,
    (a) => a.datasets[ds],
  ]);
  if (datasets.length > 1) scopes.push(['pooled', (a) => a]);
  const out = [`profile ${s.profile}; preference: mean sign of the cMER change vs the OCR text (+1 better), block-bootstrap CI`];
  for (const [scope, get] of scopes) {
    const rows = [header, ...s.arms.flatMap((a) => (get(a) ? [row(a.name, get(a)!)] : []))];
    const widths = header.map((_, k) => Math.max(...rows.map((r) => r[k].length)));
    out.push('', scope, ...rows.map((r) => r.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join('  ')));
  }
  return out;
}
