/**
 * The report's memorisation section (docs/memorisation.md), from `memorisation.json` beside the report when the
 * probe has run: a warning sentence per book whose continuation share is above its control, then the table of
 * every dataset × model. No file, no section.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Memorisation, MemorisationEntry } from '../../probe/memorisation';
import { dash, labelledTable, pctF, type Block } from '../blocks';

const pct0 = (x: number | null) => (x === null ? dash : `${Math.round(x * 100)} %`);
const ci = (c: [number, number] | null) => (c ? `[${pctF(c[0], 1)}, ${pctF(c[1], 1)}]` : dash);

function likelihoodCell(e: MemorisationEntry): string {
  if ('skipped' in e.likelihood) return `skipped: ${e.likelihood.skipped}`;
  const v = e.likelihood.versus_control;
  return `Min-K%++ AUC ${v.auc_min_k_pp === null ? dash : v.auc_min_k_pp.toFixed(2)} vs ${v.control}`;
}

export function memorisationBlocks(dir: string): Block[] {
  const file = path.join(dir, 'memorisation.json');
  if (!existsSync(file)) return [];
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Memorisation;
  const rows = Object.entries(doc.datasets).flatMap(([key, models]) => Object.entries(models).map(([model, e]) => ({ key, model, e })));
  const above = rows.filter((r) => r.e.above_control);
  const warnings = above.map(
    (r) =>
      `${r.model} continues ${pct0(r.e.continuation.verbatim_share)} of ${r.key}'s lines almost verbatim ` +
      `(control ${pct0(r.e.control.verbatim_share)}, ${r.e.control.source}): gains on this book may come from memory.`,
  );
  const m = doc.method;
  return [
    { kind: 'h2', text: 'Memorisation probe' },
    ...(warnings.length
      ? [{ kind: 'list', items: warnings } as Block]
      : [{ kind: 'p', text: 'No book scores above its control.' } as Block]),
    labelledTable(
      ['Dataset', 'Model', 'Verbatim (CER ≤ ' + m.verbatim_cer + ')', '95 % CI', 'Control', 'Control CI', 'Likelihood', 'Above control'],
      rows.map(({ key, model, e }) => [
        key,
        model,
        pctF(e.continuation.verbatim_share, 1),
        e.continuation.verbatim_share_ci95 ? ci(e.continuation.verbatim_share_ci95) : (e.continuation.reason ?? dash),
        `${pctF(e.control.verbatim_share, 1)} (${e.control.source ?? dash})`,
        ci(e.control.verbatim_share_ci95),
        likelihoodCell(e),
        e.above_control ? `yes (${e.rule})` : 'no',
      ]),
      2,
    ),
    {
      kind: 'p',
      text:
        `Continuation test: the first half of each gold text (${m.window_lines} line(s)) as the prompt, the greedy continuation cut to the rest's length; ` +
        `CER in canonical form (${m.text}), profile none; intervals by the block bootstrap (${m.bootstrap.iterations} resamples). See docs/memorisation.md.`,
    },
  ];
}
