/**
 * Every line's character edits and error changes as the arms analysis of the two arms aligned them
 * (../study/design-edits.ts): rag's from the analysis of all its lines (`ragAlone`, else `pair`), zero_shot's
 * from the analysis of the pair. Nothing is aligned here.
 */
import type { CorrectionRecord } from '../../src/llm/records';
import { lineKey } from '../inputs/records';
import type { DesignEdits, LineEdits } from '../study/design-edits';
import type { DesignArms } from './own-arms';
import type { LineEditsOf } from './pair-rows';

function take(from: DesignEdits | undefined, dataset: string, sampleId: string): LineEdits {
  const e = from?.get(lineKey(dataset, sampleId));
  if (!e) throw new Error(`internal: the arms analysis did not align ${dataset} ${sampleId}`);
  return e;
}

/** Every rag line of one dataset with its zero_shot line (`zeroShotOf`), with the analysis's edits. */
export function pairEdits(
  dataset: string,
  rag: readonly CorrectionRecord[],
  zeroShotOf: (sampleId: string) => CorrectionRecord | null,
  arms: Pick<DesignArms, 'pair' | 'ragAlone'>,
): LineEditsOf[] {
  const ragEdits = (arms.ragAlone ?? arms.pair)?.design_edits;
  return rag.map((r) => ({
    rag: take(ragEdits, dataset, r.sample_id),
    pair: zeroShotOf(r.sample_id) ? take(arms.pair?.design_edits, dataset, r.sample_id) : null,
  }));
}
