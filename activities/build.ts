/**
 * Build activities (CPU queue): thin adapters over src/stages/build, its fanned-out embedding (build-shards) and
 * the study's own corpora and witness indexes, one activity each (study-builds).
 */
import * as build from '../src/stages/build/build';
import * as shards from '../src/stages/build/shards';
import * as study from '../src/stages/study/builds';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity } from './as-activity';
import { runExclusive } from './exclusive';
import { keptAlive, optionsOfInput, withActivityHooks } from './hooks';

export interface EmbedShardInput {
  input: StageInput;
  shard: shards.IndexShard;
}

export interface AssembleIndexInput {
  input: StageInput;
  plan: shards.IndexPlan;
}

/** One arm corpus or witness index of the study plan, named by its fingerprint. */
export interface StudyBuildInput {
  input: StageInput;
  fingerprint: string;
}

const optionsOf = optionsOfInput(build.optionsFrom);

export function createBuildActivities() {
  return {
    /** The run's corpus only. */
    async buildRunCorpus(input: StageInput): Promise<build.CorpusResult> {
      return asActivity(() => withActivityHooks('corpus', 'bytes', 0, (hooks) => build.buildRunCorpus(optionsOf(input), hooks)));
    },
    /** The study's arm corpora and witness indexes, by fingerprint. */
    async planStudyBuilds(input: StageInput): Promise<study.StudyBuilds> {
      return asActivity(() => keptAlive('study-builds:plan', async () => study.studyBuilds(optionsOf(input))));
    },
    /** One arm corpus and its index; heartbeats rowsEmbedded while it embeds. */
    async buildStudyCorpus({ input, fingerprint }: StudyBuildInput): Promise<build.IndexResult> {
      return asActivity(() => {
        const options = optionsOf(input);
        return withActivityHooks<build.IndexResult, build.EmbedCheckpoint>(`corpus:${fingerprint}`, 'sentences', 0, (hooks) =>
          runExclusive(`study-corpus:${fingerprint}`, (signal) => study.buildStudyCorpus(options, fingerprint, { ...hooks, signal })),
        );
      });
    },
    async buildStudyWitnessIndex({ input, fingerprint }: StudyBuildInput): Promise<string> {
      return asActivity(() =>
        withActivityHooks(`witness:${fingerprint}`, 'works', 0, (hooks) =>
          study.buildStudyWitnessIndex(optionsOf(input), fingerprint, hooks),
        ),
      );
    },
    async planIndexShards(input: StageInput): Promise<shards.IndexPlan> {
      return asActivity(() => keptAlive('embed-plan', () => shards.planIndexShards(optionsOf(input))));
    },
    /** One shard's embeddings into its part file; heartbeats rowsEmbedded (within the shard) as the checkpoint. */
    async embedIndexShard({ input, shard }: EmbedShardInput): Promise<shards.EmbedShardResult> {
      return asActivity(() => {
        const options = optionsOf(input);
        return withActivityHooks<shards.EmbedShardResult, build.EmbedCheckpoint>(
          `embed:${shard.part}`,
          'sentences',
          shard.end - shard.start,
          (hooks) =>
            runExclusive(shards.partFile(options.paths.index, shard.part), (signal) =>
              shards.embedIndexShard(options, shard, { ...hooks, signal }),
            ),
        );
      });
    },
    async assembleIndex({ input, plan }: AssembleIndexInput): Promise<build.IndexResult> {
      return asActivity(() =>
        withActivityHooks('index', 'sentences', plan.rows, (hooks) => shards.assembleIndex(optionsOf(input), plan, hooks)),
      );
    },
  };
}
