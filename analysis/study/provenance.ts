/**
 * "When does retrieval help?": every arm's ΔCER (vs the baseline arm and vs the raw OCR) split by whether the
 * line's gold passage was in the arm's context, and by the line's strongest hit class (src/witness/provenance.ts:
 * same_passage / same_work / other_work / unknown_work / no_context), with paired block-bootstrap 95 % CIs
 * (docs/statistics.md: the clusters a split's lines fall in, resampled within their dataset; ./compare.ts, as the
 * score bands). The context is the arm's own inference_input.jsonl, so
 * a zero-shot arm's lines all count as "no context". Scoring is the arms analysis's: Σ edits / Σ gold characters,
 * a failed correction scored as the OCR text. A split whose lines span fewer than `minClusters` clusters
 * (analysis/stats/clusters.ts, analysis/stats/min-clusters.ts) gets its estimates without intervals, with the reason.
 * Written to `<results>/study/provenance.json`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { readJsonl, writeJsonAtomic } from '../../src/io/jsonl';
import { scoreDistances } from '../../src/text/distance';
import { lineProvenance, SAME_PASSAGE_MIN_SIMILARITY, type LineClass, type LineProvenance } from '../../src/witness/provenance';
import { discoverArms, type LoadedArm } from '../inputs/arm-inputs';
import type { DefaultArms } from '../inputs/default-arms';
import { DEFAULT_BOOTSTRAP } from '../stats/bootstrap';
import { clusterIds, DEFAULT_BLOCK_LINES, type ClusterSpec } from '../stats/clusters';
import { DEFAULT_MIN_CLUSTERS, tooFewClusters } from '../stats/min-clusters';
import { cmpStr, ratio, round } from '../format';
import { comparePaired, subScope, type ResampleSettings, type Scope } from './compare';
import { scoredText } from '../score/failed-line';
import { lineKey } from '../inputs/records';

export interface ProvenanceSplit {
  lines: number;
  cer: number | null;
  cer_baseline: number | null;
  cer_ocr: number | null;
  /** CER(arm) − CER(baseline) on these lines, with its 95 % CI. */
  delta: number | null;
  ci95: [number, number] | null;
  delta_vs_ocr: number | null;
  ci95_vs_ocr: [number, number] | null;
  /** Clusters of lines the split spans (analysis/stats/clusters.ts). */
  clusters: number;
  /** Why ci95 and ci95_vs_ocr are null (too few clusters); null when they are given. */
  reason: string | null;
}

export interface ArmProvenance {
  arm: string;
  /** Share of the arm's lines with the gold passage in context. */
  gold_in_context_rate: number;
  by_gold_in_context: { yes: ProvenanceSplit; no: ProvenanceSplit };
  by_class: Partial<Record<LineClass, ProvenanceSplit>>;
}

export interface ProvenanceAnalysis {
  baseline: string;
  same_passage_min_similarity: number;
  normalization: string;
  arms: ArmProvenance[];
}

export interface ProvenanceOptions {
  resultsDir: string;
  baseline: string;
  /** Dataset → its source_pattern (datasets.*.source_pattern), for same_work / other_work. */
  sources: Record<string, string | undefined>;
  bootstrap?: { iterations?: number; seed?: number; clusters?: ClusterSpec; minClusters?: number };
  datasets?: readonly string[];
  write?: boolean;
  /** A config without `study:`: the default arms' folders (analysis/inputs/default-arms.ts). */
  defaultArms?: DefaultArms;
}

interface Scored {
  key: string;
  dataset: string;
  /** The line's cluster (dataset and cluster index in the baseline arm's order). */
  cluster: string;
  ref: number;
  ce: number;
  ocr: number;
}

/** dataset + sample_id → its cluster, from the baseline arm's line order (as the arms analysis clusters). */
function clusterOf(base: LoadedArm, spec: ClusterSpec): Map<string, string> {
  const out = new Map<string, string>();
  for (const [dataset, lines] of base.byDataset) {
    const ids = lines.map((l) => l.record.sample_id);
    const c = clusterIds(ids, spec, dataset).ids;
    ids.forEach((id, i) => out.set(lineKey(dataset, id), `${dataset}\u0000${c[i]}`));
  }
  return out;
}

