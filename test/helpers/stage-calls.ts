/**
 * The activities, plus whole-stage calls that tests and benches use to build a corpus and index or to correct
 * one arm in a single call: the stage code (src/stages) through the same adapters as the activities (progress
 * heartbeats, cancellation, one writer per output file, outage reporting). No workflow runs these — the build
 * and infer workflows fan out in shards — so they live here, not among the activities a worker registers.
 */
import { createActivities, defaultDeps } from '../../activities';
import { asActivity } from '../../activities/as-activity';
import { runExclusive } from '../../activities/exclusive';
import { optionsOfInput, withActivityHooks } from '../../activities/hooks';
import type { ActivityDeps } from '../../activities/deps';
import { reportingOutage } from '../../activities/infer';
import * as build from '../../src/stages/build/build';
import { findArm } from '../../src/stages/study/arms';
import * as inference from '../../src/stages/infer/infer';
import type { StageInput } from '../../src/stages/shared/types';

const buildOptions = optionsOfInput(build.optionsFrom);
const inferOptions = optionsOfInput(inference.optionsFrom);

export function createStageCalls(deps: ActivityDeps = defaultDeps()) {
  return {
    ...createActivities(deps),
    /** The run's corpus, then the study's witness indexes and arm corpora one after the other. */
    async buildCorpus(input: StageInput): Promise<build.CorpusResult> {
      return asActivity(() => withActivityHooks('corpus', 'bytes', 0, (hooks) => build.buildCorpus(buildOptions(input), hooks)));
    },
    /** The whole embedding + index in one call. */
    async buildIndex(input: StageInput): Promise<build.IndexResult> {
      return asActivity(() =>
        withActivityHooks<build.IndexResult, build.EmbedCheckpoint>('embed', 'sentences', 0, (hooks) =>
          build.buildIndex(buildOptions(input), hooks),
        ),
      );
    },
    /** One arm, every line, in one call (`arm`: the arm's name). */
    async inferArm(args: { input: StageInput; arm: string }): Promise<inference.ArmResult> {
      const { input, arm: armName } = args;
      return asActivity(
        async () => {
          const opts = inferOptions(input);
          const arm = findArm(opts.arms, armName);
          return runExclusive(arm.output, (signal) =>
            withActivityHooks<inference.ArmResult, inference.InferCheckpoint>(`infer:${armName}`, 'samples', 0, (hooks) =>
              reportingOutage(deps, () => inference.runArm(opts, arm, { ...hooks, signal }, deps.openBackend)),
            ),
          );
        },
        { maxWorkerLocalAttempts: input.config.temporal.max_worker_local_attempts },
      );
    },
  };
}

export type StageCalls = ReturnType<typeof createStageCalls>;
