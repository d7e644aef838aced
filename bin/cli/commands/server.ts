import type { Command } from 'commander';
import { resolveConfig, type GlobalFlags } from '../options';
import { serverPaths, serverStatus, startServer, stopServer } from '../../../src/temporal/server';

export function registerServerCommands(program: Command): void {
  const server = program.command('server').description('manage the embedded Temporal dev server (SQLite file under data/temporal/)');

  server
    .command('start')
    .description('start the dev server detached and wait until it is healthy')
    .action(async (_opts, cmd: Command) => {
      const { config } = resolveConfig(cmd.optsWithGlobals<GlobalFlags>());
      const { status, alreadyRunning } = await startServer(config);
      if (alreadyRunning) {
        console.log(
          `Temporal is already running at ${status.address}${status.external ? ' (not started by phase5)' : ` (pid ${status.pid})`}; UI ${status.uiUrl}`,
        );
      } else {
        console.log(`Temporal dev server started at ${status.address} (pid ${status.pid})`);
        console.log(`  UI:       ${status.uiUrl}`);
        console.log(`  database: ${status.dbFile}`);
        console.log(`  log:      ${serverPaths(config).logFile}`);
        console.log('  stop it with `phase5 server stop`');
      }
    });

  server
    .command('stop')
    .description('stop the dev server started by `phase5 server start` (workflow history stays in the database file)')
    .action(async (_opts, cmd: Command) => {
      const { config } = resolveConfig(cmd.optsWithGlobals<GlobalFlags>());
      const stopped = await stopServer(config);
      if (stopped) console.log('Temporal dev server stopped');
      else {
        const st = await serverStatus(config);
        console.log(
          st.healthy ? `no server started by phase5 is running; something else serves ${st.address}` : 'Temporal dev server is not running',
        );
      }
    });

  server
    .command('status')
    .description('say whether the dev server is running and healthy')
    .action(async (_opts, cmd: Command) => {
      const { config } = resolveConfig(cmd.optsWithGlobals<GlobalFlags>());
      const st = await serverStatus(config);
      if (st.healthy)
        console.log(
          `running at ${st.address}${st.pid ? ` (pid ${st.pid})` : ' (not started by phase5)'}; UI ${st.uiUrl}; database ${st.dbFile}`,
        );
      else if (st.running) console.log(`process ${st.pid} is up but ${st.address} does not answer yet`);
      else {
        console.log(`not running (start it with \`phase5 server start\`)`);
        process.exitCode = 1;
      }
    });
}
