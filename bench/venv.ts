/**
 * The Python reference environment for benchmarks: `.bench-venv/` (git-ignored) with onnxruntime (pinned to
 * the version of onnxruntime-node, so both sides run the same kernels), tokenizers, numpy and faiss-cpu.
 * Created on first use from PyPI.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../test/helpers/shared-data';

const VENV = path.join(REPO_ROOT, '.bench-venv');

function ortNodeVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = path.join(path.dirname(require.resolve('onnxruntime-node')), '..', 'package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

/** Path of the venv's python, creating and filling the venv when missing. */
export function ensureBenchVenv(): string {
  const py = path.join(VENV, 'bin', 'python');
  const want = [`onnxruntime==${ortNodeVersion()}`, 'tokenizers', 'numpy', 'faiss-cpu'];
  const ok = () => {
    try {
      execFileSync(py, ['-c', `import onnxruntime, tokenizers, numpy, faiss; assert onnxruntime.__version__ == "${ortNodeVersion()}"`], {
        stdio: 'ignore',
      });
      return true;
    } catch {
      return false;
    }
  };
  if (existsSync(py) && ok()) return py;
  console.error(`setting up ${VENV} (${want.join(' ')})…`);
  if (!existsSync(py)) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(py, ['-m', 'pip', 'install', '-q', ...want], { stdio: 'inherit' });
  if (!ok()) throw new Error(`could not set up ${VENV}`);
  return py;
}
