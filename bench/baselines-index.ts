/**
 * The witness index bench/baselines.ts collates against: every work of the OpenITI slice (the two OCR_GS books'
 * sources among them), built once into `<out>/index-slice-<fingerprint>` — the same cache and fingerprint as
 * bench/witness-recall.ts `--corpus slice`, so either bench reuses the other's build.
 *
 *   npx tsx bench/baselines-index.ts [--out results/witness-bench]     (build only)
 */
import { readWitnessManifest, buildWitnessDir, selectWorkFiles } from '../src/witness';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Text } from '../src/util/hash';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_WITNESS_BENCH_DIR = path.join(REPO, 'results', 'witness-bench');

/** The whole-slice witness index directory, built when absent (minutes on two cores; about 800 MB on disk). */
export async function sliceWitnessDir(openitiRoot: string, out = DEFAULT_WITNESS_BENCH_DIR): Promise<string> {
  const params = { n: 5, stride: 1 };
  const { files, missing } = await selectWorkFiles({ openitiRoot, include: [] });
  const fingerprint = sha256Text(JSON.stringify({ v: 1, params, files: files.map((f) => [f.uri, statSync(f.file).size]) })).slice(0, 16);
  const dir = path.join(out, `index-slice-${fingerprint}`);
  if (readWitnessManifest(dir)) return dir;
  const t0 = Date.now();
  await buildWitnessDir({
    files,
    dir,
    fingerprint,
    missing,
    params,
    onWork: (d, t) => process.stderr.write(`\rwitness index: ${d}/${t} works`),
  });
  process.stderr.write(`\nwitness index built in ${((Date.now() - t0) / 1000).toFixed(0)} s → ${dir}\n`);
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out');
  const shared = process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data');
  console.log(await sliceWitnessDir(path.join(shared, 'openiti'), i >= 0 ? path.resolve(process.argv[i + 1]) : undefined));
}
