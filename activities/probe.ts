/**
 * The memorisation probe's activities (docs/memorisation.md): its jobs (CPU), one job — a model × a dataset — on
 * the GPU queue with heartbeats, progress and cancellation, and memorisation.json (CPU). Thin adapters over
 * src/stages/probe and analysis/probe.
 */
import { writeMemorisation } from '../analysis/probe/memorisation';
import { openProbeClient } from '../src/stages/probe/open-client';
import { optionsFrom, type ProbeOptions } from '../src/stages/probe/options';
import { runProbeJob } from '../src/stages/probe/run-job';
import type { ProbeJob, ProbeJobInput, ProbeJobResult } from '../src/stages/probe/types';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity } from './as-activity';
import { optionsOfInput, withActivityHooks } from './hooks';

const optionsOf = optionsOfInput(optionsFrom);

/** The model's effective config (its first arm's), which says how to reach it. */
function modelConfig(o: ProbeOptions, job: ProbeJob) {
  const m = o.models.find((x) => x.model === job.model);
  if (!m) throw new Error(`probe: no arm of the study uses model ${job.model}`);
  return m.config;
}

export function createProbeActivities() {
  return {
    async planProbe(input: StageInput): Promise<ProbeJob[]> {
      return asActivity(async () => optionsOf(input).jobs);
    },
    async probeJob(input: ProbeJobInput): Promise<ProbeJobResult> {
      return asActivity(() =>
        withActivityHooks('probe', 'texts', 0, async (hooks) => {
          const o = optionsOf(input);
          const client = await openProbeClient(modelConfig(o, input.job), input.job.model);
          try {
            return await runProbeJob(o, input.job, client, hooks, input.force);
          } finally {
            await client.close();
          }
        }),
      );
    },
    async writeMemorisation(input: StageInput): Promise<{ file: string; datasets: number; aboveControl: number }> {
      return asActivity(async () => writeMemorisation(optionsOf(input)));
    },
  };
}
