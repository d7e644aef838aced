/**
 * The resampling loops of analysis/stats/block-stats.ts against the same resampling written the plain way
 * (test/helpers/reference-resampling.ts: Mulberry32.next() per draw, clusters through their index arrays): a study-sized
 * design (4,000 clusters in 5 strata, 10,000 bootstrap resamples and 10,000 permutations), nanoseconds per draw
 * of each, and whether both give the same interval and p (they must).
 *
 *   npx tsx bench/resample-draws.ts [--clusters 4000] [--strata 5] [--resamples 10000]
 */
import { parseArgs } from 'node:util';
import { pairedBlockDelta } from '../analysis/stats/block-stats';
import { Mulberry32 } from '../analysis/stats/resample-rng';
import { referenceDelta } from '../test/helpers/reference-resampling';

const { values: args } = parseArgs({
  options: {
    clusters: { type: 'string', default: '4000' },
    strata: { type: 'string', default: '5' },
    resamples: { type: 'string', default: '10000' },
  },
});
const [clusters, strata, resamples] = [Number(args.clusters), Number(args.strata), Number(args.resamples)];
const linesPerCluster = 25;
const n = clusters * linesPerCluster;
const gen = new Mulberry32(7);
const ref = Float64Array.from({ length: n }, () => 20 + Math.floor(gen.next() * 40));
const a = ref.map((r) => Math.floor(gen.next() * r * 0.2));
const b = ref.map((r) => Math.floor(gen.next() * r * 0.2));
const design = {
  block: Int32Array.from({ length: n }, (_, i) => Math.floor(i / linesPerCluster)),
  stratumOfBlock: Int32Array.from({ length: clusters }, (_, k) => Math.floor((k * strata) / clusters)),
};
const draws = 2 * resamples * clusters;
const time = <T>(f: () => T): { value: T; ns: number } => {
  const t = process.hrtime.bigint();
  const value = f();
  return { value, ns: Number(process.hrtime.bigint() - t) / draws };
};
const loops = time(() => pairedBlockDelta(ref, a, b, design, { iterations: resamples, permutations: resamples, seed: 11 }));
const plain = time(() => referenceDelta(ref, a, b, design, resamples, resamples, 11));
const same = JSON.stringify(loops.value.pooled.ci95) === JSON.stringify(plain.value.ci95) && loops.value.pooled.p === plain.value.p;
console.log(
  `${clusters} clusters in ${strata} strata, ${resamples} resamples + ${resamples} permutations (${(draws / 1e6).toFixed(0)} M draws)`,
);
console.log(`  block-stats loops   ${loops.ns.toFixed(2)} ns/draw`);
console.log(`  plain reference     ${plain.ns.toFixed(2)} ns/draw`);
console.log(`  same interval and p: ${same ? 'yes' : 'NO'}`);
if (!same) process.exitCode = 1;
