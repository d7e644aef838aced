/** Analyze activity (CPU queue): a thin adapter over analysis/stage (which `phase5 report` also uses). */
import { run } from '../analysis/stage';
import { optionsFrom } from '../analysis/stage/options';
import type { AnalyzeResult } from '../analysis/stage/result';
import type { StageInput } from '../src/stages/shared/types';
import { asActivity } from './as-activity';
import { optionsOfInput, withActivityHooks } from './hooks';

const optionsOf = optionsOfInput(optionsFrom);

export function createAnalyzeActivities() {
  return {
    async analyzeResults(input: StageInput): Promise<AnalyzeResult> {
      return asActivity(() => withActivityHooks('analyze', 'lines', 0, async (hooks) => run(await optionsOf(input), hooks)));
    },
  };
}
