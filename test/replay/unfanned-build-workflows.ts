/**
 * The build workflow as it was before the study's own corpora and witness indexes got an activity each
 * (patch `study-builds-fanout`): buildCorpus builds them one after the other. For the replay test's control:
 * the v5 build history must fail against it; the v4 one replays.
 */
import { patched } from '@temporalio/workflow';
import { DEFAULT_MAX_PARALLEL, stageActivities } from '../../workflows/options';
import type { BuildResult, IndexResult, StageInput } from '../../workflows/types';
import { mapWithWindow } from '../../workflows/windows';

export { analyzeWorkflow, doctorWorkflow, exportWorkflow, inferWorkflow, inferArmWorkflow, phase5Workflow } from '../../workflows';

export async function buildWorkflow(input: StageInput): Promise<BuildResult> {
  const acts = stageActivities(input.config, 'build');
  const corpus = await acts.buildCorpus(input);
  let index: IndexResult;
  if (patched('sharded-build')) {
    const plan = await acts.planIndexShards(input);
    if (plan.reused) index = plan.reused;
    else {
      await mapWithWindow(plan.shards, input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL, (shard) =>
        acts.embedIndexShard({ input, shard }),
      );
      index = await acts.assembleIndex({ input, plan });
    }
  } else index = await acts.buildIndex(input);
  return { corpus, index };
}
