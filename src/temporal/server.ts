/**
 * The embedded Temporal dev server (`temporal server start-dev`, SQLite file), run detached with a pid file.
 * State survives restarts because the database is a file under data/temporal/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { PROJECT_ROOT, resolvePath } from '../config/load';
import type { Config } from '../config/schema';
import { searchAttributeFlags } from './search-attributes';
import { uiBaseUrl } from './ui-link';

export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'UserFacingError';
  }
}

/** The Temporal CLI: $TEMPORAL_CLI, else tools/bin/temporal (setup), else `temporal` on PATH. */
export function resolveTemporalCli(): string {
  const candidates = [process.env.TEMPORAL_CLI, path.join(PROJECT_ROOT, 'tools', 'bin', 'temporal')].filter(Boolean) as string[];
  for (const c of candidates) if (existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new UserFacingError('Temporal CLI not found: run `npm run setup` (installs it into tools/bin) or put `temporal` on PATH');
}

export function splitAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  if (i < 0) return { host: address, port: 7233 };
  return { host: address.slice(0, i), port: Number(address.slice(i + 1)) };
}

/**
 * A port on `host` that was free a moment ago (for test servers; connections are refused until one listens).
 * The probe accepts one connection of its own and closes it from the server side, so the port sits in TIME_WAIT
 * for about a minute: Linux then hands it to no other bind to port 0 (the Temporal CLI picks its internal ports
 * that way), while a server that binds it by number (SO_REUSEADDR, the default of Node, Go and Python servers)
 * still can. Without this, Linux may give the same port to the next caller.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer((conn) => conn.destroy());
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      const client = net.connect({ host, port });
      client.on('error', reject);
      client.on('close', () => probe.close(() => resolve(port)));
    });
  });
}

/** True when something accepts TCP connections on host:port. */
export function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (v: boolean) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** True when a Temporal frontend answers a health check at `address`. */
export async function temporalHealthy(address: string, timeoutMs = 2000): Promise<boolean> {
  const { host, port } = splitAddress(address);
  if (!(await portOpen(host, port, Math.min(timeoutMs, 1000)))) return false;
  let conn: Connection | undefined;
  try {
    conn = await Connection.connect({ address, connectTimeout: timeoutMs });
    const res = await conn.healthService.check({});
    return res.status === 1; // SERVING
  } catch {
    return false;
  } finally {
    await conn?.close().catch(() => undefined);
  }
}

export interface ServerPaths {
  dbFile: string;
  dir: string;
  pidFile: string;
  logFile: string;
}

export function serverPaths(config: Config): ServerPaths {
  const dbFile = resolvePath(config.temporal.db_file);
  const dir = path.dirname(dbFile);
  return { dbFile, dir, pidFile: path.join(dir, 'server.pid'), logFile: path.join(dir, 'server.log') };
}

function readPid(pidFile: string): number | null {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface ServerStatus {
  running: boolean;
  healthy: boolean;
  pid: number | null;
  address: string;
  uiUrl: string;
  dbFile: string;
  /** The server answering at the address was not started by us (no live pid file). */
  external: boolean;
}

export async function serverStatus(config: Config): Promise<ServerStatus> {
  const p = serverPaths(config);
  const pid = readPid(p.pidFile);
  const ours = pid !== null && alive(pid);
  const healthy = await temporalHealthy(config.temporal.address);
  return {
    running: ours || healthy,
    healthy,
    pid: ours ? pid : null,
    address: config.temporal.address,
    uiUrl: uiBaseUrl(config.temporal),
    dbFile: p.dbFile,
    external: healthy && !ours,
  };
}

export interface StartResult {
  status: ServerStatus;
  alreadyRunning: boolean;
}

/** Start the dev server detached and wait until its frontend answers health checks and its Web UI accepts connections. */
export async function startServer(config: Config, opts: { waitMs?: number } = {}): Promise<StartResult> {
  const before = await serverStatus(config);
  if (before.healthy) return { status: before, alreadyRunning: true };
  const { host, port } = splitAddress(config.temporal.address);
  const uiPort = config.temporal.ui_port;
  if (uiPort === port) {
    throw new UserFacingError(`temporal.ui_port ${uiPort} is the frontend's port too (temporal.address): give the Web UI another port`);
  }
  for (const [what, prt] of [
    ['frontend', port],
    ['UI', uiPort],
  ] as const) {
    if (await portOpen(host, prt)) {
      throw new UserFacingError(
        `port ${prt} (${what}) on ${host} is already in use by another program — stop it, or choose other ports (temporal.address / temporal.ui_port in the config, or --address)`,
      );
    }
  }
  const p = serverPaths(config);
  mkdirSync(p.dir, { recursive: true });
  const cli = resolveTemporalCli();
  const logFd = openSync(p.logFile, 'a');
  const child = spawn(
    cli,
    [
      'server',
      'start-dev',
      '--db-filename',
      p.dbFile,
      '--ip',
      host,
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--namespace',
      config.temporal.namespace,
      '--log-level',
      'warn',
      ...searchAttributeFlags(),
    ],
    { detached: true, stdio: ['ignore', logFd, logFd], cwd: PROJECT_ROOT },
  );
  closeSync(logFd);
  if (!child.pid) throw new UserFacingError(`could not start ${cli}`);
  child.unref();
  writeFileSync(p.pidFile, `${child.pid}\n`);
  const deadline = Date.now() + (opts.waitMs ?? 60000);
  while (Date.now() < deadline) {
    if (!alive(child.pid)) {
      rmSync(p.pidFile, { force: true });
      const tail = existsSync(p.logFile) ? readFileSync(p.logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      throw new UserFacingError(`the Temporal dev server exited during start-up; last log lines (${p.logFile}):\n${tail}`);
    }
    // The UI starts beside the frontend and ends the process when it cannot bind: ready means both answer.
    if ((await temporalHealthy(config.temporal.address)) && (await portOpen(host, uiPort))) {
      return { status: await serverStatus(config), alreadyRunning: false };
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new UserFacingError(`the Temporal dev server did not become healthy within ${(opts.waitMs ?? 60000) / 1000} s (log: ${p.logFile})`);
}

/** Stop the server we started (pid file). Returns false when none of ours was running. */
export async function stopServer(config: Config, opts: { waitMs?: number } = {}): Promise<boolean> {
  const p = serverPaths(config);
  const pid = readPid(p.pidFile);
  if (pid === null || !alive(pid)) {
    rmSync(p.pidFile, { force: true });
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + (opts.waitMs ?? 20000);
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(p.pidFile, { force: true });
  return true;
}
