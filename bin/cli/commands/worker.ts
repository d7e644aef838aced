import type { Command } from 'commander';
import { resolveConfig, UsageError, type GlobalFlags } from '../options';
import { connectClient } from '../../../src/temporal/client';
import { ensureSearchAttributes } from '../../../src/temporal/search-attributes';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('serve task queues (CPU, GPU or both) until SIGINT/SIGTERM; run more on other machines to scale out')
    .option('--queues <list>', 'comma-separated task queues (default: both queues of the config)')
    .action(async (opts: { queues?: string }, cmd: Command) => {
      const { config } = resolveConfig(cmd.optsWithGlobals<GlobalFlags>());
      const known = [config.temporal.queues.cpu, config.temporal.queues.gpu];
      const queues = opts.queues ? opts.queues.split(',').map((q) => q.trim()).filter(Boolean) : known;
      if (queues.length === 0) throw new UsageError('--queues: give at least one task queue');
      // Fail fast with the one-line message when the server is down.
      const { connection } = await connectClient(config);
      const added = await ensureSearchAttributes(connection, config.temporal.namespace).finally(() => connection.close());
      if (added.length) console.error(`worker: registered search attributes ${added.join(', ')}`);
      console.error(`worker: serving ${queues.join(', ')} at ${config.temporal.address} (Ctrl-C to stop)`);
      const { runWorkers } = await import('../worker-runtime'); // heavy: native modules, webpack
      await runWorkers({ config, queues });
    });
}
