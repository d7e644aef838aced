/**
 * A copy of the workflow code as it was before `sharded-infer`, for the replay test's third control:
 * `inferWorkflow` (same type name) runs one `inferCondition` activity per arm and calls no `patched()`. The v3
 * infer history (plan, per-arm child workflows) must fail replay against it; v2 infer histories still replay.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { armNames } from '../../src/stages/arm-names';
import type { InferResult, StageInput } from '../../workflows/types';

export { analyzeWorkflow, buildWorkflow, doctorWorkflow, exportWorkflow, inferArmWorkflow, phase5Workflow } from '../../workflows';

export async function inferWorkflow(input: StageInput): Promise<InferResult> {
  const acts = proxyActivities<Activities>({ taskQueue: input.config.temporal.queues.gpu, startToCloseTimeout: '1h' });
  const out: Record<string, Awaited<ReturnType<Activities['inferCondition']>>> = {};
  for (const arm of armNames(input.config, input.options)) out[arm] = await acts.inferCondition({ input, condition: arm });
  return out;
}
