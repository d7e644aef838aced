/** Analyze activity (CPU queue): a thin adapter over analysis/stage (which `phase5 report` also uses). */
import * as analyze from '../analysis/stage';
import type { StageInput } from '../src/stages/types';
import { activityHooks, asActivity } from './context';

export function createAnalyzeActivities() {
  return {
    async analyzeResults(input: StageInput): Promise<analyze.AnalyzeResult> {
      return asActivity(async () => {
        const hooks = activityHooks('analyze', 'lines');
        try {
          return await analyze.run(await analyze.optionsFrom(input.config, input.options), hooks);
        } finally {
          hooks.stop();
        }
      });
    },
  };
}
