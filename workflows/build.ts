/** The build workflow: corpus, then the index — embedded in shards on every CPU worker and assembled once. */
import { patched } from '@temporalio/workflow';
import { DEFAULT_MAX_PARALLEL, stageActivities, type StageActivities } from './options';
import { setStep, trackProgress } from './progress';
import type { BuildResult, IndexResult, StageInput, WorkflowProgress } from './types';
import { mapWithWindow } from './windows';

export async function buildWorkflow(input: StageInput): Promise<BuildResult> {
  const p = trackProgress('build');
  const acts = stageActivities(input.config, 'build');
  setStep(p, 'corpus', 0, 2);
  const corpus = await acts.buildCorpus(input);
  p.results.corpus = corpus;
  // Embedding in shards on every CPU worker, then one assemble step. Histories recorded before it replay
  // the single buildIndex activity.
  const index = patched('sharded-build') ? await shardedIndex(input, acts, p) : await singleIndex(input, acts, p);
  p.results.index = index;
  setStep(p, 'done', 2, 2);
  return { corpus, index };
}

async function singleIndex(input: StageInput, acts: StageActivities, p: WorkflowProgress): Promise<IndexResult> {
  setStep(p, 'embed+index', 1, 2);
  return acts.buildIndex(input);
}

/** Plan the shards, embed them (at most max_parallel_activities in flight), assemble the index from the parts. */
async function shardedIndex(input: StageInput, acts: StageActivities, p: WorkflowProgress): Promise<IndexResult> {
  setStep(p, 'embed:plan', 1, 2);
  const plan = await acts.planIndexShards(input);
  if (plan.reused) return plan.reused;
  let finished = 0;
  setStep(p, 'embed', 0, plan.shards.length, 'shards');
  await mapWithWindow(plan.shards, input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL, async (shard) => {
    await acts.embedIndexShard({ input, shard });
    setStep(p, 'embed', ++finished, plan.shards.length, 'shards');
  });
  setStep(p, 'index', plan.shards.length, plan.shards.length, 'shards');
  return acts.assembleIndex({ input, plan });
}
