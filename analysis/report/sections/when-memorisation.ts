/**
 * The "when" table of the memorisation probe (arms.json `when.by_memorisation`, analysis/study/when-memorisation.ts):
 * per arm, ΔCER vs the baseline on the lines the probe found memorised by the arm's model and on those it did not.
 * Only when the probe ran and some arm has the split.
 */
import type { ArmsAnalysis } from '../../study/arms';
import type { ScoreBand } from '../../stats/score-bands';
import { ciOr, dash, emptyCellNote, labelledTable, ppF, type Block } from '../blocks';

const cell = (x: ScoreBand) => (x.lines === 0 ? dash : `${ppF(x.delta_cer)} ${ciOr(x.ci)} (n=${x.lines})`);

export function memorisationSplitTable(a: ArmsAnalysis): Block[] {
  const arms = a.arms.filter((r) => r.when.by_memorisation);
  if (arms.length === 0) return [];
  const rows = arms.map((r) => {
    const m = r.when.by_memorisation!;
    return [r.name, cell(m.memorised), cell(m.not_memorised), String(m.unprobed_lines)];
  });
  return [
    { kind: 'h3', text: 'ΔCER vs the baseline by memorisation (all datasets)' },
    {
      kind: 'p',
      text: "Do the gains come from memory? Each cell: ΔCER of the arm vs the baseline on the lines whose gold the memorisation probe found the arm's model continuing almost verbatim (memorised: continuation CER ≤ probe.verbatim_cer) or not, block-bootstrap 95% CI. Lines the probe did not reach for the model are in neither column.",
    },
    labelledTable(['Arm', 'Memorised', 'Not memorised', 'Not probed'], rows),
    ...emptyCellNote(arms.flatMap((r) => [r.when.by_memorisation!.memorised.reason, r.when.by_memorisation!.not_memorised.reason])),
  ];
}
