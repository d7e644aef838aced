/**
 * A copy of the workflow code as it was before `infer-pool`, for the replay test's fourth control: `inferWorkflow`
 * (same type name) takes the `sharded-infer` branch as before and starts every arm's child at once, each with a
 * fixed window of floor(max_parallel_activities / arms); it knows no `infer-pool` patch and sends no signal. The v4
 * infer history (3 arms through 2 lanes: a queued arm, the setWindow signal) must fail replay against it; v3
 * infer histories still replay.
 */
import { executeChild, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { armNames } from '../../src/stages/arm-names';
import { inferArmWorkflow, type InferArmInput } from '../../workflows';
import type { InferResult, StageInput } from '../../workflows/types';

export { analyzeWorkflow, buildWorkflow, doctorWorkflow, exportWorkflow, inferArmWorkflow, phase5Workflow } from '../../workflows';

export async function inferWorkflow(input: StageInput): Promise<InferResult> {
  const acts = proxyActivities<Activities>({ taskQueue: input.config.temporal.queues.gpu, startToCloseTimeout: '1h' });
  if (input.options.importFile) return { imported: await acts.importCorrections(input) };
  if (!patched('sharded-infer')) {
    const out: Record<string, Awaited<ReturnType<Activities['inferCondition']>>> = {};
    for (const arm of armNames(input.config, input.options)) out[arm] = await acts.inferCondition({ input, condition: arm });
    return out;
  }
  const arms = await acts.planInfer(input);
  const window = Math.max(1, Math.floor((input.config.temporal.max_parallel_activities ?? 64) / Math.max(1, arms.length)));
  const parent = workflowInfo().workflowId;
  const out: Exclude<InferResult, { imported: unknown }> = {};
  await Promise.all(
    arms.map(async (arm) => {
      const acc = {
        lines: 0,
        shards: 0,
        startedAt: new Date().toISOString(),
        counts: {
          model: '',
          written: 0,
          skippedExisting: 0,
          succeeded: 0,
          failed: 0,
          failuresByReason: {},
          promptTypes: {},
          promptTokens: 0,
          completionTokens: 0,
          elapsedMs: 0,
        },
      };
      const args: InferArmInput = { input, arm, window, from: 0, acc };
      out[arm.arm] = await executeChild(inferArmWorkflow, { workflowId: `${parent}-${arm.arm}`, args: [args] });
    }),
  );
  return out;
}
