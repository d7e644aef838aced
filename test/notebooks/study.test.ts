/**
 * notebooks/study.ipynb, executed (nbclient, in the .venv-notebook/ that `node scripts/setup.mjs --with-notebook`
 * creates) on a small study (test/analysis/arms-fixture.ts, analysed here): its CERs, contrast ΔCERs and
 * score-band ΔCERs, rebuilt with pandas from study/lines.parquet, equal arms.json's. Skipped, saying why, where
 * the venv is missing.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeArms, type ArmsAnalysis } from '../../analysis/study/arms';
import { writeArmsLinesTree } from '../analysis/arms-fixture';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PYTHON = path.join(ROOT, '.venv-notebook', 'bin', 'python');
const NOTEBOOK = path.join(ROOT, 'notebooks', 'study.ipynb');

const EXECUTE = `
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3").execute()
`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('notebooks/study.ipynb on a small study', function () {
  this.timeout(300000);
  let root: string;
  let arms: ArmsAnalysis;
  let numbers: Json;

  before(async function () {
    const ready =
      existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import nbclient, pandas, altair, pyarrow'], { encoding: 'utf8' }).status === 0;
    if (!ready) {
      console.log(
        '      skipped: no .venv-notebook with pandas, pyarrow, Altair and nbclient (run `node scripts/setup.mjs --with-notebook`)',
      );
      this.skip();
    }
    root = mkdtempSync(path.join(os.tmpdir(), 'notebook-'));
    writeArmsLinesTree(root);
    arms = await analyzeArms({ resultsDir: root, baseline: 'zero_shot', bootstrap: { iterations: 20, seed: 1 }, permutations: 20 });
    const out = path.join(root, 'numbers.json');
    const r = spawnSync(PYTHON, ['-c', EXECUTE, NOTEBOOK], {
      encoding: 'utf8',
      env: { ...process.env, RESULTS: root, NOTEBOOK_NUMBERS: out },
    });
    expect(r.status, `the notebook failed:\n${r.stderr.slice(-3000)}`).to.equal(0);
    numbers = JSON.parse(readFileSync(out, 'utf8')) as Json;
  });

  it('reads every row and rebuilds each arm’s CER exactly', () => {
    expect(numbers.rows).to.equal(4 * arms.arms.length);
    expect(numbers.cer).to.deep.equal(Object.fromEntries(arms.arms.map((a) => [a.name, a.cer])));
  });

  it('reproduces the contrast table’s ΔCER', () => {
    expect(arms.contrasts.length).to.be.at.least(1);
    expect(numbers.contrasts).to.deep.equal(arms.contrasts.map((c) => ({ arm: c.arm, vs: c.vs, ΔCER: c.delta_cer })));
  });

  it('draws the "when" figure from the same score-band ΔCERs as arms.json', () => {
    const want = arms.arms.flatMap((a) =>
      Object.entries(a.when.by_score_band ?? {})
        .filter(([, b]) => b.lines > 0)
        .map(([band, b]) => ({ arm: a.name, band, lines: b.lines, ΔCER: b.delta_cer })),
    );
    expect(want.length).to.be.at.least(1);
    expect(numbers.bands).to.deep.equal(want);
    expect(numbers.figure_layers).to.equal(2);
  });
});
