/**
 * The default arms' files in a results dir without `study:` (docs/outputs.md#layout): `rag` and `zero_shot`
 * each in `<results>/arms/<arm>/`, each reading its own inference_input.jsonl.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type DefaultArm = 'rag' | 'zero_shot';

/** `<results>/arms/<arm>/<file>`. */
export function armFile(resultsDir: string, arm: DefaultArm, file: string): string {
  return path.join(resultsDir, 'arms', arm, file);
}

/** `<results>/arms/<arm>/corrections.jsonl`. */
export function correctionsOf(resultsDir: string, arm: DefaultArm): string {
  return armFile(resultsDir, arm, 'corrections.jsonl');
}

/** A hand-made export: `text` as both default arms' inference_input.jsonl; returns the rag arm's. */
export function writeDefaultInput(resultsDir: string, text: string): string {
  for (const arm of ['zero_shot', 'rag'] as const) {
    mkdirSync(path.join(resultsDir, 'arms', arm), { recursive: true });
    writeFileSync(armFile(resultsDir, arm, 'inference_input.jsonl'), text);
  }
  return armFile(resultsDir, 'rag', 'inference_input.jsonl');
}

/** A study written in the analysis tests' two folders (test/analysis/helpers.ts writeStudy) moved to the default arms' folders. */
export function asDefaultArms(resultsDir: string, study: { ragDir: string; baselineDir: string }): { rag: string; zeroShot: string } {
  const rag = path.join(resultsDir, 'arms', 'rag');
  const zeroShot = path.join(resultsDir, 'arms', 'zero_shot');
  mkdirSync(path.join(resultsDir, 'arms'), { recursive: true });
  renameSync(study.ragDir, rag);
  renameSync(study.baselineDir, zeroShot);
  return { rag, zeroShot };
}
