/**
 * `phase5 plan --batch` (docs/batch.md): the batch files `phase5 infer --batch-out` would write — per arm ×
 * replicate its files, lines and bytes (src/stages/batch/batch-plan.ts, cut as batch-out cuts them) and the cost
 * at the batch price (`infer.price` less `infer.price.batch_discount`, ./batch-summary.ts batchCost: prompt tokens
 * plus every line's completion budget, so an upper bound), with the totals.
 */
import type { Config } from '../../src/config/schema';
import { batchSettings } from '../../src/stages/batch/batch-client';
import { batchPlan, type BatchRunPlan } from '../../src/stages/batch/batch-plan';
import { optionsFrom as inferOptionsFrom } from '../../src/stages/infer/infer';
import { correctionPrompt } from '../../src/llm/correction-calls';
import { armRows } from '../../src/plan/arm-requests';
import type { RunOptions } from '../../src/stages/shared/types';
import type { ArmRun } from '../../src/stages/study/arms';
import { batchCost } from './batch-summary';
import { counters, exportFirst } from './plan';

type Totals = Omit<BatchRunPlan, 'arm' | 'replicate' | 'files'> & { files: number; cost: number | null };

/** The `--json` document: the runs with their cost, and the totals. */
export interface BatchPlanReport {
  runs: (BatchRunPlan & { cost: number | null })[];
  totals: Totals;
  limits: { max_lines: number; max_bytes: number };
  notes: string[];
}

function runCost(run: ArmRun, p: BatchRunPlan): number | null {
  const price = run.config.infer.price;
  return price ? batchCost(p.prompt_tokens, p.max_completion_tokens, price) : null;
}

export async function computeBatchPlan(config: Config, cli: RunOptions, log: (line: string) => void): Promise<BatchPlanReport> {
  await exportFirst(config, cli, log);
  const options = inferOptionsFrom(config, cli, false);
  const limits = batchSettings(config).limits;
  const firstPrompt = async (arm: ArmRun) => {
    const rows = await armRows(arm, options);
    return rows.length ? correctionPrompt(arm.prompt, rows[0], arm.template).messages : null;
  };
  const { counterOf, notes } = await counters(options.arms, firstPrompt);
  const plans = await batchPlan(options, limits, counterOf);
  const armOf = new Map(options.arms.map((a) => [a.name, a]));
  const runs = plans.map((p) => ({ ...p, cost: runCost(armOf.get(p.arm)!, p) }));
  const sum = (k: 'lines' | 'bytes' | 'already_done' | 'prompt_tokens' | 'max_completion_tokens') => runs.reduce((n, r) => n + r[k], 0);
  const totals: Totals = {
    files: runs.reduce((n, r) => n + r.files.length, 0),
    lines: sum('lines'),
    bytes: sum('bytes'),
    already_done: sum('already_done'),
    prompt_tokens: sum('prompt_tokens'),
    max_completion_tokens: sum('max_completion_tokens'),
    cost: runs.some((r) => r.cost === null) ? null : runs.reduce((n, r) => n + r.cost!, 0),
  };
  return { runs, totals, limits: { max_lines: limits.maxLines, max_bytes: limits.maxBytes }, notes };
}

const int = (n: number) => n.toLocaleString('en');
const cost = (c: number | null) => (c === null ? 'cost unknown (no infer.price)' : `cost at the batch price ≤ ${c.toFixed(2)}`);

/** One line per arm × replicate, then the totals. */
export function batchPlanLines(r: BatchPlanReport): string[] {
  const out = r.runs.map(
    (p) =>
      `${`${p.arm} r${p.replicate}`.padEnd(20)} files ${int(p.files.length).padStart(4)}  lines ${int(p.lines).padStart(8)}  bytes ${int(p.bytes).padStart(13)}  already done ${int(p.already_done)}  prompt tokens ${int(p.prompt_tokens)}  ${cost(p.cost)}`,
  );
  const t = r.totals;
  out.push(
    `total: ${int(t.files)} file(s), ${int(t.lines)} lines, ${int(t.bytes)} bytes (${int(t.already_done)} already done; parts at ${int(r.limits.max_lines)} lines / ${int(r.limits.max_bytes)} bytes), ${int(t.prompt_tokens)} prompt tokens, ${cost(t.cost)}`,
  );
  for (const n of r.notes) out.push(`note: ${n}`);
  return out;
}
