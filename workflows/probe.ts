/**
 * The memorisation probe workflow (`phase5 probe`, docs/memorisation.md): its jobs planned on the CPU queue, each
 * job (a model × a dataset) on the infer stage's queue (the GPU queue) one after the other, then memorisation.json
 * on the CPU queue. Only job descriptions (paths and names) and counts cross Temporal.
 */
import type { ProbeJobResult } from '../src/stages/probe/types';
import { stageActivities } from './options';
import { setStep, trackProgress } from './progress';
import type { StageInput } from './types';

export interface ProbeResult {
  jobs: ProbeJobResult[];
  memorisation: { file: string; datasets: number; aboveControl: number };
}

export async function probeWorkflow(input: StageInput): Promise<ProbeResult> {
  // Not one of the study's stages: no stage in the progress (the workflow type names it).
  const p = trackProgress(null);
  const cpu = stageActivities(input.config, 'analyze');
  const gpu = stageActivities(input.config, 'infer');
  setStep(p, 'plan', 0, 1);
  const jobs = await cpu.planProbe(input);
  const results: ProbeJobResult[] = [];
  for (const [i, job] of jobs.entries()) {
    setStep(p, 'probe', i, jobs.length, 'jobs');
    results.push(await gpu.probeJob({ ...input, job }));
  }
  setStep(p, 'memorisation', jobs.length, jobs.length, 'jobs');
  const memorisation = await cpu.writeMemorisation(input);
  setStep(p, 'done', jobs.length, jobs.length, 'jobs');
  return { jobs: results, memorisation };
}
