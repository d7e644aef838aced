/**
 * The planned contrasts measured (analysis/study/planned-contrasts.ts picks them): each pair of arms compared on the same
 * lines per dataset, pooled and as the macro average over datasets, and one Holm family over every contrast of
 * every scope — upper-bound (oracle) arms stay out of it (their p_holm is null), so adding one never weakens a
 * method's adjusted p. With `metric: 'cmer'` every contrast is ΔcMER (./compare-cmer.ts), measured apart from the
 * arms' `vs_baseline` ΔCER.
 */
import {
  applyHolmFamily,
  baselineKey,
  comparePaired,
  POOLED,
  type HolmMember,
  type MacroComparison,
  type PairedComparison,
  type PairedMemo,
  type ResampleSettings,
  type Scope,
} from './compare';
import { compareCmer } from './compare-cmer';
import type { ContrastKind, ContrastSpec } from './planned-contrasts';

/** The figure the planned contrasts, their Holm family and the report's answer use (`analysis.primary_metric`). */
export type PrimaryMetric = 'cer' | 'cmer';

export type HeldComparison = PairedComparison & { p_holm: number | null };
export type HeldMacro = MacroComparison & { p_holm: number | null };

export interface ContrastResult extends HeldComparison {
  /** ΔCER = CER(arm) − CER(vs) (with `metric: "cmer"`, ΔcMER in delta_cer); negative = `arm` is better. */
  arm: string;
  vs: string;
  kind: ContrastKind;
  /** Only when the contrast is measured in cMER (`analysis.primary_metric: cmer`): delta_cer, ci, se, mde, p are ΔcMER's. */
  metric?: 'cmer';
  /** False when an upper-bound arm takes part: shown, not a finding, out of the Holm family. */
  in_family: boolean;
  /** With a frozen plan: a contrast the plan lacks — exploratory, out of the confirmatory Holm family. */
  exploratory?: boolean;
  macro: HeldMacro | null;
  datasets: Record<string, HeldComparison>;
}

/** Per-line edits of an arm on the study's lines (every arm has every line). */
export interface ArmEdits {
  ref: Float64Array;
  ce: Float64Array;
  /** Per line, the alignment's H + S + D + I (the denominator of cMER). */
  ct: Float64Array;
  upperBound: boolean;
}

/**
 * Measure every contrast on every scope and run Holm over the in-family ones. A contrast of an arm vs `baseline`
 * is that arm's `vs_baseline` comparison (the same seed key; taken from `memo` when already measured).
 */
export function measureContrasts(
  specs: ContrastSpec[],
  arms: Map<string, ArmEdits>,
  scopes: Scope[],
  s: ResampleSettings,
  {
    baseline,
    memo,
    confirmatory,
    metric = 'cer',
  }: { baseline: string; memo?: PairedMemo; confirmatory?: (c: ContrastSpec) => boolean; metric?: PrimaryMetric },
): ContrastResult[] {
  const results = specs.map((c): ContrastResult => {
    const a = arms.get(c.arm)!;
    const v = arms.get(c.vs)!;
    const datasets: Record<string, HeldComparison> = {};
    let pooled: HeldComparison | null = null;
    let macro: HeldMacro | null = null;
    for (const scope of scopes) {
      const key = c.vs === baseline ? baselineKey(c.arm, scope.key) : `contrast:${c.arm}:vs:${c.vs}:${scope.key}`;
      const { macro: m, ...cmp } =
        metric === 'cmer' ? compareCmer(v, a, scope, s, key) : comparePaired(a.ref, v.ce, a.ce, scope, s, key, memo);
      if (scope.key === POOLED) {
        pooled = { ...cmp, p_holm: null };
        macro = m ? { ...m, p_holm: null } : null;
      } else datasets[scope.key] = { ...cmp, p_holm: null };
    }
    const exploratory = confirmatory ? !confirmatory(c) : false;
    const in_family = !a.upperBound && !v.upperBound && !exploratory;
    const tag = metric === 'cmer' ? { metric } : {};
    return { arm: c.arm, vs: c.vs, kind: c.kind, ...tag, in_family, ...(exploratory ? { exploratory } : {}), ...pooled!, macro, datasets };
  });
  const family: HolmMember[] = [];
  for (const r of results) {
    if (!r.in_family) continue;
    family.push(r, ...Object.values(r.datasets));
    if (r.macro) family.push(r.macro);
  }
  applyHolmFamily(family);
  return results;
}

/** The contrast of `arm` vs `vs` (either direction as listed), if planned. */
export function findContrast(contrasts: ContrastResult[], arm: string, vs: string): ContrastResult | undefined {
  return contrasts.find((c) => c.arm === arm && c.vs === vs);
}
