/**
 * The planned contrasts of a study: which pairs of arms are compared as findings, in one Holm family.
 * `study.contrasts` lists them ({arm, vs}: ΔCER = CER(arm) − CER(vs)); by default:
 *  - every arm vs the baseline;
 *  - rag vs placebo (is it the retrieved content, or just a longer prompt?): the rag arm against each
 *    random-retrieval arm;
 *  - every other retrieval variant (hybrid, another dense setting) vs rag;
 *  - the k series in order: arms that differ only in top_k (same k_group), each k against the next smaller.
 * "rag" is the arm named `rag` when there is one, else the dense arm whose top_k the placebo / variants share,
 * else the first dense arm. A contrast with an upper-bound (oracle) arm is shown but stays out of the family.
 */
import { UserInputError } from '../../src/stages/shared/types';
import type { ArmInfo } from '../inputs/arm-inputs';

export const CONTRAST_KINDS = ['vs_baseline', 'rag_vs_placebo', 'variant_vs_rag', 'k_series', 'configured'] as const;
export type ContrastKind = (typeof CONTRAST_KINDS)[number];

export interface ContrastSpec {
  arm: string;
  vs: string;
  kind: ContrastKind;
}

type Arm = Pick<ArmInfo, 'name' | 'prompt' | 'retrieval' | 'upper_bound'>;

const isDense = (a: Arm) => a.prompt === 'rag' && a.retrieval?.mode === 'dense' && !a.upper_bound;

function ragArm(arms: Arm[], baseline: string): Arm | null {
  const named = arms.find((a) => a.name === 'rag' && a.name !== baseline);
  if (named) return named;
  const dense = arms.filter((a) => isDense(a) && a.name !== baseline);
  const others = arms.filter((a) => a.prompt === 'rag' && !isDense(a) && !a.upper_bound && a.retrieval?.top_k != null);
  return dense.find((d) => others.some((o) => o.retrieval!.top_k === d.retrieval!.top_k)) ?? dense[0] ?? null;
}

/** The default contrasts (see the module comment), each unordered pair once, in the order listed there. */
export function defaultContrasts(arms: Arm[], baseline: string): ContrastSpec[] {
  const out: ContrastSpec[] = [];
  const seen = new Set<string>();
  const add = (arm: string, vs: string, kind: ContrastKind) => {
    const k = [arm, vs].sort().join('\u0000');
    if (arm === vs || seen.has(k)) return;
    seen.add(k);
    out.push({ arm, vs, kind });
  };
  for (const a of arms) if (a.name !== baseline) add(a.name, baseline, 'vs_baseline');
  const rag = ragArm(arms, baseline);
  if (rag) {
    for (const a of arms) if (a.retrieval?.mode === 'random') add(rag.name, a.name, 'rag_vs_placebo');
    for (const a of arms) {
      if (
        a === rag ||
        a.name === baseline ||
        a.prompt !== 'rag' ||
        a.upper_bound ||
        a.retrieval?.mode === 'random' ||
        a.retrieval?.mode === 'none'
      )
        continue;
      if (sameKSeries(a, rag)) continue;
      add(a.name, rag.name, 'variant_vs_rag');
    }
  }
  for (const series of kSeries(arms)) {
    for (let i = 1; i < series.length; i++) add(series[i].name, series[i - 1].name, 'k_series');
  }
  return out;
}

function sameKSeries(a: Arm, b: Arm): boolean {
  return !!a.retrieval?.k_group && a.retrieval.k_group === b.retrieval?.k_group && a.retrieval.top_k !== b.retrieval.top_k;
}

/** Arms with the same k_group and different top_k, sorted by k (series of two or more). */
function kSeries(arms: Arm[]): Arm[][] {
  const groups = new Map<string, Arm[]>();
  for (const a of arms) {
    const g = a.retrieval?.k_group;
    if (!g || a.retrieval?.top_k == null) continue;
    groups.set(g, [...(groups.get(g) ?? []), a]);
  }
  return [...groups.values()]
    .map((g) => [...g].sort((x, y) => x.retrieval!.top_k! - y.retrieval!.top_k! || (x.name < y.name ? -1 : 1)))
    .filter((g) => new Set(g.map((x) => x.retrieval!.top_k)).size >= 2);
}

/** The configured contrasts (`study.contrasts`), checked against the arms found; else the defaults. */
export function plannedContrasts(arms: Arm[], baseline: string, configured?: ReadonlyArray<{ arm: string; vs: string }>): ContrastSpec[] {
  if (!configured || configured.length === 0) return defaultContrasts(arms, baseline);
  const names = new Set(arms.map((a) => a.name));
  return configured.map((c, i) => {
    for (const n of [c.arm, c.vs]) {
      if (!names.has(n))
        throw new UserInputError(`study.contrasts.${i}: arm "${n}" has no analysed results — the arms are: ${[...names].join(', ')}`);
    }
    return { arm: c.arm, vs: c.vs, kind: c.vs === baseline ? 'vs_baseline' : 'configured' };
  });
}
