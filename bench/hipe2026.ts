/**
 * The HIPE-OCRepair 2026 table reproduced: the task's icdar2017 en and fr references and every submitted run on
 * them (github.com/hipe-eval/HIPE-OCRepair-2026-eval, `data/`), scored with `phase5 score --profile hipe2026`
 * (analysis/outside/score-files.ts), beside each run's published cMER micro, cMER macro and preference score
 * (`results/per-run/<run>.json`, `averaged_scores`), to the 4 decimals published; and the time it takes.
 * The repository is AGPL-3.0 and its texts CC BY-NC-SA 4.0, so they are not copied into this project: fetch a
 * checkout and point the bench at it.
 *
 *   npx tsx bench/hipe2026.ts --data DIR [--results-dir OUT]
 *
 * Exits 1 when a figure differs by more than half a unit of the 4th decimal.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scoreFiles } from '../analysis/outside/score-files';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const data = arg('--data') ?? process.env.HIPE_OCREPAIR_2026_DIR;
if (!data) {
  console.error('bench/hipe2026: give --data DIR, a checkout of github.com/hipe-eval/HIPE-OCRepair-2026-eval');
  process.exit(2);
}
const LANGS = ['en', 'fr'];
const refFile = (l: string) => path.join(data, 'data', 'reference', `hipe-ocrepair-bench_v0.9_icdar2017_v1.1_test_${l}.jsonl`);
const runFiles = readdirSync(path.join(data, 'data', 'systems')).filter((f) =>
  LANGS.some((l) => f.includes(`_icdar2017_v1.1_masked-test_${l}_run`) && f.endsWith('.jsonl')),
);
/** `team_hipe-…_masked-test_en_run2.jsonl` → system `team-run2`, dataset `icdar2017_en`. */
const parse = (f: string) => {
  const m = /^(.+?)_hipe-ocrepair-bench_.*_masked-test_(\w+)_(run\d+)\.jsonl$/u.exec(f)!;
  return {
    name: `${m[1]}-${m[3]}`,
    dataset: `icdar2017_${m[2]}`,
    file: path.join(data, 'data', 'systems', f),
    run: f.replace(/\.jsonl$/u, ''),
  };
};
const runs = runFiles.map(parse);
const systems = runs.map((r) => ({ name: r.name, file: r.file }));
const resultsDir = arg('--results-dir') ?? mkdtempSync(path.join(tmpdir(), 'hipe2026-'));

const t0 = performance.now();
const cpu0 = process.cpuUsage();
const { analysis, files } = await scoreFiles({
  resultsDir,
  references: LANGS.map(refFile),
  systems,
  normalization: { primary: 'hipe2026', secondary: [] },
  onStep: (line) => console.log(`  ${line}`),
});
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;

const FIGURES = [
  ['cmer', 'cmer_micro'],
  ['cmer_macro', 'cmer_macro'],
  ['preference', 'pref_score_cmer_macro'],
] as const;
let bad = 0;
console.log(`\n${'run'.padEnd(82)}  ${FIGURES.map(([, p]) => `${p} ours / published`.padStart(36)).join('')}`);
for (const r of runs.sort((a, b) => (a.run < b.run ? -1 : 1))) {
  const m = analysis.arms.find((a) => a.name === r.name)!.datasets[r.dataset];
  const pub = JSON.parse(readFileSync(path.join(data, 'results', 'per-run', `${r.run}.json`), 'utf8')).averaged_scores;
  const cells = FIGURES.map(([ours, theirs]) => {
    const x = ours === 'preference' ? m.preference.score! : m[ours]!;
    const y = pub[theirs][0] as number;
    const ok = Math.abs(x - y) <= 5e-5 + 1e-9;
    if (!ok) bad++;
    // Ours to 6 decimals (arms.json's), theirs as published: a 6-decimal figure ending in 50 rounds either way.
    return `${x.toFixed(6)} / ${y.toFixed(4)} ${ok ? '  ' : '✗ '}`.padStart(36);
  });
  console.log(`${r.run.padEnd(82)}  ${cells.join('')}`);
}
const lines = analysis.arms[0]?.lines ?? 0;
const named = new Set(systems.map((s) => s.name)).size;
console.log(
  `\n${runs.length} runs (${named} systems × ${lines} documents, ${LANGS.length} datasets), ${files.length} files in ${resultsDir}`,
);
console.log(
  `phase5 score: ${seconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU (goal < 30 s for 7 systems × 200 documents); ${bad} figure(s) off by more than 0.00005`,
);
process.exit(bad ? 1 : 0);
