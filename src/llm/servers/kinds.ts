/**
 * The OpenAI-compatible servers infer knows how to speak to (docs/prompts.md#servers): `infer.openai.server`
 * names one, or `auto` asks the endpoint once (./detect.ts). What a server answered is its `ServerInfo`, recorded
 * in arm.json and the study manifest.
 */
export const SERVER_KINDS = ['vllm', 'sglang', 'llamacpp', 'ollama', 'openai'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** `infer.openai.server`: a kind, or `auto` (ask the endpoint). */
export type ServerSetting = ServerKind | 'auto';

/**
 * The server a request is made for. `unknown`: `auto` found none of the kinds (an OpenAI-compatible proxy such as
 * OpenRouter, or an older server); its requests carry the portable OpenAI fields only.
 */
export interface ServerInfo {
  kind: ServerKind | 'unknown';
  /** The version the server reported (vLLM, SGLang, Ollama: their version; llama.cpp: its build), else null. */
  version: string | null;
  /** `config` (named in infer.openai.server) or the route that answered (`GET /version`, …). */
  source: string;
}

/** The server a configured kind stands for, before anything was asked. */
export function configuredServer(kind: ServerKind): ServerInfo {
  return { kind, version: null, source: 'config' };
}

/** A server no route identified (what the requests of an `auto` arm are built for until detection answers). */
export const UNKNOWN_SERVER: ServerInfo = { kind: 'unknown', version: null, source: 'none' };

/** "vLLM 0.32.0", "llama.cpp b6500", "an unidentified server": for messages. */
export function serverLabel(server: ServerInfo): string {
  const names: Record<ServerInfo['kind'], string> = {
    vllm: 'vLLM',
    sglang: 'SGLang',
    llamacpp: 'llama.cpp',
    ollama: 'Ollama',
    openai: 'OpenAI',
    unknown: 'an unidentified OpenAI-compatible server',
  };
  return server.version ? `${names[server.kind]} ${server.version}` : names[server.kind];
}
