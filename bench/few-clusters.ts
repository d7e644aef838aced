/**
 * How the block bootstrap and the block permutation test behave with few clusters (docs/statistics.md "Too few
 * clusters", the reason for `analysis.min_clusters` = 10). Population: every cluster of 25 consecutive lines of
 * all OCR_GS books. A study of G clusters is drawn at random without replacement; its 95 % block-bootstrap
 * intervals of the OCR's CER and of ΔCER(gold on a random third of the lines − OCR) are checked against the
 * population's figures. Printed per G: the actual coverage of the nominal 95 % intervals, the number of distinct
 * bootstrap resamples, and the smallest p the sign-flip test can give (2 / 2^G).
 *
 *   nice -n 10 npx tsx bench/few-clusters.ts [--studies 1000] [--iterations 1000]
 *
 * Reference: at G = 1 a nominal 95 % interval covers the truth almost never; coverage rises with G and is near the
 * nominal level only from about 10 clusters; below 6 clusters the test cannot reach p < 0.05 at all.
 */
import { parseArgs } from 'node:util';
import { blockRateInterval, pairedBlockDelta, type BlockDesign } from '../analysis/stats/block-stats';
import { mulberry32 } from '../analysis/stats/bootstrap';
import { scoreDistances } from '../src/text/distance';
import { loadOcrGs } from '../test/helpers/ocrgs-arms';

const { values: args } = parseArgs({
  options: { studies: { type: 'string', default: '1000' }, iterations: { type: 'string', default: '1000' } },
});
const studies = Number(args.studies);
const iterations = Number(args.iterations);
const BLOCK = 25;

const lines = await loadOcrGs();
const rand = mulberry32(7);
const treated = lines.map(() => rand() < 1 / 3);
// Per cluster (25 consecutive lines of one book): gold characters, OCR edits, edits with the gold on the treated lines.
const clusters: Array<{ ref: number; ocr: number; gold3: number }> = [];
let prev = '';
let k = 0;
lines.forEach((s, i) => {
  if (s.dataset !== prev || k === BLOCK) {
    clusters.push({ ref: 0, ocr: 0, gold3: 0 });
    prev = s.dataset;
    k = 0;
  }
  k++;
  const d = scoreDistances(s.gt_text, s.ocr_text);
  const c = clusters[clusters.length - 1];
  c.ref += d.refChars;
  c.ocr += d.charEdits;
  c.gold3 += treated[i] ? 0 : d.charEdits;
});
const sum = (f: (c: (typeof clusters)[number]) => number) => clusters.reduce((x, c) => x + f(c), 0);
const trueCer = sum((c) => c.ocr) / sum((c) => c.ref);
const trueDelta = (sum((c) => c.gold3) - sum((c) => c.ocr)) / sum((c) => c.ref);

/** Distinct bootstrap resamples of G clusters: multisets of size G, C(2G − 1, G). */
function distinctResamples(g: number): number {
  let r = 1;
  for (let i = 1; i <= g; i++) r = (r * (g + i - 1)) / i;
  return Math.round(r);
}

console.log(
  `OCR_GS: ${lines.length} lines in ${clusters.length} clusters of ${BLOCK} lines; population OCR CER ${(trueCer * 100).toFixed(2)} %, ` +
    `ΔCER (gold on a random third) ${(trueDelta * 100).toFixed(2)} pp; ${studies} studies per G, ${iterations} resamples each\n`,
);
console.log('| Clusters G | coverage of CER CI | coverage of ΔCER CI | zero-width ΔCER CIs | distinct resamples | smallest p (2/2^G) |');
console.log('|---:|---:|---:|---:|---:|---:|');
const draw = mulberry32(11);
const t0 = performance.now();
for (const g of [1, 2, 3, 5, 7, 10, 15, 20, 40]) {
  let coverCer = 0,
    coverDelta = 0,
    zeroWidth = 0;
  for (let s = 0; s < studies; s++) {
    const pick = new Set<number>();
    while (pick.size < g) pick.add(Math.floor(draw() * clusters.length));
    const chosen = [...pick].map((i) => clusters[i]);
    const d: BlockDesign = { block: Int32Array.from(chosen, (_, i) => i), stratumOfBlock: new Int32Array(g) };
    const ref = chosen.map((c) => c.ref);
    const cer = blockRateInterval(
      ref,
      chosen.map((c) => c.ocr),
      d,
      iterations,
      s + 1,
      1,
    ).ci95!;
    if (cer[0] <= trueCer && trueCer <= cer[1]) coverCer++;
    const opts = { iterations, permutations: 1, seed: s + 1, minClusters: 1 };
    const delta = pairedBlockDelta(
      ref,
      chosen.map((c) => c.ocr),
      chosen.map((c) => c.gold3),
      d,
      opts,
    ).pooled.ci95!;
    if (delta[0] <= trueDelta && trueDelta <= delta[1]) coverDelta++;
    if (delta[0] === delta[1]) zeroWidth++;
  }
  const pct = (x: number) => `${((100 * x) / studies).toFixed(1)} %`;
  console.log(
    `| ${g} | ${pct(coverCer)} | ${pct(coverDelta)} | ${pct(zeroWidth)} | ${distinctResamples(g) < 1e9 ? distinctResamples(g).toLocaleString('en') : distinctResamples(g).toExponential(1)} | ${Math.min(1, 2 / 2 ** g).toPrecision(2)} |`,
  );
}
console.log(`\n${((performance.now() - t0) / 1000).toFixed(1)} s`);