function scoreArm(arm: LoadedArm, clusters: Map<string, string>): Map<string, Scored> {
  const out = new Map<string, Scored>();
  for (const [dataset, lines] of arm.byDataset) {
    for (const { record: r } of lines) {
      const hyp = scoredText(r);
      const ocr = scoreDistances(r.gt_text, r.ocr_text, { collapseWhitespace: true });
      const ce = hyp === r.ocr_text ? ocr.charEdits : scoreDistances(r.gt_text, hyp, { collapseWhitespace: true }).charEdits;
      const key = lineKey(dataset, r.sample_id);
      out.set(key, { key, dataset, cluster: clusters.get(key) ?? key, ref: ocr.refChars, ce, ocr: ocr.charEdits });
    }
  }
  return out;
}

/** Provenance of every line of an arm's context (its inference_input.jsonl; none for a zero-shot arm). */
async function armContexts(arm: LoadedArm, sources: ProvenanceOptions['sources']): Promise<Map<string, LineProvenance>> {
  const out = new Map<string, LineProvenance>();
  const file = path.join(arm.dir, 'inference_input.jsonl');
  if (arm.info.prompt === 'zero_shot' || !existsSync(file)) return out;
  for await (const { value } of readJsonl(file)) {
    const r = value as {
      dataset: string;
      sample_id: string;
      gt_text: string;
      retrieval_context?: string;
      retrieval_sources?: { source_uri: string }[];
    };
    out.set(lineKey(r.dataset, r.sample_id), lineProvenance(r, sources[r.dataset] ?? null));
  }
  return out;
}

type Joined = { arm: Scored; base: Scored; p: LineProvenance | null };

/** The joined lines of an arm as one scope: a block per cluster, a stratum per dataset. */
function pooledScope(rows: readonly Joined[]): Scope {
  const blocks = new Map<string, number>();
  const strata: number[] = [];
  const datasets = [...new Set(rows.map((r) => r.arm.dataset))].sort(cmpStr);
  const block = Int32Array.from(rows, (r) => {
    let b = blocks.get(r.arm.cluster);
    if (b === undefined) {
      b = blocks.size;
      blocks.set(r.arm.cluster, b);
      strata.push(datasets.indexOf(r.arm.dataset));
    }
    return b;
  });
  return { key: 'provenance', from: 0, to: rows.length, macro: false, design: { block, stratumOfBlock: Int32Array.from(strata) } };
}

const EMPTY_SPLIT: ProvenanceSplit = {
  lines: 0,
  cer: null,
  cer_baseline: null,
  cer_ocr: null,
  delta: null,
  ci95: null,
  delta_vs_ocr: null,
  ci95_vs_ocr: null,
  clusters: 0,
  reason: null,
};

/** The split of lines `idx` of `rows`: rates, and ΔCER vs the baseline and vs the OCR with block-bootstrap CIs. */
function split(rows: readonly Joined[], pooled: Scope, idx: readonly number[], s: ResampleSettings, key: string): ProvenanceSplit {
  if (idx.length === 0) return EMPTY_SPLIT;
  const scope = subScope(pooled, idx, key);
  const clusters = scope.design.stratumOfBlock.length;
  const reason = tooFewClusters(clusters, s.minClusters ?? DEFAULT_MIN_CLUSTERS);
  const pick = (f: (j: Joined) => number) => Float64Array.from(idx, (i) => f(rows[i]));
  const [ref, ce, base, ocr] = [pick((j) => j.arm.ref), pick((j) => j.arm.ce), pick((j) => j.base.ce), pick((j) => j.arm.ocr)];
  const sum = (x: Float64Array) => x.reduce((a, b) => a + b, 0);
  const R = sum(ref);
  const vsBase = comparePaired(ref, base, ce, scope, s, `${key}:vs_baseline`);
  const vsOcr = comparePaired(ref, ocr, ce, scope, s, `${key}:vs_ocr`);
  const r6 = (x: number | null) => (x === null ? null : round(x, 6));
  const rate = (x: Float64Array) => r6(ratio(sum(x), R));
  return {
    lines: idx.length,
    cer: rate(ce),
    cer_baseline: rate(base),
    cer_ocr: rate(ocr),
    delta: vsBase.delta_cer,
    ci95: reason === null ? vsBase.ci : null,
    delta_vs_ocr: vsOcr.delta_cer,
    ci95_vs_ocr: reason === null ? vsOcr.ci : null,
    clusters,
    reason,
  };
}

