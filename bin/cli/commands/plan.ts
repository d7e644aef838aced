/**
 * `phase5 plan`: requests, tokens, time, cost and the detectable effect of a run before its first correction
 * (docs/plan.md); `--freeze` writes the analysis plan, hashed, into the results dir (plan.lock.json); `--batch`
 * shows the batch files `phase5 infer --batch-out` would write and their cost at the batch price (docs/batch.md).
 */
import type { Command } from 'commander';
import { resolveConfig, runOptions, UsageError, type GlobalFlags, type StageFlags } from '../options';
import { computePlan, type PlanReport } from '../plan';
import { batchPlanLines, computeBatchPlan } from '../plan-batch';
import { freezePlan } from '../plan-lock';

type PlanCommandFlags = GlobalFlags &
  StageFlags & { linesPerS?: string; targetMde?: string; probe?: boolean; freeze?: boolean; batch?: boolean };

function positive(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} expects a positive number, got "${v}"`);
  return n;
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const pp = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(2)} pp`);

/** The human summary: one line per arm, the totals, one line per contrast. */
export function planLines(p: PlanReport): string[] {
  const out = p.arms.map(
    (a) =>
      `${a.arm.padEnd(20)} lines ${int(a.lines).padStart(7)} × ${a.replicates}  requests ${int(a.requests).padStart(8)}  prompt tokens ${int(a.prompt_tokens).padStart(11)} (${a.prompt_tokens_source})  completion budget ${int(a.max_completion_tokens)}`,
  );
  const t = p.totals;
  const s = t.est_seconds;
  const secs =
    s === null ? 'time unknown (give --lines-per-s)' : `about ${s < 3600 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(2)} h`}`;
  out.push(
    `total: ${int(t.requests)} requests, ${int(t.prompt_tokens)} prompt tokens, ${secs}${t.cost === null ? '' : `, cost ≤ ${t.cost.toFixed(2)}`}`,
  );
  const pw = p.detail.power;
  out.push(`contrasts (Holm family of ${pw.family_size} tests, α = ${pw.alpha}; detectable |ΔCER| at 80 % power, pooled):`);
  for (const c of pw.contrasts) {
    const need = c.lines_needed
      ? `; lines needed per dataset: ${Object.entries(c.lines_needed)
          .map(([d, n]) => `${d} ${int(n)}`)
          .join(', ')}`
      : '';
    out.push(
      `  ${c.arm} vs ${c.vs}: ≥ ${pp(c.mde)} (${c.in_family ? 'in the family' : 'outside the family'}; α alone ${pp(c.mde_unadjusted)}; SE from ${c.source === 'pilot' ? `the pilot's ${int(c.measured_lines)} corrected lines` : `the OCR baseline, ${int(c.measured_lines)} lines`})${need}`,
    );
  }
  for (const j of p.detail.probe ?? [])
    out.push(
      `probe ${j.model} × ${j.dataset}: ${int(j.texts)} texts, ${int(j.requests)} requests, ${int(j.prompt_chars)} prompt characters, completion budget ${int(j.max_completion_tokens)}`,
    );
  for (const n of p.detail.notes) out.push(`note: ${n}`);
  return out;
}

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description('requests, prompt tokens, time, cost and the detectable effect of a run, before any correction (no LLM correction call)')
    .option('--arm <name>', 'plan one study arm')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--limit <n>', 'only the first n lines of each dataset (a smoke test)')
    .option('--sample <n>', 'a random pilot: n lines of each dataset as whole pages/blocks (with --seed)')
    .option('--seed <s>', "the pilot's random seed (--sample)")
    .option('--lines-per-s <x>', 'the endpoint serves this many lines per second (instead of the throughput probe)')
    .option('--no-probe', 'no throughput probe: time unknown unless --lines-per-s')
    .option('--target-mde <x>', 'a detectable |ΔCER| to reach (CER fraction, e.g. 0.005): lines needed per dataset')
    .option('--batch', 'the batch files `infer --batch-out` would write per arm × replicate: files, lines, bytes, cost at the batch price')
    .option('--retry-failed', 'with --batch: the failed lines asked for again, as `infer --batch-out --retry-failed` does')
    .option('--freeze', 'write plan.lock.json (the analysis plan, hashed) into the results dir and print its sha256')
    .action(async (_opts, cmd: Command) => {
      const flags = cmd.optsWithGlobals<PlanCommandFlags>();
      const { config } = resolveConfig(flags, flags);
      const options = runOptions(flags, config);
      if (flags.batch) {
        if (flags.freeze) throw new UsageError('--batch and --freeze exclude each other');
        const batch = await computeBatchPlan(config, options, flags.json ? () => undefined : (line) => console.error(line));
        if (flags.json) console.log(JSON.stringify(batch, null, 2));
        else for (const line of batchPlanLines(batch)) console.log(line);
        return;
      }
      const report = await computePlan(config, options, {
        linesPerS: positive('--lines-per-s', flags.linesPerS),
        targetMde: positive('--target-mde', flags.targetMde),
        probe: flags.probe,
        log: flags.json ? undefined : (line) => console.error(line),
      });
      const lock = flags.freeze ? freezePlan(config, options, report) : null;
      if (flags.json) {
        console.log(JSON.stringify({ arms: report.arms, totals: report.totals, contrasts: report.contrasts }, null, 2));
        if (lock) console.error(`plan.lock.json ${lock.sha256} ${lock.file}`);
        return;
      }
      for (const line of planLines(report)) console.log(line);
      if (lock)
        console.log(
          `frozen: ${lock.file} sha256 ${lock.sha256}${lock.afterCorrections ? ' (written after the first correction: flagged)' : ''}`,
        );
    });
}
