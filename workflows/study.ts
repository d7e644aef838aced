/** The whole study: build → export → infer → analyze, each stage a child workflow with its own id. */
import { executeChild, isCancellation } from '@temporalio/workflow';
import { analyzeWorkflow } from './analyze';
import { buildWorkflow } from './build';
import { exportWorkflow } from './export';
import { inferWorkflow } from './infer';
import { childLabels } from './options';
import { setStep, trackProgress } from './progress';
import { stageWorkflowId, type Phase5Input, type Phase5Result, type StageInput, type StageName } from './types';

const ALL_STAGES: StageName[] = ['build', 'export', 'infer', 'analyze'];

const STAGE_WORKFLOWS = {
  build: buildWorkflow,
  export: exportWorkflow,
  infer: inferWorkflow,
  analyze: analyzeWorkflow,
} as const;

/** Run one stage as a child workflow with its own id (`phase5-<run>-<stage>`) and keep its typed result. */
async function runStageChild<S extends StageName>(results: Phase5Result, stage: S, input: StageInput): Promise<void> {
  const workflow = STAGE_WORKFLOWS[stage] as (input: StageInput) => Promise<NonNullable<Phase5Result[S]>>;
  results[stage] = await executeChild(workflow, { workflowId: stageWorkflowId(input.run, stage), args: [input], ...childLabels(stage) });
}

/** The whole study: build → export → infer → analyze, each stage a child workflow with its own id. */
export async function phase5Workflow(input: Phase5Input): Promise<Phase5Result> {
  const p = trackProgress(null);
  const wanted = new Set(input.stages ?? ALL_STAGES);
  const forced = new Set(input.forceStages ?? []);
  for (const s of ALL_STAGES) p.stages[s] = wanted.has(s) ? 'pending' : 'skipped';
  const results: Phase5Result = {};
  let i = 0;
  for (const stage of ALL_STAGES) {
    if (!wanted.has(stage)) continue;
    p.stage = stage;
    p.stages[stage] = 'running';
    setStep(p, stage, i, wanted.size, 'stages');
    const childInput: StageInput = { run: input.run, config: input.config, options: input.options, force: forced.has(stage) };
    try {
      await runStageChild(results, stage, childInput);
    } catch (err) {
      p.stages[stage] = isCancellation(err) ? 'pending' : 'failed';
      throw err;
    }
    p.stages[stage] = 'done';
    Object.assign(p.results, { [stage]: results[stage] } as Phase5Result);
    i++;
  }
  p.stage = null;
  setStep(p, 'done', i, wanted.size, 'stages');
  return results;
}
