/**
 * The build workflow: the run's corpus, then its index — embedded in shards on every CPU worker and assembled
 * once — and, beside them, one activity per distinct arm corpus and per witness index of the study plan, so
 * the CPU workers build them at the same time.
 */
import { DEFAULT_MAX_PARALLEL, stageActivities, type StageActivities } from './options';
import { setStep, trackProgress } from './progress';
import type { BuildResult, IndexResult, StageInput, WorkflowProgress } from './types';
import { mapWithWindow } from './windows';

export async function buildWorkflow(input: StageInput): Promise<BuildResult> {
  const p = trackProgress('build');
  const acts = stageActivities(input.config, 'build');
  // The study's own corpora and witness indexes are activities of their own, started beside the run's corpus
  // and index, so the CPU workers build them at the same time.
  setStep(p, 'plan', 0, 2);
  const todo = await acts.planStudyBuilds(input);
  const corpora: Record<string, IndexResult> = {};
  const witnessIndexes: Record<string, string> = {};
  const [run] = await Promise.all([
    runCorpusAndIndex(input, acts, p),
    ...todo.corpora.map(async ({ fingerprint }) => {
      corpora[fingerprint] = await acts.buildStudyCorpus({ input, fingerprint });
      p.results.corpora = corpora;
    }),
    ...todo.witnessIndexes.map(async ({ fingerprint }) => {
      witnessIndexes[fingerprint] = await acts.buildStudyWitnessIndex({ input, fingerprint });
      p.results.witnessIndexes = witnessIndexes;
    }),
  ]);
  setStep(p, 'done', 2, 2);
  return {
    ...run,
    ...(todo.corpora.length ? { corpora } : {}),
    ...(todo.witnessIndexes.length ? { witnessIndexes } : {}),
  };
}

async function runCorpusAndIndex(input: StageInput, acts: StageActivities, p: WorkflowProgress): Promise<BuildResult> {
  setStep(p, 'corpus', 0, 2);
  const corpus = await acts.buildRunCorpus(input);
  p.results.corpus = corpus;
  const index = await shardedIndex(input, acts, p);
  p.results.index = index;
  return { corpus, index };
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
