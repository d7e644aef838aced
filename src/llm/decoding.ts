/**
 * Decoding settings of a request (docs/prompts.md#decoding): `infer.decoding` is the study's default, an arm's
 * `decoding` overrides it key by key. `resolveDecoding` fills the defaults (`temperature` from
 * `infer.temperature`, `max_tokens` from the backend's block); `requestFields` turns the resolved settings into
 * the portable chat-completion body fields (the `seed` included), which ./request-body.ts `chatRequestBody`
 * shapes for the arm's server.
 */
import { z } from 'zod';
import { ReasoningSchema, StructuredSchema, type ReasoningLevel, type Structured } from './servers/portable';

/**
 * A chat-completion `response_format`: plain text, any JSON object, or a JSON schema (OpenAI's shape, which vLLM
 * takes). llama.cpp's servers (and llama-cpp-python's, which refuses `json_schema`) take the schema as
 * `{type: json_object, schema}` instead.
 */
export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object'), schema: z.record(z.string(), z.unknown()).optional() }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().min(1),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().optional(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

/** Body keys the decoding block or the request itself sets: `extra_body` may not set them again. */
export const RESERVED_BODY_KEYS = ['model', 'messages', 'temperature', 'top_p', 'seed', 'max_tokens', 'stop', 'response_format'] as const;

export const DecodingSchema = z
  .strictObject({
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().gt(0).max(1).optional(),
    /** A 64-bit signed integer as vLLM takes it; JSON numbers are exact up to 2^53. */
    seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
    max_tokens: z.number().int().positive().optional(),
    stop: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(16)]).optional(),
    response_format: ResponseFormatSchema.optional(),
    /**
     * The answer constrained to a JSON schema, a regular expression or one of a list of strings, sent in the form
     * the arm's server takes (docs/prompts.md#servers).
     */
    structured: StructuredSchema.optional(),
    /** How much a reasoning model thinks; `none` turns thinking off (sent as the arm's server takes it). */
    reasoning: ReasoningSchema.optional(),
    /** Merged into the request body verbatim (`chat_template_kwargs`, vendor keys). */
    extra_body: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((d, ctx) => {
    for (const key of Object.keys(d.extra_body ?? {})) {
      if ((RESERVED_BODY_KEYS as readonly string[]).includes(key))
        ctx.addIssue({
          code: 'custom',
          path: ['extra_body', key],
          message: `"${key}" is set by the request itself${key === 'model' || key === 'messages' ? '' : ` — use decoding.${key}`}`,
        });
      const guided = GUIDED_KEYS[key];
      if (guided) ctx.addIssue({ code: 'custom', path: ['extra_body', key], message: guided });
    }
    const format = d.response_format;
    const schema = format?.type === 'json_schema' ? format.json_schema.schema : format?.type === 'json_object' ? format.schema : undefined;
    if (schema && fieldOfSchema(schema) === null)
      ctx.addIssue({
        code: 'custom',
        path: format?.type === 'json_schema' ? ['response_format', 'json_schema', 'schema'] : ['response_format', 'schema'],
        message: NO_FIELD,
      });
    if (d.structured && 'json' in d.structured && fieldOfSchema(d.structured.json) === null)
      ctx.addIssue({ code: 'custom', path: ['structured', 'json'], message: NO_FIELD });
    if (d.structured && format && format.type !== 'text')
      ctx.addIssue({
        code: 'custom',
        path: ['structured'],
        message: 'set decoding.structured or a JSON decoding.response_format, not both — they constrain the same answer',
      });
  });
export type Decoding = z.infer<typeof DecodingSchema>;

const NO_FIELD =
  'the schema must declare a string property "corrected_text" (or exactly one string property) — the correction is read from it';

/**
 * vLLM's `guided_*` fields, removed in vLLM 0.12.0: a current vLLM answers a request carrying them with HTTP 200
 * and unconstrained output (vllm/entrypoints/serve/engine/protocol.py logs "… which are ignored"). The portable
 * key is sent in the form each server takes.
 */
const GUIDED_KEYS: Record<string, string> = {
  guided_json: 'vLLM ignores guided_json since 0.12 — use decoding.structured: {json: <schema>} (or decoding.response_format json_schema)',
  guided_regex: 'vLLM ignores guided_regex since 0.12 — use decoding.structured: {regex: <pattern>}',
  guided_choice: 'vLLM ignores guided_choice since 0.12 — use decoding.structured: {choice: [<strings>]}',
  guided_grammar: 'vLLM ignores guided_grammar since 0.12 — use extra_body.structured_outputs: {grammar: <EBNF>}',
  guided_decoding_backend: 'vLLM ignores guided_decoding_backend since 0.12 — the server chooses (its --structured-outputs-config)',
  guided_whitespace_pattern:
    'vLLM ignores guided_whitespace_pattern since 0.12 — use extra_body.structured_outputs: {whitespace_pattern: …}',
};

