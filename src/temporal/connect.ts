/**
 * Open a client connection to Temporal with the options of src/temporal/connection-options.ts, and turn any
 * failure into one line: nothing listening, a TLS problem the probe of src/temporal/tls-diagnosis.ts names,
 * else the SDK's own first line with how the connection was made.
 */
import { Connection } from '@temporalio/client';
import type { Config } from '../config/schema';
import { clientCertVersionProblem } from './cert-version';
import {
  clientCertSource,
  connectOptions,
  describeSecurity,
  TemporalProfileError,
  type Env,
  type TemporalConnectOptions,
} from './connection-options';
import { portOpen, splitAddress, UserFacingError } from './server';
import { diagnoseTls } from './tls-diagnosis';

export function unreachableMessage(address: string): string {
  return `cannot reach Temporal at ${address} — start it with \`phase5 server start\``;
}

/** The one-line error for a connection to `opts.address` that failed with `err`. */
export async function connectionFailure(opts: TemporalConnectOptions, err: unknown): Promise<UserFacingError> {
  const { host, port } = splitAddress(opts.address);
  if (!(await portOpen(host, port, 1500))) return new UserFacingError(unreachableMessage(opts.address));
  const why = await diagnoseTls(opts).catch(() => null);
  const first = String((err as Error)?.message ?? err).split('\n')[0];
  return new UserFacingError(why ?? `cannot connect to Temporal at ${opts.address} (${describeSecurity(opts)}): ${first}`);
}

/**
 * The connection options of src/temporal/connection-options.ts; a bad Temporal profile, or a client certificate the
 * worker's TLS stack refuses (./cert-version.ts), is a one-line error before anything connects.
 */
export function temporalConnectOptions(config: Config, env: Env = process.env): TemporalConnectOptions {
  let opts: TemporalConnectOptions;
  try {
    opts = connectOptions(config, env);
  } catch (err) {
    if (err instanceof TemporalProfileError) throw new UserFacingError(err.message);
    throw err;
  }
  const crt = typeof opts.tls === 'object' ? opts.tls?.clientCertPair?.crt : undefined;
  const problem = crt ? clientCertVersionProblem(crt, clientCertSource(env)) : null;
  if (problem) throw new UserFacingError(problem);
  return opts;
}

export async function openConnection(opts: TemporalConnectOptions): Promise<Connection> {
  const { host, port } = splitAddress(opts.address);
  if (!(await portOpen(host, port, 1500))) throw new UserFacingError(unreachableMessage(opts.address));
  try {
    return await Connection.connect({ ...opts, connectTimeout: 5000 });
  } catch (err) {
    throw await connectionFailure(opts, err);
  }
}
