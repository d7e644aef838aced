/** The dialect of each server kind (./dialect.ts), and what the portable keys become for one server. */
import type { ServerDialect } from './dialect';
import type { ServerInfo } from './kinds';
import { llamacpp } from './llamacpp';
import { ollama } from './ollama';
import { openai, unknownServer } from './openai';
import { sglang } from './sglang';
import { vllm } from './vllm';

const DIALECTS: Record<ServerInfo['kind'], ServerDialect> = { vllm, sglang, llamacpp, ollama, openai, unknown: unknownServer };

export function dialectOf(server: ServerInfo): ServerDialect {
  return DIALECTS[server.kind];
}
