/**
 * OpenITI corpus builder benchmark (run: `npx tsx bench/parse-openiti.ts [openitiRoot] [--reps N] [--parse-only] [--hash]`).
 *
 * 1. parse+filter throughput on one core: every text file the metadata lists (all statuses) through the
 *    same per-file path a build uses (stream, parse, Arabic filter, length filter, within-file dedup);
 *    MB/s by wall clock and by CPU time (the CPU figure is the fairer one on a shared machine).
 * 2. peak RSS (process.resourceUsage().maxRSS) of the largest build the slice allows: all statuses,
 *    maxSentences above the eligible total, so every eligible sentence is written.
 * Each measurement runs in a fresh child process, so one does not inflate the other's peak RSS.
 * 3. with `--hash`: SHA-256 of every clean Arabic line of every file with the facts the parser found
 *    (code-point length, dedup-key hash, marks), and of the largest build's corpus.jsonl, so a change to
 *    the parser can show that its output stayed byte for byte the same.
 * Targets (printed, not asserted): ≥ 50 MB/s, ≤ 1 GB.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCorpus } from '../src/openiti/build-corpus';
import { readMetadata, resolveTextPath } from '../src/openiti/metadata';
import { parseOpenITIFile } from '../src/openiti/line-parser';
import { forEachLineBytes, forEachLineRange } from '../src/openiti/read-lines';
import { scanEligible } from '../src/openiti/scan-eligible';

const here = fileURLToPath(import.meta.url);
const defaultRoot = path.resolve(path.dirname(here), '..', '..', 'shared', 'data', 'openiti');
const MB = 1e6;
const repsArg = process.argv.indexOf('--reps');
const REPS = repsArg === -1 ? 3 : Number(process.argv[repsArg + 1]);

async function childParse(root: string): Promise<void> {
  const metaPath = path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv');
  const { rows } = await readMetadata(metaPath);
  const files = textFiles(root, rows, metaPath);
  let bytes = 0;
  let eligible = 0;
  let lines = 0;
  const ours = async (f: string) => {
    const s = await scanEligible(f, { minCharLen: 30, maxCharLen: 300 }); // counting, as pass 1 of a build
    bytes += s.bytes;
    eligible += s.eligible;
  };
  // References on this machine: read + UTF-8 check + find line ends (the floor of any parser), and the
  // same with every chunk decoded to a string (the parser decodes only lines it cannot judge as bytes).
  const read = (f: string) => forEachLineBytes(f, () => void lines++);
  const decode = (f: string) => forEachLineRange(f, () => {});
  const contestants = [ours, read, decode];
  for (const f of files) for (const each of contestants) await each(f); // warm-up: JIT and page cache
  // The contestants take turns on every file, in an order that rotates from file to file, so a change in
  // the machine's speed (a shared machine's neighbours come and go within seconds) hits all of them alike.
  const reps: { ours: { cpu: number; wall: number }; readCpu: number; decodeCpu: number }[] = [];
  for (let r = 0; r < REPS; r++) {
    bytes = 0;
    eligible = 0;
    lines = 0;
    const cpu = [0, 0, 0];
    let oursWall = 0;
    for (let i = 0; i < files.length; i++) {
      for (let j = 0; j < contestants.length; j++) {
        const k = (i + r + j) % contestants.length;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        await contestants[k](files[i]);
        if (k === 0) oursWall += performance.now() - t0;
        const cu = process.cpuUsage(cpu0);
        cpu[k] += cu.user + cu.system;
      }
    }
    reps.push({ ours: { cpu: cpu[0] / 1e6, wall: oursWall / 1000 }, readCpu: cpu[1] / 1e6, decodeCpu: cpu[2] / 1e6 });
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const r = { files: files.length, bytes, eligible, wall: med(reps.map((x) => x.ours.wall)), cpu: med(reps.map((x) => x.ours.cpu)) };
  const ratios = reps.map((x) => x.decodeCpu / x.ours.cpu);
  console.log(
    JSON.stringify({
      kind: 'parse',
      ...r,
      lines,
      readCpu: med(reps.map((x) => x.readCpu)),
      decodeCpu: med(reps.map((x) => x.decodeCpu)),
      ratio: med(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
      reps: REPS,
      maxRssKB: process.resourceUsage().maxRSS,
    }),
  );
}

function textFiles(root: string, rows: { localPath: string }[], metaPath: string): string[] {
  return rows.map((r) => resolveTextPath(root, path.dirname(metaPath), r.localPath)).flatMap((r) => (r.ok ? [r.file] : []));
}

/** SHA-256 of every clean Arabic line of the slice, each with its facts, in metadata order. */
async function childHashLines(root: string): Promise<void> {
  const metaPath = path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv');
  const { rows } = await readMetadata(metaPath);
  const hash = createHash('sha256');
  let lines = 0;
  for (const f of textFiles(root, rows, metaPath)) {
    await parseOpenITIFile(f, (text, p) => {
      lines++;
      hash.update(`${text}\t${p.lastCharLen}\t${p.lastKeyHashHi}:${p.lastKeyHashLo}\t${p.lastHasMarks ? 1 : 0}\n`);
    });
  }
  console.log(JSON.stringify({ kind: 'hash', lines, sha256: hash.digest('hex') }));
}

