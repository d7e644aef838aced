/**
 * The memorisation probe's score of each gold line (docs/memorisation.md), for the tidy table's `memorisation_cer`
 * and `memorised` columns and arms.json's `when.by_memorisation`. The source is the probe's own records,
 * `<results>/probe/<model>/<dataset>.jsonl`, `book` texts only (the shuffled and control texts are no study line):
 * every line of a text takes the text's continuation CER and its `verbatim` flag (CER ≤ `probe.verbatim_cer`).
 * Read only when `study/memorisation.json` exists, i.e. when `phase5 probe` ran; else there are no probe scores.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../../src/io/jsonl';
import { UserInputError } from '../../src/stages/shared/types';
import { lineKey } from '../inputs/records';

export interface LineProbeScore {
  /** The continuation CER of the text holding the line. */
  cer: number;
  /** CER ≤ probe.verbatim_cer (the probe's `verbatim`). */
  memorised: boolean;
}

/** model → (dataset + "\0" + sample_id) → the line's probe score. */
export type ProbeLineScores = Map<string, Map<string, LineProbeScore>>;

interface BookRecord {
  dataset?: unknown;
  model?: unknown;
  kind?: unknown;
  sample_ids?: unknown;
  cer?: unknown;
  verbatim?: unknown;
}

/** Every probe record file under `<resultsDir>/probe/<model folder>/`, in code-unit order. */
function probeFiles(resultsDir: string): string[] {
  const dir = path.join(resultsDir, 'probe');
  if (!existsSync(dir)) return [];
  const folders = readdirSync(dir)
    .sort()
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isDirectory());
  return folders.flatMap((f) =>
    readdirSync(f)
      .filter((n) => n.endsWith('.jsonl'))
      .sort()
      .map((n) => path.join(f, n)),
  );
}

/** The probe's per-line scores, or null when no probe ran (no `study/memorisation.json`). */
export async function probeLineScores(resultsDir: string): Promise<ProbeLineScores | null> {
  if (!existsSync(path.join(resultsDir, 'study', 'memorisation.json'))) return null;
  const out: ProbeLineScores = new Map();
  for (const file of probeFiles(resultsDir)) {
    for await (const { value: r, line } of readJsonl<BookRecord>(file)) {
      if (r.kind !== 'book') continue;
      const ok =
        typeof r.dataset === 'string' &&
        typeof r.model === 'string' &&
        Array.isArray(r.sample_ids) &&
        typeof r.cer === 'number' &&
        typeof r.verbatim === 'boolean';
      if (!ok) throw new UserInputError(`${file}:${line}: probe record lacks dataset, model, sample_ids, cer or verbatim`);
      const m = out.get(r.model as string) ?? out.set(r.model as string, new Map()).get(r.model as string)!;
      for (const id of r.sample_ids as unknown[])
        m.set(lineKey(r.dataset as string, String(id)), { cer: r.cer as number, memorised: r.verbatim as boolean });
    }
  }
  return out;
}
