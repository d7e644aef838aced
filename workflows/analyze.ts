/** The analyze workflow: one activity (metrics, comparisons, report). */
import { stageActivities } from './options';
import { setStep, trackProgress } from './progress';
import type { AnalyzeResult, StageInput } from './types';

export async function analyzeWorkflow(input: StageInput): Promise<AnalyzeResult> {
  const p = trackProgress('analyze');
  const acts = stageActivities(input.config, 'analyze');
  setStep(p, 'analyze', 0, 1);
  const result = await acts.analyzeResults(input);
  setStep(p, 'done', 1, 1);
  return result;
}
