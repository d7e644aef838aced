/**
 * The study plan: what a config asks for and where each part lives, computed once per stage from the config
 * and the CLI options, and read by every stage instead of each re-deriving it. Pure apart from two stats (the
 * results root is checked to be a folder; the metadata file's size and mtime are part of a witness index's
 * fingerprint).
 *
 *   arms            every arm (name, role, prompt, effective config, the export it reads, its corrections)
 *   exports         one per distinct retrieval fingerprint, with the arms that read it (null without `study:`:
 *                   the single default export in <results>/exports/<fp>/)
 *   corpora         one per distinct arm `corpus` block, built and indexed once, with the arms that use it
 *   witnessIndexes  one per distinct witness settings, with the arms that use it
 *
 *   const plan = studyPlan(config, cli);
 *   for (const e of plan.exports ?? []) console.log(e.fingerprint, e.dir, e.arms);
 */
import path from 'node:path';
import type { Config } from '../../config/schema';
import { allArmNames, armNames } from './arm-names';
import { declaredArms, groupExports } from './arms';
import type { ArmRun, ExportGroup, WitnessIndexPlan } from './types';
import type { StagePaths } from '../build/retriever';
import { corpusPaths, studyLayout, type StudyDirs } from './layout';
import { UserInputError, type RunOptions } from '../shared/types';
import { witnessIndexFingerprint } from '../witness/witness-index';

/** One corpus (and its index) that study arms retrieve from besides the run's own. */
export interface CorpusPlan {
  /** The folder name under <results>/corpora/, a hash of the corpus settings (src/config/study.ts blockCorpus). */
  fingerprint: string;
  dir: string;
  paths: StagePaths;
  /** The effective config of the first arm that uses it: its `corpus` is the one to build. */
  config: Config;
  arms: string[];
}

export interface StudyPlan {
  dirs: StudyDirs;
  /** The run's corpus and index. */
  paths: StagePaths;
  /** The arms this run works on: all, or the one `--arm` names; without `study:`, `--baseline-dir` leaves zero_shot out. */
  arms: ArmRun[];
  /** Every arm the config declares (the export writes every arm's folder; `--import` may target any arm). */
  declared: ArmRun[];
  exports: ExportGroup[] | null;
  corpora: CorpusPlan[];
  witnessIndexes: WitnessIndexPlan[];
}

export type { WitnessIndexPlan } from './types';

export function studyPlan(config: Config, cli: RunOptions): StudyPlan {
  const layout = studyLayout(config, cli);
  const declared = declaredArms(config, layout);
  return {
    ...layout,
    arms: selectedArms(config, cli, declared),
    declared,
    exports: config.study ? groupExports(config, layout, declared) : null,
    corpora: armCorpora(declared, config.corpus.dir, (c) => corpusPaths(layout, c), layout.dirs.root),
    witnessIndexes: witnessIndexes(declared, layout.dirs.witness),
  };
}

/** `--arm` and `--baseline-dir` applied (see ./arm-names.ts); an unknown `--arm` is an error naming the arms there are. */
function selectedArms(config: Config, cli: RunOptions, declared: readonly ArmRun[]): ArmRun[] {
  const names = allArmNames(config);
  if (cli.arm && !names.includes(cli.arm))
    throw new UserInputError(`unknown arm "${cli.arm}" (--arm) — the study has: ${names.join(', ')}`);
  const wanted = new Set(armNames(config, cli));
  return declared.filter((a) => wanted.has(a.name));
}

/** The arms' own corpora (a `corpus.dir` other than the run's), one per folder, in arm order. */
function armCorpora(arms: readonly ArmRun[], runDir: string | undefined, pathsOf: (c: Config) => StagePaths, root: string): CorpusPlan[] {
  const out = new Map<string, CorpusPlan>();
  for (const arm of arms) {
    const dir = arm.config.corpus.dir;
    if (!dir || dir === runDir) continue;
    const known = out.get(dir);
    if (known) known.arms.push(arm.name);
    else
      out.set(dir, {
        fingerprint: path.basename(dir),
        dir: path.join(root, dir),
        paths: pathsOf(arm.config),
        config: arm.config,
        arms: [arm.name],
      });
  }
  return [...out.values()];
}

/** The witness indexes of the arms in witness mode, one per fingerprint, in arm order. */
function witnessIndexes(arms: readonly ArmRun[], witnessRoot: string): WitnessIndexPlan[] {
  const out = new Map<string, WitnessIndexPlan>();
  for (const arm of arms) {
    if (arm.retrieval.mode !== 'witness') continue;
    const fingerprint = witnessIndexFingerprint(arm.config);
    const known = out.get(fingerprint);
    if (known) known.arms.push(arm.name);
    else out.set(fingerprint, { fingerprint, dir: path.join(witnessRoot, fingerprint), config: arm.config, arms: [arm.name] });
  }
  return [...out.values()];
}
