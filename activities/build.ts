/** Build activities (CPU queue): thin adapters over src/stages/build and its fanned-out embedding (build-shards). */
import * as build from '../src/stages/build';
import * as shards from '../src/stages/build-shards';
import type { StageInput } from '../src/stages/types';
import { activityHooks, asActivity, keptAlive, runExclusive } from './context';

export interface EmbedShardInput {
  input: StageInput;
  shard: shards.IndexShard;
}

export interface AssembleIndexInput {
  input: StageInput;
  plan: shards.IndexPlan;
}

const optionsOf = (input: StageInput) => build.optionsFrom(input.config, input.options, input.force);

export function createBuildActivities() {
  return {
    async buildCorpus(input: StageInput): Promise<build.CorpusResult> {
      return asActivity(async () => {
        const hooks = activityHooks('corpus', 'bytes');
        try {
          return await build.buildCorpus(optionsOf(input), hooks);
        } finally {
          hooks.stop();
        }
      });
    },
    /** The whole embedding + index in one activity (builds started before the sharded build). */
    async buildIndex(input: StageInput): Promise<build.IndexResult> {
      return asActivity(async () => {
        const hooks = activityHooks<build.EmbedCheckpoint>('embed', 'sentences');
        try {
          return await build.buildIndex(optionsOf(input), hooks);
        } finally {
          hooks.stop();
        }
      });
    },
    async planIndexShards(input: StageInput): Promise<shards.IndexPlan> {
      return asActivity(() => keptAlive('embed-plan', () => shards.planIndexShards(optionsOf(input))));
    },
    /** One shard's embeddings into its part file; heartbeats rowsEmbedded (within the shard) as the checkpoint. */
    async embedIndexShard({ input, shard }: EmbedShardInput): Promise<shards.ShardResult> {
      return asActivity(async () => {
        const options = optionsOf(input);
        const hooks = activityHooks<build.EmbedCheckpoint>(`embed:${shard.part}`, 'sentences', shard.end - shard.start);
        try {
          return await runExclusive(shards.partFile(options.paths.index, shard.part), (signal) => shards.embedIndexShard(options, shard, { ...hooks, signal }));
        } finally {
          hooks.stop();
        }
      });
    },
    async assembleIndex({ input, plan }: AssembleIndexInput): Promise<build.IndexResult> {
      return asActivity(async () => {
        const hooks = activityHooks('index', 'sentences', plan.rows);
        try {
          return await shards.assembleIndex(optionsOf(input), plan, hooks);
        } finally {
          hooks.stop();
        }
      });
    },
  };
}
