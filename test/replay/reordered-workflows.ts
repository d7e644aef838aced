/**
 * A deliberately broken copy of the workflow code for the replay test's positive control: `buildWorkflow`
 * (same workflow type name) builds the run's corpus before planning the study's own builds, where the recorded
 * build first plans them. Replaying a recorded build history against it must fail with a determinism
 * violation — proof that the replay test can fail.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { BuildResult, StageInput } from '../../workflows/types';

export { analyzeWorkflow, doctorWorkflow, exportWorkflow, inferArmWorkflow, inferWorkflow, phase5Workflow } from '../../workflows';

export async function buildWorkflow(input: StageInput): Promise<BuildResult> {
  const acts = proxyActivities<Activities>({ taskQueue: input.config.temporal.queues.cpu, startToCloseTimeout: '1h' });
  const corpus = await acts.buildRunCorpus(input);
  await acts.planStudyBuilds(input);
  const plan = await acts.planIndexShards(input);
  const index = plan.reused ?? (await acts.assembleIndex({ input, plan }));
  return { corpus, index };
}
