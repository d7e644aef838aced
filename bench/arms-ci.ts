/**
 * Per-line vs block (clustered) uncertainty on all OCR_GS lines, without a model or an index: the identity
 * baseline (the OCR text) and `gold3` (the gold text on every third line, the OCR text elsewhere), per book,
 * pooled and as the macro average over books — the OCR's CER interval and gold3's ΔCER interval, each from
 * resampling lines (the old method) and clusters of 25 consecutive lines (analysis/stats/block-stats.ts), with the
 * block SE, the minimum detectable effect and the permutation p. Then the whole arms analysis
 * (analysis/study/arms.ts) on the same lines with `--arms` arms, timed.
 *
 *   npx tsx bench/arms-ci.ts [--iterations 10000] [--block-lines 25] [--arms 5]
 *
 * Reference: the analysis of 5 arms × 5,092 lines with 10,000 resamples and 10,000 permutations should take
 * seconds (the scoring of the lines dominates), not minutes.
 *
 * Last, power before the run (`phase5 plan`, analysis/plan/power.ts): the detectable |ΔCER| of gold3 vs identity
 * planned for all lines — from the OCR baseline alone, and from random pilots (`--sample`, whole blocks) of
 * `--pilot` lines per book with gold3's corrections — beside the one the analysis reports on all lines.
 * Target: a pilot's plan within ±20 % of the analysis's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeArms } from '../analysis/study/arms';
import { blockRateInterval, pairedBlockDelta, type BlockDesign } from '../analysis/stats/block-stats';
import { clusterIds } from '../analysis/stats/clusters';
import { mdeFactor, plannedPower, type MeasuredLines } from '../analysis/plan/power';
import { sampled } from '../src/datasets/sample';
import { scoreDistances } from '../src/text/distance';
import { gold3, identity, loadOcrGs, writeOcrGsArms, type ArmSpec } from '../test/helpers/ocrgs-arms';

const { values: args } = parseArgs({
  options: {
    iterations: { type: 'string', default: '10000' },
    'block-lines': { type: 'string', default: '25' },
    arms: { type: 'string', default: '5' },
    pilot: { type: 'string', default: '200' },
  },
});
const iterations = Number(args.iterations);
const blockLines = Number(args['block-lines']);

const lines = await loadOcrGs();
const lines_ = lines;
const books = [...new Set(lines.map((s) => s.dataset))];
const ref = Float64Array.from(lines, (s) => scoreDistances(s.gt_text, s.gt_text).refChars);
const ocr = Float64Array.from(lines, (s) => scoreDistances(s.gt_text, s.ocr_text).charEdits);
const g3 = Float64Array.from(lines, (s, i) => scoreDistances(s.gt_text, gold3(s, i)!).charEdits);

/** Designs of a set of lines: each line its own cluster (per line) or blocks of consecutive lines, strata = books. */
function designs(idx: number[]): { line: BlockDesign; block: BlockDesign } {
  const strata = idx.map((i) => books.indexOf(lines[i].dataset));
  const block = new Int32Array(idx.length);
  const stratumOfBlock: number[] = [];
  for (const [s, book] of books.entries()) {
    const mine = idx.flatMap((i, k) => (lines[i].dataset === book ? [k] : []));
    if (mine.length === 0) continue;
    const { ids, count } = clusterIds(
      mine.map((k) => lines[idx[k]].sample_id),
      { blockLines },
      book,
    );
    const offset = stratumOfBlock.length;
    mine.forEach((k, j) => (block[k] = offset + ids[j]));
    for (let c = 0; c < count; c++) stratumOfBlock.push(s);
  }
  return {
    line: { block: Int32Array.from(idx, (_, k) => k), stratumOfBlock: Int32Array.from(strata) },
    block: { block, stratumOfBlock: Int32Array.from(stratumOfBlock) },
  };
}

