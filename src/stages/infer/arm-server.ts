/**
 * The server an arm's requests go to (docs/prompts.md#servers): named in `infer.openai.server`, or, for `auto`,
 * asked once per process and URL (src/llm/servers/detect.ts) — before infer sends, only when the body depends on
 * it (a default request is the same for every server); when infer plans, always, for arm.json and the study
 * manifest. A decoding the server cannot honour is a config error naming the key, before the first line.
 */
import type { Config } from '../../config/schema';
import type { BackendConfig } from '../../llm/index';
import { resolveDecoding } from '../../llm/decoding';
import { needsServerKind, requestProblems } from '../../llm/request-problems';
import { serverAt } from '../../llm/servers/detect';
import { configuredServer, serverLabel, UNKNOWN_SERVER, type ServerInfo } from '../../llm/servers/kinds';
import { requestRules, type RequestRules } from '../../llm/servers/openai-models';
import { UserInputError } from '../shared/types';

/** What arm.json and the study manifest record about an HTTP arm's server (`error`: `auto` could not ask it). */
export interface ArmServer {
  kind: ServerInfo['kind'];
  version: string | null;
  source: string;
  request_rules: RequestRules;
  error?: string;
}

function apiKey(cfg: { apiKeyEnv?: string; env?: Record<string, string | undefined> }): string | null {
  return cfg.apiKeyEnv ? ((cfg.env ?? process.env)[cfg.apiKeyEnv] ?? null) : null;
}

/** The HTTP backend's config with its server found and its decoding checked against it (a local one as it is). */
export async function withArmServer(cfg: BackendConfig, label: string): Promise<BackendConfig> {
  if (cfg.type !== 'openai') return cfg;
  const decoding = cfg.decoding ?? resolveDecoding(undefined, { temperature: cfg.temperature ?? 0, maxTokens: cfg.maxTokens ?? 512 });
  const server = cfg.server ?? (needsServerKind(decoding, cfg.model) ? await serverAt(cfg.baseUrl, apiKey(cfg)) : UNKNOWN_SERVER);
  const problems = requestProblems(decoding, server, cfg.model);
  if (problems.length) throw new UserInputError(`arm "${label}" (${cfg.model} on ${serverLabel(server)}): ${problems.join('; ')}`);
  return { ...cfg, server };
}

/** An HTTP arm's server as infer's plan records it (asked for `auto`; an unreachable one recorded with the reason). */
export async function armServer(config: Config): Promise<ArmServer | null> {
  const inf = config.infer;
  if (inf.backend !== 'openai') return null;
  const setting = inf.openai.server ?? 'auto';
  const model = inf.openai.model;
  if (setting !== 'auto') return { ...configuredServer(setting), request_rules: requestRules(setting, model) };
  const key = process.env[inf.openai.api_key_env] ?? null;
  try {
    const info = await serverAt(inf.openai.base_url, key);
    return { ...info, request_rules: requestRules(info.kind, model) };
  } catch (err) {
    return { ...UNKNOWN_SERVER, request_rules: requestRules('unknown', model), error: (err as Error).message };
  }
}

/** The warning for an arm whose replicates run at temperature 0 (they repeat the greedy answer), else null. */
export function greedyReplicatesWarning(arm: { name: string; replicates?: number; config: Config }): string | null {
  const n = arm.replicates ?? 1;
  const inf = arm.config.infer;
  const temperature = inf.decoding?.temperature ?? inf.temperature;
  return n > 1 && temperature === 0
    ? `arm "${arm.name}": ${n} replicates at temperature 0 repeat the greedy answer — their spread is the server's nondeterminism only (set decoding.temperature to sample)`
    : null;
}

/** Each HTTP arm's server, by arm name (arms of one base URL asked once). */
export async function armServers(arms: readonly { name: string; config: Config }[]): Promise<Record<string, ArmServer>> {
  const out: Record<string, ArmServer> = {};
  for (const arm of arms) {
    const server = await armServer(arm.config);
    if (server) out[arm.name] = server;
  }
  return out;
}
