/**
 * The planned contrasts of a run before it runs (docs/plan.md#power): the contrasts the analysis will test
 * (./contrasts.ts), the Holm family they form — every in-family contrast on every scope (each dataset, pooled,
 * the macro average with more than one dataset), as analysis/study/measure-contrasts.ts counts it — and each one's
 * detectable |ΔCER| at the planned lines (./plan-power.ts), from a pilot's corrections of both arms when they
 * exist, else from the OCR baseline.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CorrectionRecord, InferenceInputRow } from '../../src/llm/records';
import type { ArmRun } from '../../src/stages/study/arms';
import { scoreDistances, type ScoringOptions } from '../../src/text/distance';
import type { ClusterSpec } from '../stats/clusters';
import { plannedContrasts } from '../study/planned-contrasts';
import { linesNeeded, mdeFactor, plannedPower, type MeasuredLines } from './power';
import { scoredText } from '../score/failed-line';

export interface PlanContrast {
  arm: string;
  vs: string;
  /** Detectable |ΔCER| (CER fraction) at 80 % power, pooled, Holm family accounted; null when nothing measures it. */
  mde: number | null;
  /** Lines per dataset for `--target-mde` (null without it). */
  lines_needed: Record<string, number> | null;
}

export interface PlannedContrast extends PlanContrast {
  in_family: boolean;
  /** What the SE was measured on: `pilot` (both arms' corrections) or `ocr_baseline`. */
  source: 'pilot' | 'ocr_baseline';
  /** Measured lines the SE came from. */
  measured_lines: number;
  /** Pooled SE at the planned lines, and the detectable effect with α alone (no family). */
  se: number | null;
  mde_unadjusted: number | null;
}

export interface ContrastPlanInput {
  arms: ArmRun[];
  baseline: string;
  configured?: ReadonlyArray<{ arm: string; vs: string }>;
  /** The planned lines of each arm (the export rows infer will correct). */
  rows: Map<string, InferenceInputRow[]>;
  clusters: ClusterSpec;
  scoring: ScoringOptions;
  alpha: number;
  iterations: number;
  seed: number;
  targetMde?: number;
}

export interface ContrastPlan {
  contrasts: PlannedContrast[];
  /** Tests in the confirmatory Holm family: in-family contrasts × scopes. */
  family_size: number;
  alpha: number;
}

/** The corrected text of every line an arm has corrected (a failed line scores as its OCR text), by sample_id. */
function corrections(arm: ArmRun): Map<string, string> | null {
  if (!existsSync(arm.output)) return null;
  const out = new Map<string, string>();
  for (const line of readFileSync(arm.output, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { sample_id: string; corrected_text?: string; ocr_text: string; error?: CorrectionRecord['error'] };
    out.set(r.sample_id, scoredText({ ocr_text: r.ocr_text, corrected_text: r.corrected_text ?? '', error: r.error ?? null }));
  }
  return out.size > 0 ? out : null;
}

/** Per dataset: the measured lines of a contrast (pilot lines both arms corrected, else the OCR vs its full correction). */
function measured(rows: InferenceInputRow[], a: Map<string, string> | null, b: Map<string, string> | null, scoring: ScoringOptions) {
  const pilot = a !== null && b !== null;
  const byDataset = new Map<string, { ids: string[]; ref: number[]; vs: number[]; arm: number[] }>();
  for (const r of rows) {
    if (pilot && !(a.has(r.sample_id) && b.has(r.sample_id))) continue;
    const d = byDataset.get(r.dataset) ?? { ids: [], ref: [], vs: [], arm: [] };
    byDataset.set(r.dataset, d);
    const ocr = scoreDistances(r.gt_text, r.ocr_text, scoring);
    d.ids.push(r.sample_id);
    d.ref.push(ocr.refChars);
    d.vs.push(pilot ? scoreDistances(r.gt_text, a.get(r.sample_id)!, scoring).charEdits : ocr.charEdits);
    d.arm.push(pilot ? scoreDistances(r.gt_text, b.get(r.sample_id)!, scoring).charEdits : 0);
  }
  const out = new Map<string, MeasuredLines>();
  for (const [ds, d] of byDataset)
    out.set(ds, { sampleIds: d.ids, ref: Float64Array.from(d.ref), vs: Float64Array.from(d.vs), arm: Float64Array.from(d.arm) });
  return { pilot: pilot && out.size > 0, lines: out };
}

export function planContrasts(input: ContrastPlanInput): ContrastPlan {
  const info = input.arms.map((a) => ({
    name: a.name,
    prompt: a.prompt,
    upper_bound: a.upperBound,
    retrieval: {
      mode: a.retrieval.mode,
      top_k: a.retrieval.top_k,
      fingerprint: a.retrieval.fingerprint,
      k_group: a.retrieval.k_group ?? null,
    },
  }));
  const byName = new Map(input.arms.map((a) => [a.name, a]));
  // A plan of some arms (`--arm`) plans the contrasts among them only.
  const among = (c: { arm: string; vs: string }) => byName.has(c.arm) && byName.has(c.vs);
  const configured = input.configured?.filter(among) ?? [];
  const arms = info as Parameters<typeof plannedContrasts>[0];
  const specs = input.configured?.length
    ? configured.length
      ? plannedContrasts(arms, input.baseline, configured)
      : []
    : plannedContrasts(arms, input.baseline).filter(among);
  const datasets = new Set([...input.rows.values()].flatMap((rs) => rs.map((r) => r.dataset)));
  const scopes = datasets.size + 1 + (datasets.size > 1 ? 1 : 0);
  const inFamily = specs.filter((c) => !byName.get(c.arm)?.upperBound && !byName.get(c.vs)?.upperBound);
  const familySize = inFamily.length * scopes;
  const contrasts = specs.map((c): PlannedContrast => {
    const arm = byName.get(c.arm)!;
    const vs = byName.get(c.vs)!;
    const rows = input.rows.get(c.arm) ?? [];
    const m = measured(rows, corrections(vs), corrections(arm), input.scoring);
    const planned: Record<string, number> = {};
    for (const r of rows) planned[r.dataset] = (planned[r.dataset] ?? 0) + 1;
    const power = plannedPower({
      datasets: Object.fromEntries(Object.entries(planned).map(([ds, n]) => [ds, { measured: m.lines.get(ds) ?? empty, plannedLines: n }])),
      clusters: input.clusters,
      iterations: input.iterations,
      seed: input.seed,
    });
    const in_family = inFamily.includes(c);
    const mde = power.se === null ? null : mdeFactor(input.alpha, in_family ? familySize : 1) * power.se;
    return {
      arm: c.arm,
      vs: c.vs,
      mde,
      lines_needed: mde !== null && input.targetMde ? linesNeeded(planned, mde, input.targetMde) : null,
      in_family,
      source: m.pilot ? 'pilot' : 'ocr_baseline',
      measured_lines: [...m.lines.values()].reduce((n, l) => n + l.sampleIds.length, 0),
      se: power.se,
      mde_unadjusted: power.se === null ? null : mdeFactor(input.alpha, 1) * power.se,
    };
  });
  return { contrasts, family_size: familySize, alpha: input.alpha };
}

const empty: MeasuredLines = { sampleIds: [], ref: new Float64Array(0), vs: new Float64Array(0), arm: new Float64Array(0) };