const pp = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(2)}`);
const pct = (x: number) => (x * 100).toFixed(2);
const ci = (c: [number, number] | null) => (c ? `[${pp(c[0])}, ${pp(c[1])}]` : '—');
const rci = (c: [number, number] | null) => (c ? `[${pct(c[0])}, ${pct(c[1])}]` : '—');
const w = (c: [number, number] | null) => (c ? c[1] - c[0] : NaN);

const opts = { iterations, permutations: iterations, seed: 42 };
console.log(
  `OCR_GS: ${lines.length} lines, ${books.length} books; ${iterations} resamples / permutations; clusters = blocks of ${blockLines} consecutive lines\n`,
);
console.log(
  '| Scope | Lines | Clusters | OCR CER % | per-line CI | block CI | width × | gold3 ΔCER pp | per-line CI | block CI | SE × | MDE (block) pp | p perm (block) | p perm (line) |',
);
console.log('|---|---:|---:|---:|---|---|---:|---:|---|---|---:|---:|---:|---:|');
let t0 = performance.now();
for (const scope of [...books, 'pooled']) {
  const idx = lines.flatMap((s, i) => (scope === 'pooled' || s.dataset === scope ? [i] : []));
  const d = designs(idx);
  const pick = (x: Float64Array) => Float64Array.from(idx, (i) => x[i]);
  const [r, o, g] = [pick(ref), pick(ocr), pick(g3)];
  const macro = scope === 'pooled';
  const cerLine = blockRateInterval(r, o, d.line, iterations, 1);
  const cerBlock = blockRateInterval(r, o, d.block, iterations, 1);
  const dLine = pairedBlockDelta(r, o, g, d.line, opts, macro);
  const dBlock = pairedBlockDelta(r, o, g, d.block, opts, macro);
  const cer = o.reduce((x, y) => x + y, 0) / r.reduce((x, y) => x + y, 0);
  const row = (
    label: string,
    c: number | null,
    cl: [number, number] | null,
    cb: [number, number] | null,
    l: typeof dLine.pooled,
    b: typeof dLine.pooled,
  ) =>
    console.log(
      `| ${label} | ${idx.length} | ${b.clusters} | ${c === null ? '—' : pct(c)} | ${rci(cl)} | ${rci(cb)} | ${(w(cb) / w(cl)).toFixed(2)} | ${pp(b.delta)} | ${ci(l.ci95)} | ${ci(b.ci95)} | ${(b.se! / l.se!).toFixed(2)} | ${(b.mde! * 100).toFixed(2)} | ${b.p!.toPrecision(3)} | ${l.p!.toPrecision(3)} |`,
    );
  row(scope.replace('OCR_GS-', ''), cer, cerLine.ci95, cerBlock.ci95, dLine.pooled, dBlock.pooled);
  if (macro) row('macro (mean of books)', cerBlock.macro!.estimate, cerLine.macro!.ci95, cerBlock.macro!.ci95, dLine.macro!, dBlock.macro!);
}
console.log(`\nintervals above: ${((performance.now() - t0) / 1000).toFixed(2)} s`);

// The arms analysis itself on the same lines: identity baseline, gold3 and gold every k-th line for more arms.
const nArms = Math.max(2, Number(args.arms));
const arms: ArmSpec[] = [
  { name: 'identity', prompt: 'zero_shot', policy: identity },
  { name: 'gold3', policy: gold3 },
];
for (let k = 2; arms.length < nArms; k++)
  if (k !== 3)
    arms.push({ name: `gold${k}`, policy: (s, i) => (i % k === 0 ? s.gt_text : s.ocr_text), mode: k === 2 ? 'random' : 'dense', top_k: k });
const root = mkdtempSync(path.join(os.tmpdir(), 'arms-ci-'));
try {
  writeOcrGsArms(root, lines, arms);
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const a = await analyzeArms({
    resultsDir: root,
    baseline: 'identity',
    bootstrap: { iterations, seed: 42 },
    permutations: iterations,
    write: false,
  });
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const g = a.arms.find((x) => x.name === 'gold3')!;
  console.log(
    `\narms analysis: ${a.arms.length} arms × ${lines.length} lines, ${a.contrasts.length} contrasts, ${iterations} resamples + permutations: ${secs.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`,
  );
  console.log(
    `gold3 vs identity (analysis/study/arms.ts): ΔCER ${pp(g.vs_baseline!.delta_cer)} pp ${ci(g.vs_baseline!.ci)}, detectable ≥ ${(g.vs_baseline!.mde! * 100).toFixed(2)} pp, p ${g.vs_baseline!.p}, p_holm ${g.vs_baseline!.p_holm}; macro ${pp(g.macro!.vs_baseline!.delta_cer)} ${ci(g.macro!.vs_baseline!.ci)}`,
  );
  planVsReported(g.vs_baseline!.mde!);
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** The plan's detectable effect (α alone, as the analysis reports it) at all lines, from measured lines of each book. */
function plannedMde(pick: (book: string) => number[], fullyCorrected: boolean): { mde: number; lines: number } {
  const datasets: Record<string, { measured: MeasuredLines; plannedLines: number }> = {};
  let lines = 0;
  for (const book of books) {
    const idx = pick(book);
    lines += idx.length;
    const measured = {
      sampleIds: idx.map((i) => lines_[i].sample_id),
      ref: Float64Array.from(idx, (i) => ref[i]),
      vs: Float64Array.from(idx, (i) => ocr[i]),
      arm: Float64Array.from(idx, (i) => (fullyCorrected ? 0 : g3[i])),
    };
    datasets[book] = { measured, plannedLines: lines_.filter((s) => s.dataset === book).length };
  }
  const { se } = plannedPower({ datasets, clusters: { blockLines }, iterations, seed: 42 });
  return { mde: mdeFactor(0.05, 1) * se!, lines };
}

function planVsReported(reported: number): void {
  const pilot = Number(args.pilot);
  const all = (book: string) => lines_.flatMap((s, i) => (s.dataset === book ? [i] : []));
  const rows: string[][] = [];
  const row = (what: string, r: { mde: number; lines: number }) =>
    rows.push([what, String(r.lines), (r.mde * 100).toFixed(3), `${(((r.mde - reported) / reported) * 100).toFixed(1)} %`]);
  row('OCR baseline (all lines, a full correction)', plannedMde(all, true));
  for (const seed of [1, 2, 3, 4, 5]) {
    const pick = (book: string) => {
      const idx = all(book);
      const chosen = new Set(
        sampled(
          idx.map((i) => ({ sample_id: lines_[i].sample_id })),
          { lines: pilot, seed },
          { blockLines },
          book,
        ).map((x) => x.sample_id),
      );
      return idx.filter((i) => chosen.has(lines_[i].sample_id));
    };
    row(`pilot --sample ${pilot} --seed ${seed} (gold3 on the pilot)`, plannedMde(pick, false));
  }
  console.log(
    `\npower before the run: gold3 vs identity, detectable |ΔCER| at 80 % power (α = 0.05, no family), planned for all ${lines_.length} lines`,
  );
  console.log(`reported by the analysis on all lines: ${(reported * 100).toFixed(3)} pp\n`);
  console.log('| Measured on | Lines | Planned MDE pp | vs reported |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}
