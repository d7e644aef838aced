/**
 * arms.json's `when.by_memorisation`: ΔCER of an arm vs the baseline on the lines the memorisation probe found
 * memorised (the arm model's continuation CER ≤ probe.verbatim_cer, analysis/probe/line-scores.ts) and on the
 * probed lines it did not, each with the block-bootstrap interval and block-permutation p of the other "when"
 * splits (analysis/study/compare.ts `comparePaired` on the split's lines, keeping their clusters). Lines the probe
 * did not reach for the model are in neither group and counted.
 */
import { lineKey } from '../inputs/records';
import type { ProbeLineScores } from '../probe/line-scores';
import { subsetBand, type ScoreBand } from '../stats/score-bands';
import type { ResampleSettings, Scope } from './compare';

export interface MemorisationSplit {
  memorised: ScoreBand;
  not_memorised: ScoreBand;
  /** Study lines without a probe score for the arm's model (in neither group). */
  unprobed_lines: number;
}

export interface SplitInput {
  /** Arm name: the comparisons' seeds are `<name>:memorisation:<group>`. */
  name: string;
  model: string | null;
  ref: ArrayLike<number>;
  /** The baseline's and the arm's character edits per study line. */
  reference: ArrayLike<number>;
  arm: ArrayLike<number>;
  datasets: readonly string[];
  sampleIds: readonly string[];
}

/** The split of one arm; null when the probe holds no score of the arm's model. */
export function memorisationSplit(x: SplitInput, probe: ProbeLineScores, pooled: Scope, s: ResampleSettings): MemorisationSplit | null {
  const scores = x.model === null ? undefined : probe.get(x.model);
  if (!scores) return null;
  const flags = x.sampleIds.map((id, i) => scores.get(lineKey(x.datasets[i], id))?.memorised ?? null);
  const group = (want: boolean, label: string): ScoreBand => {
    const idx = flags.flatMap((f, i) => (f === want ? [i] : []));
    return subsetBand(x, idx, pooled, label, s, `${x.name}:memorisation:${label}`);
  };
  return {
    memorised: group(true, 'memorised'),
    not_memorised: group(false, 'not_memorised'),
    unprobed_lines: flags.filter((f) => f === null).length,
  };
}
