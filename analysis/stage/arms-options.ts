import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/config/schema';
import { readPlanLock } from '../../src/plan/plan-lock';
import type { RunOptions } from '../../src/stages/shared/types';
import { armsRoot } from '../inputs/arm-inputs';
import type { AnalyzeOptions, ArmsRunOptions } from '../types';
import { armsStats } from './arms-stats';
import { configuredModel } from './configured-model';
import { corpusExclusions } from './corpus-exclusions';

/**
 * The arms analysis runs when the config has a `study:` block, when `<results>/arms/` holds a study arm (an
 * arm.json), and for the default arms `rag` and `zero_shot` once both are corrected (their folders hold no
 * arm.json: analysis/inputs/default-arms.ts); the baseline is `study.baseline` (default `zero_shot`). Absent
 * otherwise (no arms to compare).
 */
export async function armsOptions(config: Config, cli: RunOptions, root: string): Promise<Pick<AnalyzeOptions, 'arms'>> {
  const study = config.study;
  const defaults = !study && !hasStudyArm(root);
  if (defaults && !hasDefaultArms(root)) return {};
  return {
    arms: {
      resultsDir: root,
      baseline: study?.baseline ?? 'zero_shot',
      ...(defaults ? { defaultArms: { topK: config.retrieval.top_k, model: configuredModel(config) } } : {}),
      exclusions: await corpusExclusions(config, cli),
      ...armsStats(config),
      ...planLockOption(config),
    },
  };
}

/** Both default arms corrected: `<results>/arms/{rag,zero_shot}/corrections.jsonl`. */
function hasDefaultArms(root: string): boolean {
  return ['rag', 'zero_shot'].every((arm) => existsSync(path.join(armsRoot(root), arm, 'corrections.jsonl')));
}

function hasStudyArm(root: string): boolean {
  const dir = armsRoot(root);
  return existsSync(dir) && readdirSync(dir).some((arm) => existsSync(path.join(dir, arm, 'arm.json')));
}

/** The frozen plan of the results dir (`phase5 plan --freeze`), when there is one. */
function planLockOption(config: Config): Pick<ArmsRunOptions, 'planLock'> {
  const lock = readPlanLock(config);
  return lock ? { planLock: lock } : {};
}
