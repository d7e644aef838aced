/**
 * What the end-to-end tests with real processes share: a Temporal dev server started from a config they write
 * (their own ports and db file), `phase5` processes (workers, the CLI) spawned from bin/phase5.js, polling for a
 * condition, and the JSONL files a run writes (lines so far, bytes with the one measured field zeroed).
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { freePort, startServer, stopServer } from '../../src/temporal/server';
import { REPO_ROOT } from '../helpers/shared-data';
import { writeDefaultInput } from '../helpers/default-arms';

/** The `temporal` keys of a server of the test's own: free ports, a db file in `dir`, queues named `<name>-cpu|gpu-<port>`. */
export async function ownServer(dir: string, name: string) {
  const [port, uiPort] = [await freePort(), await freePort()];
  return {
    address: `127.0.0.1:${port}`,
    ui_port: uiPort,
    db_file: path.join(dir, 'temporal.db'),
    queues: { cpu: `${name}-cpu-${port}`, gpu: `${name}-gpu-${port}` },
  };
}

/** Write `raw` as the YAML config file and load it (with an empty environment: no key is read from the shell). */
export function writeConfig(configFile: string, raw: object): Config {
  writeFileSync(configFile, YAML.stringify(raw));
  return loadConfig(configFile, { env: {} }).config;
}

/** A client of the config's server. */
export async function connectClient(config: Config): Promise<{ connection: Connection; client: Client }> {
  const connection = await Connection.connect({ address: config.temporal.address });
  return { connection, client: new Client({ connection, namespace: config.temporal.namespace }) };
}

/** Write and load the config, start its dev server and connect a client. */
export async function startE2eServer(configFile: string, raw: object): Promise<{ config: Config; connection: Connection; client: Client }> {
  const config = writeConfig(configFile, raw);
  await startServer(config);
  return { config, ...(await connectClient(config)) };
}

/** The after-hook: the workers killed, the connection closed, the server stopped (each only when there is one). */
export async function stopE2eServer(
  workers: readonly ChildProcess[],
  connection: Connection | undefined,
  config: Config | undefined,
): Promise<void> {
  for (const w of workers) await killWorker(w);
  await connection?.close();
  if (config) await stopServer(config);
}

/** SIGKILL a process that is still running and wait for it to exit. */
export async function killWorker(w: ChildProcess): Promise<void> {
  if (w.exitCode !== null || w.signalCode !== null) return;
  const exited = new Promise((r) => w.once('exit', r));
  w.kill('SIGKILL');
  await exited;
}

/** `phase5 <args>` as a child process, from the repository root. */
export function spawnPhase5(args: readonly string[], env: NodeJS.ProcessEnv, stdio: StdioOptions = 'pipe'): ChildProcess {
  return spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), ...args], { cwd: REPO_ROOT, env, stdio });
}

/** `phase5 worker` of the config file, on the given queues (default: the config's). */
export function spawnWorker(configFile: string, env: NodeJS.ProcessEnv, stdio: StdioOptions, queues?: readonly string[]): ChildProcess {
  return spawnPhase5(['--config', configFile, 'worker', ...(queues ? ['--queues', queues.join(',')] : [])], env, stdio);
}

/** Workers polling `queue` for activity tasks. */
export async function pollerCount(client: Client, queue: string): Promise<number> {
  const res = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: queue }, taskQueueType: 2 });
  return res.pollers?.length ?? 0;
}

/** Poll `cond` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Non-blank lines of a file (0 when it does not exist yet). */
export function lineCount(file: string): number {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length
    : 0;
}

/** Lines the infer shards have written so far (`<output>.parts/*.jsonl`, before the merge). */
export function partLines(output: string): number {
  const dir = `${output}.parts`;
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .reduce((n, f) => n + lineCount(path.join(dir, f)), 0)
    : 0;
}

/** The file with the one measured field (`latency_ms`) zeroed: what two runs must agree on byte for byte. */
export function withoutLatency(file: string): string {
  return readFileSync(file, 'utf8').replace(/"latency_ms":\d+/g, '"latency_ms":0');
}

/** Both default arms' inference_input.jsonl (`<resultsDir>/arms/<arm>/`) holding `rows`. */
export function writeInferenceInput(resultsDir: string, rows: readonly object[]): void {
  writeDefaultInput(resultsDir, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}
