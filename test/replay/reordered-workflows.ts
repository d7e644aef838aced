/**
 * A deliberately broken copy of the workflow code for the replay test's positive control: `buildWorkflow`
 * (same workflow type name) schedules `buildIndex` before `buildCorpus`. Replaying a recorded build history
 * against it must fail with a determinism violation — proof that the replay test can fail.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { BuildResult, StageInput } from '../../workflows/types';

export { analyzeWorkflow, doctorWorkflow, exportWorkflow, inferWorkflow, phase5Workflow } from '../../workflows';

export async function buildWorkflow(input: StageInput): Promise<BuildResult> {
  const acts = proxyActivities<Activities>({ taskQueue: input.config.temporal.queues.cpu, startToCloseTimeout: '1h' });
  const index = await acts.buildIndex(input);
  const corpus = await acts.buildCorpus(input);
  return { corpus, index };
}
