/** The arms analysis warns, per arm, when its lines were answered by more than one served model. */
import { expect } from 'chai';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { analyzeArms } from '../../../analysis/study/arms';
import { FIXTURES } from '../../helpers/shared-data';
import { servedModelsWarning } from '../../../analysis/inputs/served-models';

const LINES = Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, gt: `قال أبو عثمان ${i}`, ocr: `قال ابو عثمان ${i}` }));

function writeArm(root: string, name: string, served: (i: number) => string | undefined): void {
  const dir = path.join(root, 'arms', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'arm.json'),
    JSON.stringify({ name, prompt: 'zero_shot', retrieval: null, upper_bound: false, model: 'asked', guard: null }),
  );
  const rows = LINES.map((l, i) => ({
    sample_id: l.id,
    dataset: 'D',
    prompt_type: 'zero_shot',
    prompt_version: 'v1',
    model: 'asked',
    ocr_text: l.ocr,
    gt_text: l.gt,
    corrected_text: i % 2 ? l.gt : l.ocr,
    raw_output: l.ocr,
    latency_ms: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    ...(served(i) !== undefined ? { served_model: served(i), system_fingerprint: null, finish_reason: 'stop' } : {}),
    error: null,
  }));
  writeFileSync(path.join(dir, 'corrections.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

describe('analysis: served models per arm', () => {
  it('names each served model with its line count, and says nothing for one model or none recorded', () => {
    expect(servedModelsWarning('a', [{ served_model: 'x' }, { served_model: 'y' }, { served_model: 'x' }])).to.equal(
      'arm a: lines were answered by 2 served models — x (2 line(s)), y (1 line(s)); its figures pool them',
    );
    expect(servedModelsWarning('a', [{ served_model: 'x' }, {}, { served_model: 'x' }])).to.equal(null);
    expect(servedModelsWarning('a', [{}, {}])).to.equal(null);
  });

  it('analyzeArms warns for the arm two boxes served, not for the one that one box served', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'served-models-'));
    try {
      writeArm(root, 'base', () => 'box/weights-a');
      writeArm(root, 'mixed', (i) => (i < 8 ? 'box/weights-a' : 'box/weights-b'));
      const a = await analyzeArms({
        resultsDir: root,
        baseline: 'base',
        bootstrap: { iterations: 20, seed: 1 },
        permutations: 20,
        write: false,
      });
      const served = a.warnings.filter((w) => /served models/.test(w));
      expect(served).to.deep.equal([
        'arm mixed: lines were answered by 2 served models — box/weights-a (8 line(s)), box/weights-b (4 line(s)); its figures pool them',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the default analysis warns for the rag corrections two boxes served', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'served-default-'));
    try {
      cpSync(path.join(FIXTURES, 'analysis', 'study'), root, { recursive: true });
      const file = path.join(root, 'phase5', 'corrections.jsonl');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const served = lines.map((l, i) => JSON.stringify({ ...JSON.parse(l), served_model: i === 0 ? 'box/b' : 'box/a' }));
      writeFileSync(file, served.join('\n') + '\n');
      const s = await analyzeDesignFiles({
        ragDir: path.join(root, 'phase5'),
        baselineDir: path.join(root, 'phase2'),
        bootstrap: { iterations: 20, seed: 1 },
        report: false,
        lines: false,
        progress: 'silent',
        maxFailedShare: 1,
      });
      // 10 lines in the file, 9 scored (one repeats a sample_id): box/b the first, box/a the 8 others.
      expect(lines).to.have.length(10);
      expect(s.warnings.filter((w) => /served models/.test(w))).to.deep.equal([
        `arm rag: lines were answered by 2 served models — box/a (8 line(s)), box/b (1 line(s)); its figures pool them`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
