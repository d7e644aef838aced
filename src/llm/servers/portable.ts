/**
 * The portable request keys a server translates (docs/prompts.md#servers): `decoding.structured` — the answer
 * constrained to a JSON schema, a regular expression or one of a list of strings — and `decoding.reasoning` —
 * how much a reasoning model thinks (`none` turns thinking off).
 */
import { z } from 'zod';

export const StructuredSchema = z.union([
  z.strictObject({ json: z.record(z.string(), z.unknown()) }),
  z.strictObject({ regex: z.string().min(1) }),
  z.strictObject({ choice: z.array(z.string().min(1)).min(1) }),
]);
export type Structured = z.infer<typeof StructuredSchema>;

export const REASONING_LEVELS = ['none', 'low', 'medium', 'high'] as const;
export const ReasoningSchema = z.enum(REASONING_LEVELS);
export type ReasoningLevel = z.infer<typeof ReasoningSchema>;

/** `json`, `regex` or `choice`: which constraint a structured block asks for. */
export function structuredKind(s: Structured): 'json' | 'regex' | 'choice' {
  return 'json' in s ? 'json' : 'regex' in s ? 'regex' : 'choice';
}

/** The OpenAI `response_format` for a JSON schema (the name is what the OpenAI API requires; any name will do). */
export function jsonSchemaFormat(schema: Record<string, unknown>): Record<string, unknown> {
  return { type: 'json_schema', json_schema: { name: 'correction', schema } };
}

/** A regular expression matching exactly one of `choices` (for servers that take a regex and no choice list). */
export function choiceRegex(choices: readonly string[]): string {
  return `(${choices.map((c) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})`;
}
