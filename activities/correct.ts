/**
 * Non-LLM correctors' activities (CPU queue, docs/correctors.md): one shard of a `collate` or `lexicon` arm. The
 * arm's merge is the LLM arms' (`mergeInferArm`), which the workflow sends to the CPU queue too for these arms.
 * No LLM backend is opened here.
 */
import { runCorrectorShard } from '../src/stages/infer/correct-shard';
import * as inference from '../src/stages/infer/infer';
import * as shards from '../src/stages/infer/shards';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity } from './as-activity';
import { runExclusive } from './exclusive';
import { keptAlive, optionsOfInput } from './hooks';

export function createCorrectActivities() {
  const options = optionsOfInput(inference.optionsFrom);
  return {
    async correctShard(args: { input: StageInput; arm: shards.ArmPlan; shard: shards.ShardRef }): Promise<shards.InferShardResult> {
      const { input, arm, shard } = args;
      return asActivity(() =>
        runExclusive(shards.partFile(arm.output, shard.dataset, shard.index), () =>
          keptAlive(`correct:${shards.shardLabel(arm, shard)}`, () => runCorrectorShard(options(input), arm, shard)),
        ),
      );
    },
  };
}
