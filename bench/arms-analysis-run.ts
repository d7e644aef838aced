/**
 * One arms analysis (analysis/study/arms.ts, with the tidy table it writes) in a process of its own, so its peak RSS
 * is the analysis's: `node --import tsx bench/arms-analysis-run.ts <results dir> <iterations>` prints
 * `{"seconds":…,"maxRssBytes":…,"lines":…,"arms":…}`. Run by bench/report-size.ts `--synthetic`.
 */
import { analyzeArms } from '../analysis/study/arms';

const [dir, iterations] = [process.argv[2], Number(process.argv[3] ?? 10000)];
const t0 = performance.now();
const a = await analyzeArms({ resultsDir: dir, baseline: 'zero_shot', bootstrap: { iterations, seed: 1 }, permutations: iterations });
const seconds = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ seconds, maxRssBytes: process.resourceUsage().maxRSS * 1024, lines: a.arms[0].lines, arms: a.arms.length }));
