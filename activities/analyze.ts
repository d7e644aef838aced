/** Analyze activity (CPU queue): a thin adapter over analysis/stage (which `phase5 report` also uses). */
import * as analyze from '../analysis/stage';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity, optionsOfInput, withActivityHooks } from './context';

const optionsOf = optionsOfInput(analyze.optionsFrom);

export function createAnalyzeActivities() {
  return {
    async analyzeResults(input: StageInput): Promise<analyze.AnalyzeResult> {
      return asActivity(() => withActivityHooks('analyze', 'lines', 0, async (hooks) => analyze.run(await optionsOf(input), hooks)));
    },
  };
}
