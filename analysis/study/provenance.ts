/**
 * "When does retrieval help?": every arm's ΔCER (vs the baseline arm and vs the raw OCR) split by whether the
 * line's gold passage was in the arm's context, and by the line's strongest hit class (src/witness/provenance.ts:
 * same_passage / same_work / other_work / unknown_work / no_context), with paired bootstrap 95 % CIs (lines
 * resampled within their dataset; analysis/stats/bootstrap.ts). The context is the arm's own inference_input.jsonl, so
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
import { bootstrapRates, DEFAULT_BOOTSTRAP, seedFor } from '../stats/bootstrap';
import { clusterIds, DEFAULT_BLOCK_LINES, type ClusterSpec } from '../stats/clusters';
import { DEFAULT_MIN_CLUSTERS, tooFewClusters } from '../stats/min-clusters';
import { cmpStr, round } from '../format';
import { scoredText } from '../score/failed-line';

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

const keyOf = (dataset: string, id: string) => `${dataset}\u0000${id}`;

/** dataset + sample_id → its cluster, from the baseline arm's line order (as the arms analysis clusters). */
function clusterOf(base: LoadedArm, spec: ClusterSpec): Map<string, string> {
  const out = new Map<string, string>();
  for (const [dataset, lines] of base.byDataset) {
    const ids = lines.map((l) => l.record.sample_id);
    const c = clusterIds(ids, spec, dataset).ids;
    ids.forEach((id, i) => out.set(keyOf(dataset, id), `${dataset}\u0000${c[i]}`));
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
      const key = keyOf(dataset, r.sample_id);
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
    out.set(keyOf(r.dataset, r.sample_id), lineProvenance(r, sources[r.dataset] ?? null));
  }
  return out;
}

function split(rows: readonly { arm: Scored; base: Scored }[], seed: number, iterations: number, minClusters: number): ProvenanceSplit {
  const clusters = new Set(rows.map((r) => r.arm.cluster)).size;
  const reason = rows.length === 0 ? null : tooFewClusters(clusters, minClusters);
  const ref = rows.map((r) => r.arm.ref);
  const strata = rows.map((r) => r.arm.dataset);
  const ids = [...new Set(strata)].sort(cmpStr);
  const b = bootstrapRates(
    ref,
    { a: rows.map((r) => r.arm.ce), base: rows.map((r) => r.base.ce), ocr: rows.map((r) => r.arm.ocr) },
    { d: ['base', 'a'], o: ['ocr', 'a'] },
    { iterations: reason === null ? iterations : 0, seed, strata: strata.map((s) => ids.indexOf(s)) },
  );
  const r4 = (x: number | null) => (x === null ? null : round(x, 6));
  const ci = (c: [number, number] | null) => (c ? ([round(c[0], 6), round(c[1], 6)] as [number, number]) : null);
  return {
    lines: rows.length,
    cer: r4(b.rates.a.estimate),
    cer_baseline: r4(b.rates.base.estimate),
    cer_ocr: r4(b.rates.ocr.estimate),
    delta: r4(b.deltas.d.estimate),
    ci95: ci(b.deltas.d.ci95),
    delta_vs_ocr: r4(b.deltas.o.estimate),
    ci95_vs_ocr: ci(b.deltas.o.ci95),
    clusters,
    reason,
  };
}

/** The splits of every arm (the baseline included: its "vs baseline" deltas are 0). */
export async function analyzeProvenance(o: ProvenanceOptions): Promise<ProvenanceAnalysis> {
  const { arms } = await discoverArms(path.resolve(o.resultsDir), o.datasets);
  const base = arms.find((a) => a.info.name === o.baseline);
  if (!base) throw new Error(`provenance: baseline arm "${o.baseline}" not found under ${o.resultsDir}/arms`);
  const clusters = clusterOf(base, o.bootstrap?.clusters ?? { blockLines: DEFAULT_BLOCK_LINES });
  const baseRows = scoreArm(base, clusters);
  const iterations = o.bootstrap?.iterations ?? DEFAULT_BOOTSTRAP.iterations;
  const seed = o.bootstrap?.seed ?? DEFAULT_BOOTSTRAP.seed;
  const minClusters = o.bootstrap?.minClusters ?? DEFAULT_MIN_CLUSTERS;
  const out: ArmProvenance[] = [];
  for (const arm of arms) {
    const rows = scoreArm(arm, clusters);
    const ctx = await armContexts(arm, o.sources);
    const joined = [...rows.values()]
      .filter((r) => baseRows.has(r.key))
      .map((r) => ({ arm: r, base: baseRows.get(r.key)!, p: ctx.get(r.key) ?? null }));
    const s = (label: string, sel: typeof joined) => split(sel, seedFor(seed, `${arm.info.name}:${label}`), iterations, minClusters);
    const byClass: ArmProvenance['by_class'] = {};
    for (const c of ['same_passage', 'same_work', 'other_work', 'unknown_work', 'no_context'] as LineClass[]) {
      const sel = joined.filter((j) => (j.p?.best ?? 'no_context') === c);
      if (sel.length > 0) byClass[c] = s(c, sel);
    }
    const yes = joined.filter((j) => j.p?.gold_in_context === true);
    out.push({
      arm: arm.info.name,
      gold_in_context_rate: joined.length ? (round(yes.length / joined.length, 6) ?? 0) : 0,
      by_gold_in_context: {
        yes: s('yes', yes),
        no: s(
          'no',
          joined.filter((j) => j.p?.gold_in_context !== true),
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