async function childBuild(root: string): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openiti-bench-'));
  try {
    const t0 = performance.now();
    const s = await buildCorpus({
      openitiRoot: root,
      outPath: path.join(dir, 'corpus.jsonl'),
      maxSentences: 50_000_000,
      statusFilter: 'all',
      progressMode: 'silent',
    });
    const wall = (performance.now() - t0) / 1000;
    console.log(
      JSON.stringify({
        kind: 'build',
        written: s.totalWritten,
        eligible: s.sentences.eligible,
        duplicateAcrossCorpus: s.sentences.duplicateAcrossCorpus,
        bytesParsed: s.bytesParsed,
        files: s.files.parsed,
        wall,
        countMs: s.durationMs.count,
        selectMs: s.durationMs.select,
        maxRssKB: process.resourceUsage().maxRSS,
        sha256: createHash('sha256')
          .update(readFileSync(path.join(dir, 'corpus.jsonl')))
          .digest('hex'),
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(kind: string, root: string): Record<string, number> {
  const r = spawnSync(process.execPath, [...process.execArgv, here, '--child', kind, root, '--reps', String(REPS)], {
    encoding: 'utf8',
    env: { ...process.env, PHASE5_LOG_LEVEL: 'error' },
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`bench child ${kind} failed (${r.status}):\n${r.stderr}`);
  const line = r.stdout.trim().split('\n').at(-1)!;
  return JSON.parse(line);
}

const FLAGS = ['--parse-only', '--hash'];
const args = process.argv.slice(2).filter((a, i, all) => a !== '--reps' && all[i - 1] !== '--reps' && !FLAGS.includes(a));
if (args[0] === '--child') {
  if (args[1] === 'parse') await childParse(args[2]);
  else if (args[1] === 'hash') await childHashLines(args[2]);
  else await childBuild(args[2]);
} else {
  const root = path.resolve(args[0] ?? defaultRoot);
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(`OpenITI builder benchmark — root ${root}`);
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${load} (CPU-time MB/s is the fairer figure when the machine is shared)`,
  );
  if (process.argv.includes('--hash')) {
    const h = runChild('hash', root);
    console.log(`clean lines (every file, with their facts): ${h.lines} lines, sha256 ${h.sha256}`);
    const b = runChild('build', root);
    console.log(`largest build's corpus.jsonl: ${b.written} sentences, sha256 ${b.sha256}`);
    process.exit(0);
  }
  const p = runChild('parse', root);
  const mbs = p.bytes / MB;
  console.log(
    `parse+filter (1 core): ${p.files} files, ${mbs.toFixed(1)} MB, ${p.eligible} eligible sentences — ` +
      `${(mbs / p.wall).toFixed(1)} MB/s wall (${p.wall.toFixed(2)} s), ${(mbs / p.cpu).toFixed(1)} MB/s per CPU-second (${p.cpu.toFixed(2)} s CPU)  [target ≥ 50 MB/s]`,
  );
  console.log(
    `  references on this machine (${p.lines} lines): read + UTF-8 check + find line ends ${(mbs / p.readCpu).toFixed(1)} MB/s per CPU-second; ` +
      `the same + decode every chunk ${(mbs / p.decodeCpu).toFixed(1)} MB/s per CPU-second`,
  );
  console.log(
    `  parse+filter / decode reference: ${p.ratio.toFixed(2)}× (median of ${p.reps} repetitions, ${p.ratioMin.toFixed(2)}–${p.ratioMax.toFixed(2)}; in each the contestants take turns file by file)  [goal ≥ 0.8×]`,
  );
  if (process.argv.includes('--parse-only')) process.exit(0);
  const b = runChild('build', root);
  console.log(
    `largest build (all statuses, every eligible sentence): ${b.written} written of ${b.eligible} eligible (${b.duplicateAcrossCorpus} cross-corpus duplicates dropped), ` +
      `${b.files} files, 2 × ${(b.bytesParsed / MB).toFixed(1)} MB read in ${b.wall.toFixed(1)} s (count ${(b.countMs / 1000).toFixed(1)} s, select ${(b.selectMs / 1000).toFixed(1)} s)`,
  );
  console.log(`  its corpus.jsonl: sha256 ${b.sha256}`);
  console.log(
    `peak RSS of that build: ${(b.maxRssKB / 1024).toFixed(0)} MB  [target ≤ 1024 MB]   (parse-only run: ${(p.maxRssKB / 1024).toFixed(0)} MB)`,
  );
}
