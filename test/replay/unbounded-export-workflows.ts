/**
 * A copy of the workflow code as it was before `bounded-export-fanout`, for the replay test's second control:
 * `exportWorkflow` (same type name) starts every shard at once and calls no `patched()`. The v2 export
 * history (3 shards through a window of 2) must fail replay against it; v1 histories still replay.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { ExportResult, StageInput } from '../../workflows/types';

export { analyzeWorkflow, buildWorkflow, doctorWorkflow, inferWorkflow, phase5Workflow } from '../../workflows';

export async function exportWorkflow(input: StageInput): Promise<ExportResult> {
  const acts = proxyActivities<Activities>({ taskQueue: input.config.temporal.queues.cpu, startToCloseTimeout: '1h' });
  const plan = await acts.planExport(input);
  const shards = plan.datasets.flatMap((d) => d.shards);
  const results = await Promise.all(shards.map((shard) => acts.exportShard({ input, shard })));
  const merged = await acts.mergeExport({ input, plan });
  const summary = { datasets: plan.datasets.map((d) => ({ dataset: d.dataset, samples: d.samples, shards: d.shards.length })) };
  return { plan: summary, shards: results.length, fallbacks: results.reduce((s, r) => s + r.fallbacks, 0), merged };
}
