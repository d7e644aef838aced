/**
 * `<results>/study_manifest.json` (docs/outputs.md#study_manifestjson): what produced a study's results — the
 * resolved config (it holds no secret: an API key is named by its variable only), the code version (git commit
 * and whether the work tree had changes), the versions of the installed packages, each local GGUF's sha256 and
 * the digests of the dataset files. Written when infer plans its arms, so it describes the run that corrects.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, resolvePath } from '../../config/load';
import type { Config } from '../../config/schema';
import { armConfig } from '../../config/study';
import { writeJsonAtomic } from '../../io/jsonl';
import { sha256File, sha256Text } from '../../util/hash';

export const MANIFEST_FILE = 'study_manifest.json';

/** Commit and dirty flag of the code, or null outside a git checkout. */
export function codeVersion(root = PROJECT_ROOT): { commit: string; dirty: boolean } | null {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit: git('rev-parse', 'HEAD').trim(), dirty: git('status', '--porcelain', '--untracked-files=no').trim() !== '' };
  } catch {
    return null;
  }
}

/** The installed version of every dependency package.json names (null where it is not installed). */
export function packageVersions(root = PROJECT_ROOT): Record<string, string | null> {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const out: Record<string, string | null> = { node: process.version };
  for (const name of Object.keys(pkg.dependencies ?? {}).sort()) {
    const file = path.join(root, 'node_modules', name, 'package.json');
    out[name] = existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? null) : null;
  }
  return out;
}

// A GGUF is GBs: hash it once per process for a given size and mtime.
const ggufHashes = new Map<string, Promise<string>>();
async function ggufDigest(file: string): Promise<{ path: string; bytes: number; sha256: string } | { path: string; missing: true }> {
  if (!existsSync(file)) return { path: file, missing: true };
  const st = statSync(file);
  const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
  if (!ggufHashes.has(key)) ggufHashes.set(key, sha256File(file));
  return { path: file, bytes: st.size, sha256: await ggufHashes.get(key)! };
}

/** A dataset's files: a JSONL file's sha256, or a paired folder's digest over its files' names and sha256s. */
async function datasetDigest(d: Config['datasets'][string]): Promise<Record<string, unknown>> {
  const abs = resolvePath(d.path);
  if (!existsSync(abs)) return { path: abs, missing: true };
  if (d.type === 'jsonl') return { path: abs, sha256: await sha256File(abs) };
  const named = readdirSync(abs, { withFileTypes: true }).filter((e) => e.name.endsWith(d.gt_suffix) || e.name.endsWith(d.ocr_suffix));
  // A folder named like a text file is skipped by the export (counted there); here it is counted, not read.
  const files = named
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
  const lines: string[] = [];
  for (const f of files) lines.push(`${f}\t${await sha256File(path.join(abs, f))}`);
  const notFiles = named.length - files.length;
  return { path: abs, files: files.length, ...(notFiles > 0 ? { not_files: notFiles } : {}), sha256: sha256Text(lines.join('\n')) };
}

/**
 * Write the manifest for `config`'s results dir (the arms' local models included; `servers`: each HTTP arm's
 * server as infer found it — kind, version, request rules —, a key only when there is one).
 */
export async function writeStudyManifest(config: Config, servers: Record<string, unknown> = {}): Promise<string> {
  const configs = [config, ...(config.study?.arms.map((a) => armConfig(config, a)) ?? [])];
  const models = [...new Set(configs.filter((c) => c.infer.backend === 'local').map((c) => resolvePath(c.infer.local.model_path)))];
  const datasets: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(config.datasets)) datasets[name] = await datasetDigest(d);
  const manifest = {
    written_at: new Date().toISOString(),
    code: codeVersion(),
    packages: packageVersions(),
    gguf: await Promise.all(models.map(ggufDigest)),
    datasets,
    ...(Object.keys(servers).length ? { servers } : {}),
    config,
  };
  const file = path.join(resolvePath(config.paths.results_dir), MANIFEST_FILE);
  writeJsonAtomic(file, manifest);
  return file;
}