/** The splits of every arm (the baseline included: its "vs baseline" deltas are 0). */
export async function analyzeProvenance(o: ProvenanceOptions): Promise<ProvenanceAnalysis> {
  const { arms } = await discoverArms(path.resolve(o.resultsDir), o.datasets, o.defaultArms);
  const base = arms.find((a) => a.info.name === o.baseline);
  if (!base) throw new Error(`provenance: baseline arm "${o.baseline}" not found under ${o.resultsDir}/arms`);
  const clusters = clusterOf(base, o.bootstrap?.clusters ?? { blockLines: DEFAULT_BLOCK_LINES });
  const baseRows = scoreArm(base, clusters);
  // Intervals only: provenance.json gives no p, so no permutations are drawn.
  const resample: ResampleSettings = {
    iterations: o.bootstrap?.iterations ?? DEFAULT_BOOTSTRAP.iterations,
    permutations: 0,
    seed: o.bootstrap?.seed ?? DEFAULT_BOOTSTRAP.seed,
    minClusters: o.bootstrap?.minClusters ?? DEFAULT_MIN_CLUSTERS,
  };
  const out: ArmProvenance[] = [];
  for (const arm of arms) {
    const rows = scoreArm(arm, clusters);
    const ctx = await armContexts(arm, o.sources);
    const joined: Joined[] = [...rows.values()]
      .filter((r) => baseRows.has(r.key))
      .map((r) => ({ arm: r, base: baseRows.get(r.key)!, p: ctx.get(r.key) ?? null }));
    const pooled = pooledScope(joined);
    const where = (f: (j: Joined) => boolean) => joined.flatMap((j, i) => (f(j) ? [i] : []));
    const s = (label: string, idx: number[]) => split(joined, pooled, idx, resample, `${arm.info.name}:provenance:${label}`);
    const byClass: ArmProvenance['by_class'] = {};
    for (const c of ['same_passage', 'same_work', 'other_work', 'unknown_work', 'no_context'] as LineClass[]) {
      const idx = where((j) => (j.p?.best ?? 'no_context') === c);
      if (idx.length > 0) byClass[c] = s(c, idx);
    }
    const yes = where((j) => j.p?.gold_in_context === true);
    out.push({
      arm: arm.info.name,
      gold_in_context_rate: joined.length ? (round(yes.length / joined.length, 6) ?? 0) : 0,
      by_gold_in_context: {
        yes: s('yes', yes),
        no: s(
          'no',
          where((j) => j.p?.gold_in_context !== true),
        ),
      },
      by_class: byClass,
    });
  }
  const analysis: ProvenanceAnalysis = {
    baseline: o.baseline,
    same_passage_min_similarity: SAME_PASSAGE_MIN_SIMILARITY,
    normalization: 'CER on the analysis text (whitespace runs collapsed); passage similarity on witness keys (src/witness/key.ts)',
    arms: out,
  };
  if (o.write !== false) {
    const dir = path.join(path.resolve(o.resultsDir), 'study');
    mkdirSync(dir, { recursive: true });
    writeJsonAtomic(path.join(dir, 'provenance.json'), analysis);
  }
  return analysis;
}

/** A plain-text table of the split by gold-passage-in-context (benches, the CLI summary). */
export function formatProvenanceTable(a: ProvenanceAnalysis): string {
  const f = (x: number | null) => (x === null ? '—' : (x * 100).toFixed(2));
  const ci = (c: [number, number] | null) => (c ? `[${f(c[0])}, ${f(c[1])}]` : '');
  const lines = [
    `ΔCER (points) vs ${a.baseline} by "gold passage in context" (same passage: similarity ≥ ${a.same_passage_min_similarity})`,
    'arm | in context | lines | CER | ΔCER vs baseline [95% CI] | ΔCER vs OCR [95% CI]',
  ];
  for (const arm of a.arms) {
    for (const [label, s] of [
      ['yes', arm.by_gold_in_context.yes],
      ['no', arm.by_gold_in_context.no],
    ] as const) {
      if (s.lines === 0) continue;
      lines.push(
        `${arm.arm} | ${label} | ${s.lines} | ${f(s.cer)} | ${f(s.delta)} ${ci(s.ci95)} | ${f(s.delta_vs_ocr)} ${ci(s.ci95_vs_ocr)}`,
      );
    }
  }
  return lines.join('\n');
}
