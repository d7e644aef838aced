/**
 * Decoding settings of a request (docs/prompts.md#decoding): `infer.decoding` is the study's default, an arm's
 * `decoding` overrides it key by key. `resolveDecoding` fills the defaults (`temperature` from
 * `infer.temperature`, `max_tokens` from the backend's block); `requestFields` is the one place that turns the
 * resolved settings into chat-completion body fields (the `seed` included).
 */
import { z } from 'zod';

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
    /** Merged into the request body verbatim (`chat_template_kwargs`, `guided_json`, vendor keys). */
    extra_body: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((d, ctx) => {
    for (const key of Object.keys(d.extra_body ?? {}))
      if ((RESERVED_BODY_KEYS as readonly string[]).includes(key))
        ctx.addIssue({
          code: 'custom',
          path: ['extra_body', key],
          message: `"${key}" is set by the request itself${key === 'model' || key === 'messages' ? '' : ` — use decoding.${key}`}`,
        });
    const format = d.response_format;
    const schema = format?.type === 'json_schema' ? format.json_schema.schema : format?.type === 'json_object' ? format.schema : undefined;
    if (schema && fieldOfSchema(schema) === null)
      ctx.addIssue({
        code: 'custom',
        path: format?.type === 'json_schema' ? ['response_format', 'json_schema', 'schema'] : ['response_format', 'schema'],
        message:
          'the schema must declare a string property "corrected_text" (or exactly one string property) — the correction is read from it',
      });
  });
export type Decoding = z.infer<typeof DecodingSchema>;

/** What a request is sent with: every key set (null = not sent, the server's default). */
export interface ResolvedDecoding {
  temperature: number;
  top_p: number | null;
  seed: number | null;
  max_tokens: number;
  stop: string[] | null;
  response_format: ResponseFormat | null;
  extra_body: Record<string, unknown>;
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
  };
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

/** The key of a JSON answer that holds the correction, or null when answers are plain text. */
export function jsonAnswerField(format: ResponseFormat | null | undefined): string | null {
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
