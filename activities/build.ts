/** Build activities (CPU queue): thin adapters over src/stages/build and its fanned-out embedding (build-shards). */
import * as build from '../src/stages/build';
import * as shards from '../src/stages/build-shards';
import type { StageInput } from '../src/stages/types';
import { asActivity, keptAlive, optionsOfInput, runExclusive, withActivityHooks } from './context';

export interface EmbedShardInput {
  input: StageInput;
  shard: shards.IndexShard;
}

export interface AssembleIndexInput {
  input: StageInput;
  plan: shards.IndexPlan;
}

const optionsOf = optionsOfInput(build.optionsFrom);

export function createBuildActivities() {
  return {
    async buildCorpus(input: StageInput): Promise<build.CorpusResult> {
      return asActivity(() => withActivityHooks('corpus', 'bytes', 0, (hooks) => build.buildCorpus(optionsOf(input), hooks)));
    },
    /** The whole embedding + index in one activity (builds started before the sharded build). */
    async buildIndex(input: StageInput): Promise<build.IndexResult> {
      return asActivity(() =>
        withActivityHooks<build.IndexResult, build.EmbedCheckpoint>('embed', 'sentences', 0, (hooks) =>
          build.buildIndex(optionsOf(input), hooks),
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
