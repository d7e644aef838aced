/**
 * Which arms a study runs, by name, in order — pure (no I/O, no Node imports), so the infer workflow can call
 * it deterministically and the infer stage agrees with it (`studyPlan` in ./plan selects its arms by the same list).
 * Without `study:` the arms are the default ones: `infer.arms` in order, the zero-shot baseline left
 * out when `--baseline-dir` supplies it. `--arm NAME` runs that arm only (with `--import` it names the target instead).
 */
import type { Config } from '../../config/schema';
import type { RunOptions } from '../shared/types';

export function armNames(config: Config, options: Pick<RunOptions, 'baselineDir' | 'arm' | 'importFile'>): string[] {
  // --baseline-dir supplies the default arms' baseline; a study's arms all run (its baseline is one of them).
  const all = config.study ? allArmNames(config) : allArmNames(config).filter((c) => !(c === 'zero_shot' && options.baselineDir));
  return options.arm && !options.importFile ? all.filter((a) => a === options.arm) : all;
}

/** Every arm the config declares, in order. */
export function allArmNames(config: Config): string[] {
  return config.study ? config.study.arms.map((a) => a.name) : [...config.infer.arms];
}
