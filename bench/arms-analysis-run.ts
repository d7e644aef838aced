/**
 * One arms analysis (analysis/study/arms.ts, with the tidy table it writes) in a process of its own, so its peak RSS
 * is the analysis's: `node --import tsx bench/arms-analysis-run.ts <results dir> <iterations>` prints
 * `{"seconds":…,"cpuSeconds":…,"maxRssBytes":…,"lines":…,"arms":…}` (cpuSeconds: user + sys of this process, the
 * figure that counts on a shared machine). Run by bench/report-size.ts `--synthetic`.
 */
import { analyzeArms } from '../analysis/study/arms';

const [dir, iterations] = [process.argv[2], Number(process.argv[3] ?? 10000)];
const t0 = performance.now();
const a = await analyzeArms({ resultsDir: dir, baseline: 'zero_shot', bootstrap: { iterations, seed: 1 }, permutations: iterations });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(
  JSON.stringify({ seconds, cpuSeconds, maxRssBytes: process.resourceUsage().maxRSS * 1024, lines: a.arms[0].lines, arms: a.arms.length }),
);
