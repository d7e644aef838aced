/**
 * The study's builds beyond the run's corpus, one unit each so a build can fan them out to the CPU workers:
 * every arm corpus (sampled, then embedded and indexed) and every witness index of the study plan. Each is
 * named by its fingerprint; only fingerprints, paths and counts cross Temporal.
 *
 *   const options = optionsFrom(config, cli);
 *   const todo = studyBuilds(options);
 *   await Promise.all(todo.corpora.map((c) => buildStudyCorpus(options, c.fingerprint, {})));
 */
import { buildArmCorpus, type BuildOptions, type EmbedCheckpoint, type IndexResult } from '../build/build';
import { UserInputError, type StageHooks } from '../shared/types';
import { ensureWitnessIndex } from '../witness/witness-index';

/** What a study builds besides the run's corpus, by fingerprint, with the arms that use each. */
export interface StudyBuilds {
  corpora: { fingerprint: string; arms: string[] }[];
  witnessIndexes: { fingerprint: string; arms: string[] }[];
}

export function studyBuilds(options: BuildOptions): StudyBuilds {
  const named = ({ fingerprint, arms }: { fingerprint: string; arms: string[] }) => ({ fingerprint, arms });
  return { corpora: (options.corpora ?? []).map(named), witnessIndexes: (options.witness ?? []).map(named) };
}

/** One arm corpus of the plan and its index (each reused while up to date). */
export async function buildStudyCorpus(
  options: BuildOptions,
  fingerprint: string,
  hooks: StageHooks<EmbedCheckpoint>,
): Promise<IndexResult> {
  const corpus = options.corpora?.find((c) => c.fingerprint === fingerprint);
  if (!corpus)
    throw new UserInputError(
      `corpus ${fingerprint}: no study arm uses it any more — the config changed since the plan; rerun \`phase5 build\``,
    );
  return buildArmCorpus(corpus, options.force, hooks);
}

/** One witness index of the plan (reused while its fingerprint matches); returns its folder. */
export async function buildStudyWitnessIndex(options: BuildOptions, fingerprint: string, hooks: StageHooks): Promise<string> {
  const index = options.witness?.find((w) => w.fingerprint === fingerprint);
  if (!index)
    throw new UserInputError(
      `witness index ${fingerprint}: no study arm uses it any more — the config changed since the plan; rerun \`phase5 build\``,
    );
  return ensureWitnessIndex(index, hooks.onProgress);
}
