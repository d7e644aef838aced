import { runDefaultPipeline, type Activities } from '../test/helpers/default-pipeline';
import type { StageInput } from '../workflows/types';
import type { ArmPlan, ShardRef } from '../src/stages/infer-shards';
function shardRefs(arm: ArmPlan): ShardRef[] {
  return arm.plan.datasets.flatMap((d) => Array.from({ length: Math.ceil(d.lines / arm.shardSize) }, (_, index) => ({ dataset: d.dataset, index })));
}
async function shardedInfer(acts: Activities, input: StageInput): Promise<void> {
  const arms = await acts.planInfer(input);
  for (const arm of arms) {
    for (const shard of shardRefs(arm).reverse()) await acts.inferShard({ input, arm, shard });
    await acts.mergeInferArm({ input, arm });
  }
}
await runDefaultPipeline(process.argv[2], shardedInfer);
