/**
 * A fingerprint of the arms analysis's outputs on a fixed synthetic study, to show that a change to its speed
 * leaves every figure as it was: `npx tsx bench/arms-analysis-check.ts [--lines 3000] [--arms 8] [--resamples 500]`
 * writes the study (bench/synthetic-arms.ts), analyses it (seed 1, a fixed generated_at) and prints the SHA-256
 * of arms.json, each arm's metrics.json and the tidy files (lines.csv.gz decompressed; lines.parquet as written),
 * plus the analysis's CPU seconds. Run it before and after a change and compare the hashes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { analyzeArms } from '../analysis/study/arms';
import { OCR_GS_ROOT } from '../test/helpers/shared-data';
import { writeSyntheticArms } from './synthetic-arms';

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '3000' },
    arms: { type: 'string', default: '8' },
    resamples: { type: 'string', default: '500' },
    keep: { type: 'boolean', default: false },
  },
});
const root = mkdtempSync(path.join(os.tmpdir(), 'bench-arms-check-'));
const names = await writeSyntheticArms(root, OCR_GS_ROOT, Number(args.lines), Number(args.arms));
const iterations = Number(args.resamples);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const a = await analyzeArms({
  resultsDir: root,
  baseline: 'zero_shot',
  bootstrap: { iterations, seed: 1 },
  permutations: iterations,
  generatedAt: '2026-01-01T00:00:00.000Z',
});
const cpu = process.cpuUsage(cpu0);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex').slice(0, 16);
const read = (f: string) => readFileSync(path.join(root, f));
console.log(
  `${a.arms[0].lines} lines × ${a.arms.length} arms, ${iterations} resamples: ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU-s`,
);
for (const f of ['study/arms.json', ...names.map((n) => `arms/${n}/metrics.json`), 'study/lines.parquet'])
  console.log(`${sha(read(f))}  ${f}`);
console.log(`${sha(gunzipSync(read('study/lines.csv.gz')))}  study/lines.csv.gz (decompressed)`);
if (args.keep) console.log(`kept: ${root}`);
else rmSync(root, { recursive: true, force: true });
