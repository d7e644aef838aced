/** The export workflow: plan, shards fanned out to every CPU worker through a window, one merge in a fixed order. */
import { DEFAULT_MAX_PARALLEL, stageActivities } from './options';
import { setStep, trackProgress } from './progress';
import type { ExportResult, StageInput } from './types';
import { mapWithWindow } from './windows';

export async function exportWorkflow(input: StageInput): Promise<ExportResult> {
  const p = trackProgress('export');
  const acts = stageActivities(input.config, 'export');
  setStep(p, 'plan', 0, 1);
  const plan = await acts.planExport(input);
  const planSummary = { datasets: plan.datasets.map((d) => ({ dataset: d.dataset, samples: d.samples, shards: d.shards.length })) };
  p.results.plan = planSummary;
  // A sharded witness index: every line's hits made in rounds first, each index shard its own activity (scatter),
  // the lines placed by one gather; the export shards then read the hits (src/stages/witness/scatter.ts).
  for (const scatter of plan.witness ?? []) {
    setStep(p, 'witness', 0, scatter.shards, 'index shards');
    for (;;) {
      const round = await acts.witnessGather({ input, plan, scatter });
      await Promise.all(Array.from({ length: scatter.shards }, (_, shard) => acts.witnessShardRound({ input, scatter, round, shard })));
      if (round === 'hits') break;
    }
  }
  const shards = plan.datasets.flatMap((d) => d.shards);
  let finished = 0;
  const lines = { done: 0, total: plan.datasets.reduce((a, d) => a + d.samples, 0) };
  p.results.lines = lines;
  setStep(p, 'shards', 0, shards.length, 'shards');
  // Shards fan out to every worker polling the export queue; merged afterwards in a fixed order.
  const exportOne = async (shard: (typeof shards)[number]) => {
    const r = await acts.exportShard({ input, shard });
    finished++;
    lines.done += r.records;
    setStep(p, 'shards', finished, shards.length, 'shards');
    return r;
  };
  // At most max_parallel_activities shards in flight: thousands of pending activities in one workflow
  // bloat its history and mutable state.
  const results = await mapWithWindow(shards, input.config.temporal.max_parallel_activities ?? DEFAULT_MAX_PARALLEL, exportOne);
  setStep(p, 'merge', shards.length, shards.length, 'shards');
  const merged = await acts.mergeExport({ input, plan });
  p.results.merged = merged;
  setStep(p, 'done', shards.length, shards.length, 'shards');
  return { plan: planSummary, shards: results.length, fallbacks: results.reduce((s, r) => s + r.fallbacks, 0), merged };
}