/** What a request is sent with: every key set (null = not sent, the server's default). */
export interface ResolvedDecoding {
  temperature: number;
  top_p: number | null;
  seed: number | null;
  max_tokens: number;
  stop: string[] | null;
  response_format: ResponseFormat | null;
  extra_body: Record<string, unknown>;
  /** Only when set: the portable structured-output constraint and reasoning level (./request-body.ts translates them). */
  structured?: Structured;
  reasoning?: ReasoningLevel;
}

/** The decoding a request uses: `decoding`'s keys, else `temperature` (infer.temperature) and the backend's max_tokens. */
export function resolveDecoding(decoding: Decoding | undefined, defaults: { temperature: number; maxTokens: number }): ResolvedDecoding {
  const d = decoding ?? {};
  return {
    temperature: d.temperature ?? defaults.temperature,
    top_p: d.top_p ?? null,
    seed: d.seed ?? null,
    max_tokens: d.max_tokens ?? defaults.maxTokens,
    stop: d.stop === undefined ? null : typeof d.stop === 'string' ? [d.stop] : d.stop,
    response_format: d.response_format ?? null,
    extra_body: d.extra_body ?? {},
    ...(d.structured ? { structured: d.structured } : {}),
    ...(d.reasoning ? { reasoning: d.reasoning } : {}),
  };
}

/** The decoding a backend with these options sends. */
export function backendDecoding(opts: {
  decoding?: ResolvedDecoding;
  temperature?: number;
  maxTokens?: number;
  extraBody?: Record<string, unknown>;
}): ResolvedDecoding {
  const decoding = opts.decoding ?? resolveDecoding(undefined, { temperature: opts.temperature ?? 0, maxTokens: opts.maxTokens ?? 512 });
  return { ...decoding, extra_body: { ...opts.extraBody, ...decoding.extra_body } };
}

/** An arm's `decoding` over `infer.decoding`: key by key, `extra_body` key by key too. */
export function armDecoding(base: Decoding | undefined, over: Decoding | undefined): Decoding | undefined {
  if (!over) return base;
  if (!base) return over;
  const extra = base.extra_body || over.extra_body ? { extra_body: { ...base.extra_body, ...over.extra_body } } : {};
  return { ...base, ...over, ...extra };
}

/**
 * The chat-completion body fields of a decoding, in the order they are sent (model and messages come from the
 * request). `temperature` and `max_tokens` are always sent; the others only when set. This is where `seed` is set.
 */
export function requestFields(d: ResolvedDecoding): Record<string, unknown> {
  return {
    ...d.extra_body,
    temperature: d.temperature,
    max_tokens: d.max_tokens,
    ...(d.top_p !== null ? { top_p: d.top_p } : {}),
    ...(d.seed !== null ? { seed: d.seed } : {}),
    ...(d.stop !== null ? { stop: d.stop } : {}),
    ...(d.response_format !== null ? { response_format: d.response_format } : {}),
  };
}

/**
 * The key of a JSON answer that holds the correction, or null when answers are plain text (a regex or choice
 * constraint's answer is the text itself).
 */
export function jsonAnswerField(format: ResponseFormat | null | undefined, structured?: Structured | null): string | null {
  if (structured) return 'json' in structured ? fieldOfSchema(structured.json) : null;
  if (!format || format.type === 'text') return null;
  if (format.type === 'json_object') return format.schema ? fieldOfSchema(format.schema) : 'corrected_text';
  return fieldOfSchema(format.json_schema.schema);
}

/** The string property a schema's answer holds the correction in: `corrected_text`, or its only string property. */
function fieldOfSchema(schema: Record<string, unknown>): string | null {
  const props = schema.properties;
  if (!props || typeof props !== 'object') return null;
  const strings = Object.entries(props as Record<string, { type?: unknown }>)
    .filter(([, p]) => p && typeof p === 'object' && p.type === 'string')
    .map(([k]) => k);
  if (strings.includes('corrected_text')) return 'corrected_text';
  return strings.length === 1 ? strings[0] : null;
}
