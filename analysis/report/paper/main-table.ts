/**
 * The paper's main table (study/paper/main_table.{tex,csv}): one row per dataset and arm (the pooled scope last when
 * there are several datasets) with CER and its CI, ΔCER vs the baseline arm with its CI and Holm-adjusted p, and the
 * bounded metrics (cMER / wMER, preference) when arms.json carries them. The CSV holds the numbers as fractions.
 */
import type { ArmMetrics, ArmResult, ArmsAnalysis } from '../../study/arms';
import { booktabs, texEscape, texNum, type TexColumn } from './latex';

export const POOLED = 'All datasets';

/** One row of the table: numbers, null where there is none (the reason is in the caption / the CSV's ci_reason). */
export type MainRow = Record<string, string | number | boolean | null>;

/** The optional bounded metrics of arms.json, by key (as fractions, preference as a score in [−1, 1]). */
const EXTRA = ['cmer', 'cmer_macro', 'wmer', 'wmer_macro'] as const;

function extraOf(m: ArmMetrics): Record<string, number | null | undefined> {
  const x = m as unknown as Record<string, unknown>;
  const pref = x.preference as { score?: number | null; ci95?: [number, number] | null } | undefined;
  const out: Record<string, number | null | undefined> = {};
  for (const k of EXTRA) out[k] = x[k] === undefined ? undefined : typeof x[k] === 'number' ? (x[k] as number) : null;
  if (pref !== undefined) {
    out.preference = pref?.score ?? null;
    out.preference_ci_lo = pref?.ci95?.[0] ?? null;
    out.preference_ci_hi = pref?.ci95?.[1] ?? null;
  }
  return out;
}

function row(dataset: string, arm: ArmResult, m: ArmMetrics): MainRow {
  const v = m.vs_baseline;
  const extra = Object.fromEntries(Object.entries(extraOf(m)).filter(([, x]) => x !== undefined)) as MainRow;
  return {
    dataset,
    arm: arm.name,
    baseline: arm.is_baseline,
    upper_bound: arm.upper_bound,
    lines: m.lines,
    cer: m.cer,
    cer_ci_lo: m.cer_ci?.[0] ?? null,
    cer_ci_hi: m.cer_ci?.[1] ?? null,
    wer: m.wer,
    ...extra,
    delta_cer: v?.delta_cer ?? null,
    delta_cer_ci_lo: v?.ci?.[0] ?? null,
    delta_cer_ci_hi: v?.ci?.[1] ?? null,
    p_holm: v?.p_holm ?? null,
    ci_reason: m.ci_reason ?? v?.reason ?? null,
  };
}

/** Every (dataset, arm) row; the columns of the bounded metrics only when some arm has them. */
export function mainRows(a: ArmsAnalysis): MainRow[] {
  const scopes: Array<[string, (r: ArmResult) => ArmMetrics | undefined]> = a.datasets.map((ds) => [ds, (r) => r.datasets[ds]]);
  if (a.datasets.length > 1) scopes.push([POOLED, (r) => r]);
  const rows = scopes.flatMap(([label, of]) => a.arms.filter((r) => of(r)).map((r) => row(label, r, of(r)!)));
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k] ?? null])));
}

const pct = (x: unknown, signed = false) => (typeof x === 'number' ? texNum(x * 100, 2, signed) : '---');
const withCi = (x: unknown, lo: unknown, hi: unknown, signed = false) =>
  typeof lo === 'number' && typeof hi === 'number' ? `${pct(x, signed)} [${pct(lo, signed)}, ${pct(hi, signed)}]` : pct(x, signed);
const pHolm = (x: unknown) => (typeof x !== 'number' ? '---' : x < 0.0001 ? '$<$0.0001' : texNum(x, 4));
const score = (x: unknown, lo: unknown, hi: unknown) =>
  typeof x !== 'number'
    ? '---'
    : `${texNum(x, 4, true)}${typeof lo === 'number' && typeof hi === 'number' ? ` [${texNum(lo, 4, true)}, ${texNum(hi, 4, true)}]` : ''}`;

/** The LaTeX columns: the bounded metrics' only when the rows have them. */
export function mainColumns(rows: readonly MainRow[]): TexColumn<MainRow>[] {
  const has = (k: string) => rows.some((r) => r[k] !== null && r[k] !== undefined);
  const armCell = (r: MainRow) => `${texEscape(String(r.arm))}${r.baseline ? ' (baseline)' : ''}${r.upper_bound ? ' \\dag' : ''}`;
  return [
    { head: 'Arm', align: 'l', cell: armCell, raw: true },
    { head: 'Lines', align: 'r', cell: (r) => String(r.lines) },
    { head: 'CER (\\%) [95\\% CI]', align: 'r', cell: (r) => withCi(r.cer, r.cer_ci_lo, r.cer_ci_hi), raw: true },
    ...EXTRA.filter(has).map((k): TexColumn<MainRow> => ({
      head: `${k.replace('_macro', ' macro').replace('mer', 'MER')} (\\%)`,
      align: 'r',
      cell: (r) => pct(r[k]),
      raw: true,
    })),
    ...(has('preference')
      ? [
          {
            head: 'Preference [95\\% CI]',
            align: 'r' as const,
            cell: (r: MainRow) => score(r.preference, r.preference_ci_lo, r.preference_ci_hi),
            raw: true,
          },
        ]
      : []),
    {
      head: '$\\Delta$CER (pp) [95\\% CI]',
      align: 'r',
      cell: (r) => (r.baseline ? '---' : withCi(r.delta_cer, r.delta_cer_ci_lo, r.delta_cer_ci_hi, true)),
      raw: true,
    },
    { head: '$p$ (Holm)', align: 'r', cell: (r) => pHolm(r.p_holm), raw: true },
  ];
}

export function mainTableTex(rows: readonly MainRow[], caption: string): string {
  return booktabs(rows, mainColumns(rows), { caption, label: 'tab:main', group: (r) => String(r.dataset) });
}
