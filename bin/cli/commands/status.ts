import type { Command } from 'commander';
import { resolveConfig, type GlobalFlags } from '../options';
import { connectClient, workflowStatus } from '../../../src/temporal/client';
import { describeArms, describeStatus } from '../watch';
import { stageWorkflowId } from '../../../src/temporal/types';
import type { Client } from '@temporalio/client';
import { describeSkips, stageOfWorkflowType } from '../skips';
import { CLOSED_FAILED, closedFailure } from '../pending';

/** For a finished stage or study: what it skipped, from its result. */
async function finishedSkips(client: Client, workflowId: string): Promise<string[]> {
  const handle = client.workflow.getHandle(workflowId);
  const stage = stageOfWorkflowType((await handle.describe()).type);
  return stage ? describeSkips(stage, await handle.result()) : [];
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'stage, done/total, rate and ETA of a workflow (the id a stage command prints, e.g. phase5-default-3fa2c91b or phase5-default-3fa2c91b-export)',
    )
    .argument('<workflowId>', 'workflow id')
    .action(async (workflowId: string, _opts: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalFlags>();
      const { config } = resolveConfig(opts);
      const { client, connection } = await connectClient(config);
      try {
        const view = await workflowStatus(client, workflowId);
        // A closed workflow that failed: its root cause, as the stage command printed it.
        if (CLOSED_FAILED.has(view.status)) view.failure ??= (await closedFailure(client, workflowId).catch(() => null)) ?? undefined;
        const stage = view.progress?.workflow === 'phase5Workflow' ? view.progress.stage : null;
        // The study's children are named after its id (phase5-<run key> → phase5-<run key>-<stage>).
        const child =
          stage && stage !== 'doctor'
            ? await workflowStatus(client, stageWorkflowId(workflowId.replace(/^phase5-/, ''), stage)).catch(() => null)
            : null;
        if (opts.json) console.log(JSON.stringify({ workflow: view, currentStage: child }, null, 2));
        else {
          console.log(describeStatus(view));
          for (const line of describeArms(view)) console.log(`  ${line}`);
          if (child) console.log(`  ${describeStatus(child)}`);
          for (const line of child ? describeArms(child) : []) console.log(`    ${line}`);
          if (view.status === 'COMPLETED') for (const line of await finishedSkips(client, workflowId)) console.log(line);
        }
      } finally {
        await connection.close();
      }
    });
}
