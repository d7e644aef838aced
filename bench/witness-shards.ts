/**
 * Witness retrieval over a corpus larger than the OpenITI slice, in shards (docs/witness-shards.md): for each scale
 * s (1×, 3×, 10× the slice), the slice's works plus s − 1 copies of each with perturbed letters (every 20th Arabic
 * letter of a copy replaced by the next letter of the alphabet, from an offset of its own, so the copies do not
 * all match), indexed in `--shards` shards; then `--lines` real OCR_GS lines searched among their neighbours, one
 * shard in memory at a time. Build and search each run in a child process, whose peak RSS is reported (the build
 * holds one shard at a time; so does the search). Reference: one index over the 205 MB slice, 1 GB RSS
 * (README: Witness retrieval).
 *
 *   nice -n 10 npx tsx bench/witness-shards.ts --scales 1,3,10 --shards 8 --lines 500
 *   nice -n 10 npx tsx bench/witness-shards.ts --fraction 0.025 --scales 1,3,10 --shards 8 --lines 200   (a 40th of the slice as the base)
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadDataset } from '../src/datasets';
import { buildWitnessShards, linesInContext, selectWorkFiles, ShardedWitnessRetriever, type WorkFile } from '../src/witness';

const SHARED = path.resolve(import.meta.dirname, '..', '..', 'shared', 'data');
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const MB = 1024 * 1024;

/** A copy of a work file with every 20th Arabic letter shifted to the next one (from `offset`). */
async function perturbedCopy(src: string, dst: string, offset: number): Promise<void> {
  const out = createWriteStream(dst);
  let n = offset;
  const rl = readline.createInterface({ input: createReadStream(src, 'utf8'), crlfDelay: Infinity });
  for await (const line of rl) {
    const shifted =
      line.startsWith('#') || line.startsWith('~~')
        ? line.replace(/[\u0628-\u063a\u0641-\u064a]/g, (c) =>
            ++n % 20 === 0 ? String.fromCharCode(c.charCodeAt(0) === 0x064a ? 0x0628 : c.charCodeAt(0) + 1) : c,
          )
        : line;
    if (!out.write(shifted + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
}

/** The base corpus: the slice's works, or every (1/fraction)-th of them (`--fraction 0.05`: a twentieth), in order. */
async function baseFiles(): Promise<WorkFile[]> {
  const { files } = await selectWorkFiles({ openitiRoot: path.join(SHARED, 'openiti'), include: [] });
  const every = Math.max(1, Math.round(1 / Number(arg('fraction', '1'))));
  return files.filter((_, i) => i % every === 0);
}

async function corpusFiles(scale: number, tmp: string): Promise<WorkFile[]> {
  const files = await baseFiles();
  const out: WorkFile[] = [...files];
  for (let c = 1; c < scale; c++) {
    const dir = path.join(tmp, `copy${c}`);
    mkdirSync(dir, { recursive: true });
    for (const f of files) {
      const dst = path.join(dir, path.basename(f.file));
      if (!existsSync(dst)) await perturbedCopy(f.file, dst, c * 7);
      out.push({ ...f, file: dst, uri: `${f.uri}-copy${c}` });
    }
  }
  return out;
}

/** Child: build the scale's shards. */
async function childBuild(scale: number, shards: number, tmp: string): Promise<void> {
  const files = await corpusFiles(scale, tmp);
  const bytes = files.reduce((a, f) => a + statSync(f.file).size, 0);
  const t0 = performance.now();
  const m = await buildWitnessShards({ files, dir: path.join(tmp, `index-${scale}`), fingerprint: `bench-${scale}`, shards });
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    JSON.stringify({ bytes, works: m.works, key_chars: m.key_chars, shard_key_chars: m.shards.map((s) => s.key_chars), seconds }),
  );
}

/** Child: search real OCR lines over the shards, one in memory at a time. */
async function childSearch(scale: number, lines: number, tmp: string): Promise<void> {
  const ds = await loadDataset(
    { key: 'adab', type: 'paired_dir', path: path.join(SHARED, 'ocr-gs', 'book_IbnQutayba.Adab') },
    { limit: lines },
  );
  const r = ShardedWitnessRetriever.open(path.join(tmp, `index-${scale}`));
  const ctx = linesInContext(
    ds.samples.map((s) => s.ocr_text),
    1,
  );
  const t0 = performance.now();
  const hits = r.retrieveInContext(ctx, 3, 0.5);
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ lines: ctx.length, ms_per_line: ms / ctx.length, with_hits: hits.filter((h) => h.length > 0).length }));
}

function child(step: string, scale: number, tmp: string): { out: Record<string, unknown>; rssMB: number } {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      import.meta.filename,
      '--child',
      step,
      '--scale',
      String(scale),
      '--tmp',
      tmp,
      '--shards',
      arg('shards', '8'),
      '--lines',
      arg('lines', '500'),
      '--fraction',
      arg('fraction', '1'),
    ],
    { encoding: 'utf8', maxBuffer: 64 * MB, env: { ...process.env, PHASE5_LOG_LEVEL: 'warn' } },
  );
  if (r.status !== 0) throw new Error(`${step} ×${scale} failed: ${r.stderr.slice(-2000)}`);
  const [json, rss] = r.stdout.trim().split('\n').slice(-2);
  return { out: JSON.parse(json) as Record<string, unknown>, rssMB: Number(rss) };
}

if (process.argv.includes('--child')) {
  const step = arg('child', '');
  const scale = Number(arg('scale', '1'));
  const tmp = arg('tmp', '');
  if (step === 'build') await childBuild(scale, Number(arg('shards', '8')), tmp);
  else await childSearch(scale, Number(arg('lines', '500')), tmp);
  console.log(Math.round(process.resourceUsage().maxRSS / 1024)); // KB → MB
} else {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'witness-shards-bench-'));
  const scales = arg('scales', '1,3,10').split(',').map(Number);
  console.log(
    `witness shards: base ${arg('fraction', '1')} of the OpenITI slice, ${arg('shards', '8')} shards, ${arg('lines', '500')} OCR lines (IbnQutayba.Adab) among their neighbours`,
  );
  console.log('| scale | corpus | key chars | build | build peak RSS | search peak RSS | per OCR line |');
  console.log('|---|---|---|---|---|---|---|');
  try {
    for (const scale of scales) {
      const b = child('build', scale, tmp);
      const s = child('search', scale, tmp);
      console.log(
        `| ${scale}× | ${((b.out.bytes as number) / MB).toFixed(0)} MB, ${b.out.works as number} works | ${((b.out.key_chars as number) / 1e6).toFixed(0)} M | ${(b.out.seconds as number).toFixed(0)} s | ${b.rssMB} MB | ${s.rssMB} MB | ${(s.out.ms_per_line as number).toFixed(1)} ms |`,
      );
      rmSync(path.join(tmp, `index-${scale}`), { recursive: true, force: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
