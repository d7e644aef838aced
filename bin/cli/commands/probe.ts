/**
 * `phase5 probe`: the memorisation probe (docs/memorisation.md) — per dataset and arm model, how much of the gold
 * text the model continues without seeing the OCR, against its controls. Its workflow id carries the run key
 * (every input hashed, the `probe:` block too), so the same inputs attach to the same probe.
 */
import type { Command } from 'commander';
import { connectClient, startOrAttach } from '../../../src/temporal/client';
import { probeWorkflowId } from '../../../src/temporal/types';
import { workflowUiLink } from '../../../src/temporal/ui-link';
import { writeRunMarker } from '../../../src/stages/shared/run-marker';
import { probeWorkflow } from '../../../workflows';
import type { ProbeResult } from '../../../workflows/probe';
import { resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../options';
import { runKey } from '../run-identity';
import { collectSecrets } from '../secrets';
import { watchWorkflow } from '../watch';

type Flags = GlobalFlags & StageFlags & { detach?: boolean };

/** The result in a few lines: each job's texts and skip, then the file and how many books score above their control. */
export function describeProbe(r: ProbeResult): string[] {
  const lines = r.jobs.map(
    (j) =>
      `  ${j.job.model} × ${j.job.dataset}${j.job.control ? ' (unpublished control)' : ''}: ${j.units} probe texts` +
      (j.resumed ? ` (${j.resumed} from an earlier run)` : '') +
      (j.likelihoodSkipped ? `; likelihood test skipped: ${j.likelihoodSkipped}` : ''),
  );
  const m = r.memorisation;
  return [...lines, `  ${m.file}: ${m.aboveControl} of the dataset × model pairs score above their control`];
}

async function startProbe(cmd: Command): Promise<void> {
  const flags = cmd.optsWithGlobals<Flags>();
  const { config } = resolveConfig(flags, flags);
  const requested = runOptions(flags, config);
  const run = runKey(config, requested);
  const options = writeRunMarker(config, requested, run);
  const { client, connection } = await connectClient(config);
  try {
    const workflowId = probeWorkflowId(run);
    const { handle, outcome } = await startOrAttach(
      client,
      probeWorkflow,
      workflowId,
      [{ run, config, options, force: Boolean(flags.force) }],
      {
        force: Boolean(flags.force),
        taskQueue: config.temporal.queues.cpu,
        forbiddenValues: collectSecrets(config),
      },
    );
    const link = workflowUiLink(config.temporal, workflowId);
    console.error(
      `${outcome === 'started' ? 'started' : outcome === 'attached-running' ? 'attached to' : 'already finished:'} ${workflowId} — ${link}`,
    );
    if (flags.detach && outcome !== 'finished-before') return void console.log(workflowId);
    const result = await watchWorkflow(client, handle, run);
    if (flags.json) console.log(JSON.stringify({ workflowId, result }, null, 2));
    else for (const line of [`${workflowId} finished`, ...describeProbe(result)]) console.log(line);
  } finally {
    await connection.close();
  }
}

export function registerProbeCommand(program: Command): void {
  program
    .command('probe')
    .description('memorisation probe: how much of each gold text the arms’ models continue without the OCR, against a control')
    .option('--sample <n>', 'a random pilot: n lines of each dataset, drawn as whole pages/blocks (with --seed)')
    .option('--seed <s>', "the pilot's random seed (--sample)")
    .option('--limit <n>', 'only the first n lines of each dataset (a smoke test)')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--force', 'probe again from the start (the probe files are rewritten)')
    .option('--detach', 'start (or find) the workflow, print its id and return')
    .action(async (_opts, c: Command) => startProbe(c));
}
