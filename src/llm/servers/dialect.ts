/**
 * How one server takes the portable request keys (docs/prompts.md#servers): a structured-output constraint, a
 * JSON `response_format` and a reasoning level become the body fields that server reads. A constraint the server
 * cannot honour is a one-line problem (a string), never a field it would drop.
 */
import type { ResponseFormat } from '../decoding';
import { jsonSchemaFormat, type ReasoningLevel, type Structured } from './portable';

export interface ServerDialect {
  /** Body fields asking for `structured`, or the problem when this server cannot constrain its answer so. */
  structured(structured: Structured, version: string | null): Record<string, unknown> | string;
  /** `response_format` in the form that keeps its schema on this server. */
  responseFormat(format: ResponseFormat): ResponseFormat | Record<string, unknown>;
  /** Body fields for a reasoning level. */
  reasoning(level: ReasoningLevel): Record<string, unknown>;
}

/**
 * A JSON-object format with a schema as the servers that read only OpenAI's form keep it: `{type: json_schema}`.
 * vLLM, SGLang and Ollama read `{type: json_object}` as "any JSON object" and drop its `schema`.
 */
export function openAiFormat(format: ResponseFormat): ResponseFormat | Record<string, unknown> {
  return format.type === 'json_object' && format.schema ? jsonSchemaFormat(format.schema) : format;
}

/** `reasoning_effort` as OpenAI's API names it (vLLM, SGLang, llama.cpp and Ollama read the same key). */
export function reasoningEffort(level: ReasoningLevel): Record<string, unknown> {
  return { reasoning_effort: level };
}

/** The one-line problem for a constraint a server has no field for. */
export function unsupported(server: string, kind: string, instead: string): string {
  return `${server} takes no ${kind} constraint — ${instead}`;
}
