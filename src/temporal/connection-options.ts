/**
 * How the CLI, the client and the worker connect to Temporal: Temporal's own client configuration
 * (`@temporalio/envconfig`: the TOML profile named by TEMPORAL_PROFILE in TEMPORAL_CONFIG_FILE or the default
 * file, then the TEMPORAL_* variables over it), with the config file's `temporal` block as the fallback for
 * address and namespace and `--address` / `--namespace` over everything. TLS and the API key come only from
 * Temporal's configuration, never from the phase5 config: they are secrets (a key) or machine-local paths, and
 * the phase5 config travels into workflow inputs. See docs/cluster.md.
 */
import { loadClientConfigProfile, toClientOptions, type ClientConfigProfile } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import type { Config } from '../config/schema';

export type Env = Record<string, string | undefined>;

/** A profile that names a file that is missing or a TOML that does not parse: one line naming the source. */
export class TemporalProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemporalProfileError';
  }
}

/** `fn`'s error as a TemporalProfileError naming the file and profile. */
function profileError<T>(env: Env, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemporalProfileError) throw err;
    const source = env.TEMPORAL_CONFIG_FILE ? `TEMPORAL_CONFIG_FILE ${env.TEMPORAL_CONFIG_FILE}` : 'the Temporal client configuration';
    const profile = env.TEMPORAL_PROFILE ? ` (profile ${env.TEMPORAL_PROFILE})` : '';
    throw new TemporalProfileError(`${source}${profile}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Temporal's client profile (TOML + environment), or `{}` when neither says anything. */
export function temporalProfile(env: Env = process.env): ClientConfigProfile {
  return profileError(env, () => loadClientConfigProfile({ overrideEnvVars: env as Record<string, string> }));
}

/** Address and namespace from the profile, over the config file's `temporal` block (parseConfig applies them). */
export function applyTemporalProfile(temporal: Config['temporal'], env: Env = process.env): void {
  const profile = temporalProfile(env);
  if (profile.address) temporal.address = profile.address;
  if (profile.namespace) temporal.namespace = profile.namespace;
}

export interface TemporalConnectOptions {
  address: string;
  tls?: TLSConfig | boolean | null;
  apiKey?: string;
  metadata?: Record<string, string | Buffer>;
}

/**
 * What `Connection.connect` (client) and `NativeConnection.connect` (worker) take: the config's address (which
 * already holds the profile's and `--address`) with the profile's TLS, API key and gRPC metadata. An API key
 * without a TLS block turns TLS on (Temporal Cloud), as the SDK's own conversion does.
 */
export function connectOptions(config: Config, env: Env = process.env): TemporalConnectOptions {
  const { connectionOptions } = profileError(env, () => toClientOptions(temporalProfile(env)));
  return {
    address: config.temporal.address,
    ...(connectionOptions.tls !== undefined ? { tls: connectionOptions.tls } : {}),
    ...(connectionOptions.apiKey ? { apiKey: connectionOptions.apiKey } : {}),
    ...(connectionOptions.metadata ? { metadata: connectionOptions.metadata as Record<string, string | Buffer> } : {}),
  };
}

/** Where the profile's client certificate comes from, for a message: its path, or the profile's inline data. */
export function clientCertSource(env: Env = process.env): string {
  const cert = temporalProfile(env).tls?.clientCert;
  if (!cert) return '(none)';
  return 'path' in cert ? cert.path : '(inline data of the Temporal profile)';
}

/** `TLS (mutual)`, `TLS`, `TLS + API key`… for the one line that says how a process connected. */
export function describeSecurity(opts: TemporalConnectOptions): string {
  const tls = opts.tls ? (typeof opts.tls === 'object' && opts.tls.clientCertPair ? 'mutual TLS' : 'TLS') : 'plain TCP';
  return opts.apiKey ? `${tls} + API key` : tls;
}
