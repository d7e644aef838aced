import type { Command } from 'commander';
import { resolveConfig, type GlobalFlags } from '../options';
import { connectClient } from '../../../src/temporal/client';
import { resultDirs } from '../../../src/config/load';
import { doctorWorkflow } from '../../../workflows';
import type { Connection } from '@temporalio/client';
import { ensureSearchAttributes, searchAttributesRefused } from '../../../src/temporal/search-attributes';
import { livePollers, pollTimes } from '../../../activities/failure-kind';
import { UserFacingError } from '../../../src/temporal/server';

/** Live workers polling `queue` (their latest poll within LIVE_POLLER_WINDOW_MS; the server lists gone ones for minutes). */
async function pollerCounts(
  client: Awaited<ReturnType<typeof connectClient>>['client'],
  namespace: string,
  queue: string,
): Promise<number> {
  const res = await client.workflowService.describeTaskQueue({ namespace, taskQueue: { name: queue }, taskQueueType: 2 /* ACTIVITY */ });
  const now = Date.now();
  return livePollers(pollTimes(res.pollers ?? [], now), now).length;
}

/** How long doctor waits for one call to Temporal before it says so. */
export const CALL_DEADLINE_MS = 8000;

/** gRPC's status code for a call past its deadline (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const DEADLINE_EXCEEDED = 4;

/** `call` within CALL_DEADLINE_MS, else a one-line error naming what did not answer. */
async function withinDeadline<T>(connection: Connection, address: string, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await connection.withDeadline(Date.now() + CALL_DEADLINE_MS, call);
  } catch (err) {
    if ((err as { code?: number }).code !== DEADLINE_EXCEEDED) throw err;
    throw new UserFacingError(`Temporal at ${address} did not answer ${what} within ${CALL_DEADLINE_MS / 1000} s`);
  }
}

/** Register the Phase5* search attributes (idempotent) and report it. */
async function searchAttributesRow(connection: Connection, namespace: string): Promise<[string, boolean, string]> {
  try {
    const added = await ensureSearchAttributes(connection, namespace);
    return ['search attributes', true, added.length ? `registered ${added.join(', ')}` : 'Phase5* registered'];
  } catch (err) {
    return ['search attributes', false, searchAttributesRefused(err)];
  }
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check the environment through a real workflow round trip on both task queues')
    .option('--timeout <seconds>', 'how long to wait for a worker on each queue', '15')
    .action(async (opts: { timeout: string }, cmd: Command) => {
      const { config } = resolveConfig(cmd.optsWithGlobals<GlobalFlags>());
      const rows: [string, boolean, string][] = [];
      const { client, connection } = await connectClient(config);
      try {
        rows.push(['temporal reachable', true, `${config.temporal.address} namespace ${config.temporal.namespace}`]);
        // Each call answers within CALL_DEADLINE_MS or fails in one line: doctor never waits silently.
        const timely = <T>(what: string, call: () => Promise<T>) => withinDeadline(connection, config.temporal.address, what, call);
        rows.push(await timely('registering the search attributes', () => searchAttributesRow(connection, config.temporal.namespace)));
        const queues = [config.temporal.queues.cpu, config.temporal.queues.gpu];
        const withPollers: string[] = [];
        for (const q of queues) {
          const n = await timely(`listing the workers of ${q}`, () => pollerCounts(client, config.temporal.namespace, q));
          rows.push([
            `worker on ${q}`,
            n > 0,
            n > 0 ? `${n} poller(s)` : `no worker is polling ${q} — start one with \`phase5 worker --queues ${q}\``,
          ]);
          if (n > 0) withPollers.push(q);
        }
        if (withPollers.length) {
          console.error(
            `doctor: waiting up to ${Number(opts.timeout)} s for the workers on ${withPollers.join(', ')} to run their checks…`,
          );
          const handle = await client.workflow.start(doctorWorkflow, {
            workflowId: `phase5-doctor-${Date.now()}`,
            taskQueue: withPollers[0],
            args: [{ queues: withPollers, resultsDir: resultDirs(config).root, pickupTimeout: `${Number(opts.timeout)}s`, config }],
            workflowExecutionTimeout: '5m',
          });
          const results = await handle.result();
          for (const r of results) {
            if (r.error) rows.push([`round trip ${r.queue}`, false, r.error]);
            for (const c of r.report?.checks ?? []) rows.push([`${r.queue}: ${c.name}`, c.ok, c.detail]);
          }
        }
      } finally {
        await connection.close();
      }
      const w = Math.max(...rows.map((r) => r[0].length));
      for (const [name, ok, detail] of rows) console.log(`${ok ? ' ok  ' : 'FAIL '} ${name.padEnd(w)}  ${detail}`);
      const failed = rows.filter((r) => !r[1]).length;
      console.log(failed ? `\n${failed} check(s) failed` : '\nall checks passed');
      if (failed) process.exitCode = 1;
    });
}
