/**
 * Per-line vs block (clustered) uncertainty on all OCR_GS lines, without a model or an index: the identity
 * baseline (the OCR text) and `gold3` (the gold text on every third line, the OCR text elsewhere), per book,
 * pooled and as the macro average over books — the OCR's CER interval and gold3's ΔCER interval, each from
 * resampling lines (the old method) and clusters of 25 consecutive lines (analysis/block-stats.ts), with the
 * block SE, the minimum detectable effect and the permutation p. Then the whole arms analysis
 * (analysis/arms.ts) on the same lines with `--arms` arms, timed.
 *
 *   npx tsx bench/arms-ci.ts [--iterations 10000] [--block-lines 25] [--arms 5]
 *
 * Reference: the analysis of 5 arms × 5,092 lines with 10,000 resamples and 10,000 permutations should take
 * seconds (the scoring of the lines dominates), not minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeArms } from '../analysis/arms';
import { blockRateInterval, pairedBlockDelta, type BlockDesign } from '../analysis/block-stats';
import { clusterIds } from '../analysis/clusters';
import { scoreDistances } from '../src/text/distance';
import { gold3, identity, loadOcrGs, writeOcrGsArms, type ArmSpec } from '../test/helpers/ocrgs-arms';

const { values: args } = parseArgs({
  options: {
    iterations: { type: 'string', default: '10000' },
    'block-lines': { type: 'string', default: '25' },
    arms: { type: 'string', default: '5' },
  },
});
const iterations = Number(args.iterations);
const blockLines = Number(args['block-lines']);

const lines = await loadOcrGs();
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
    `gold3 vs identity (analysis/arms.ts): ΔCER ${pp(g.vs_baseline!.delta_cer)} pp ${ci(g.vs_baseline!.ci)}, detectable ≥ ${(g.vs_baseline!.mde! * 100).toFixed(2)} pp, p ${g.vs_baseline!.p}, p_holm ${g.vs_baseline!.p_holm}; macro ${pp(g.macro!.vs_baseline!.delta_cer)} ${ci(g.macro!.vs_baseline!.ci)}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
