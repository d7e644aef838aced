/**
 * A small study-arms tree with replicates for the analysis tests: a baseline arm and an arm `rep` with 3
 * replicates (seeds 0, 1, 2) whose CERs differ, on 40 one-error OCR lines of one dataset.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** 40 lines of 10 gold characters, OCR with one wrong character each. */
const LINES = Array.from({ length: 40 }, (_, i) => ({ id: `l${String(i).padStart(2, '0')}`, gt: 'abcdefghij', ocr: 'abcdefghiX' }));

function writeCorrections(dir: string, correct: (i: number) => string, seed: number | null): void {
  mkdirSync(dir, { recursive: true });
  const rows = LINES.map((l, i) =>
    JSON.stringify({
      sample_id: l.id,
      dataset: 'D',
      prompt_type: 'zero_shot',
      prompt_version: 'v1',
      model: 'm',
      ocr_text: l.ocr,
      gt_text: l.gt,
      corrected_text: correct(i),
      raw_output: correct(i),
      latency_ms: 10,
      prompt_tokens: 20,
      completion_tokens: 5,
      error: null,
    }),
  );
  writeFileSync(path.join(dir, 'corrections.jsonl'), rows.join('\n') + '\n');
  if (seed !== null) writeFileSync(path.join(dir, 'replicate.json'), JSON.stringify({ replicate: 0, seed }));
}

/**
 * Baseline `base` leaves every OCR line as it is (CER 0.1). Arm `rep` has 3 replicates: replicate r fixes the
 * lines i with i % 4 < r + 1 → CER 0.075, 0.05, 0.025 (mean 0.05, SD 0.025).
 */
export function writeReplicatesTree(replicates: number[]): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'arms-replicates-'));
  const arm = (name: string, extra: object = {}) => {
    const dir = path.join(root, 'arms', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'arm.json'), JSON.stringify({ name, prompt: 'zero_shot', retrieval: { mode: 'none' }, ...extra }));
    return dir;
  };
  writeCorrections(arm('base'), (i) => LINES[i].ocr, null);
  const dir = arm('rep', { replicates: 3, seeds: [0, 1, 2] });
  for (const r of replicates) {
    const fix = (i: number) => (i % 4 < r + 1 ? LINES[i].gt : LINES[i].ocr);
    writeCorrections(r === 0 ? dir : path.join(dir, 'replicates', String(r)), fix, r);
  }
  return root;
}
