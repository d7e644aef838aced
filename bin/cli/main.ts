/**
 * `phase5` — the command-line client. Stage commands start (or attach to) Temporal workflows and show
 * their progress; `server` manages the embedded dev server; `worker` serves task queues; `report` and
 * `retrieve` work on local files without Temporal. Exit codes: 0 ok, 1 failure, 2 usage.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../../src/config/load';
import { UserFacingError } from '../../src/temporal/server';
import { UsageError, type GlobalFlags } from './options';
import { envLogFormat, flushLogs, setLogFormat, type LogFormat } from '../../src/util/log';
import { formatWorkflowFailure, isWorkflowFailure } from './errors';
import { registerServerCommands } from './commands/server';
import { registerWorkerCommand } from './commands/worker';
import { registerDoctorCommand } from './commands/doctor';
import { registerStageCommands } from './commands/stages';
import { registerStatusCommand } from './commands/status';
import { registerLocalCommands } from './commands/local';
import { registerScoreCommand } from './commands/score';
import { registerDemoCommand } from './commands/demo';
import { registerRunsCommand } from './commands/runs';
import { registerPlanCommand } from './commands/plan';
import { registerProbeCommand } from './commands/probe';

export function buildProgram(): Command {
  const program = new Command('phase5')
    .description('OpenITI retrieval-augmented OCR correction study: build → export → infer → analyze on Temporal')
    .option('-c, --config <file>', 'config file', 'configs/config.yaml')
    .option('--address <host:port>', 'Temporal frontend address (env TEMPORAL_ADDRESS)')
    .option('--namespace <ns>', 'Temporal namespace')
    .option('--results-dir <dir>', 'results root (arms/, exports/, corpora/ and study/ inside)')
    .option('--run <name>', 'run name; workflow ids derive from it and a hash of the inputs (phase5-<run>-<hash8>-<stage>)')
    .option('-v, --verbose', 'show stack traces on errors')
    .option('--json', 'print the result as a JSON document instead of a human summary')
    .option('--log-format <format>', 'log lines: human (default) or json (structured pino lines; env PHASE5_LOG_FORMAT)')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true });
  program.exitOverride();
  program.hook('preAction', (_program, action) => applyLogFormat(action));
  registerServerCommands(program);
  registerWorkerCommand(program);
  registerDoctorCommand(program);
  registerStageCommands(program);
  registerStatusCommand(program);
  registerRunsCommand(program);
  registerPlanCommand(program);
  registerProbeCommand(program);
  registerLocalCommands(program);
  registerScoreCommand(program);
  registerDemoCommand(program);
  // Every subcommand reports usage errors through exitOverride as well.
  for (const cmd of program.commands) {
    cmd.exitOverride();
    for (const sub of cmd.commands) sub.exitOverride();
  }
  return program;
}

/**
 * Logs for a person by default, structured with `--log-format json` / PHASE5_LOG_FORMAT=json. A worker's logs
 * are for machines: structured unless a format is asked for.
 */
export function applyLogFormat(action: Command): void {
  const asked = action.optsWithGlobals<GlobalFlags>().logFormat;
  if (asked !== undefined && asked !== 'human' && asked !== 'json')
    throw new UsageError(`--log-format must be human or json, got "${asked}"`);
  setLogFormat((asked as LogFormat | undefined) ?? envLogFormat() ?? (action.name() === 'worker' ? 'json' : 'human'));
}

/** Map any error to a one-line message and an exit code (stack only with --verbose). */
export function reportError(err: unknown, verbose: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    return 2; // commander already printed the message
  }
  if (err instanceof UsageError) {
    console.error(`phase5: ${err.message}`);
    return 2;
  }
  if (err instanceof UserFacingError || err instanceof ConfigError) {
    console.error(`phase5: ${err.message}`);
    if (verbose && err.stack) console.error(err.stack);
    return err instanceof UserFacingError ? err.exitCode : 1;
  }
  if (isWorkflowFailure(err)) {
    // The message the user needs sits at the end of Temporal's cause chain, not in "Workflow execution failed".
    for (const line of formatWorkflowFailure(err, verbose)) console.error(line);
    return 1;
  }
  const e = err as Error;
  console.error(`phase5: ${e?.message ?? String(err)}`);
  if (verbose && e?.stack) console.error(e.stack);
  else console.error('(run with --verbose for details)');
  return 1;
}

export async function main(argv = process.argv): Promise<number> {
  const program = buildProgram();
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    flushLogs();
    return reportError(err, verbose);
  } finally {
    flushLogs();
  }
}
