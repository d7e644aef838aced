/**
 * `study.prompts.<name>`: a prompt template declared in the config (docs/prompts.md#templates). Texts may name
 * the placeholders `{retrieval_context}` and `{ocr_text}`; `system_file` / `user_file` name files read at config
 * loading, against the config file's folder (src/config/prompt-files.ts).
 */
import { z } from 'zod';

export const PLACEHOLDERS = ['retrieval_context', 'ocr_text'] as const;
/** `{name}` with an identifier inside: JSON braces (`{"a": 1}`) and Arabic text never match. */
export const PLACEHOLDER_PATTERN = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

const ExampleSchema = z.strictObject({
  ocr_text: z.string().min(1),
  corrected_text: z.string().min(1),
  /** What `{retrieval_context}` becomes in this example's user message (default: empty). */
  retrieval_context: z.string().optional(),
});

export const PromptTemplateSchema = z
  .strictObject({
    /** Recorded as each correction's `prompt_version`: a new wording is a new version. */
    version: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'),
    system: z.string().optional(),
    system_file: z.string().min(1).optional(),
    /** Default `{ocr_text}`: the line itself. */
    user: z.string().optional(),
    user_file: z.string().min(1).optional(),
    /** Few-shot examples: a user/assistant message pair each, before the line. */
    examples: z.array(ExampleSchema).optional(),
  })
  .superRefine((t, ctx) => {
    for (const part of ['system', 'user'] as const) {
      if (t[part] !== undefined && t[`${part}_file`] !== undefined)
        ctx.addIssue({ code: 'custom', path: [`${part}_file`], message: `give either ${part} or ${part}_file, not both` });
    }
    if (t.system === undefined && t.system_file === undefined)
      ctx.addIssue({ code: 'custom', path: ['system'], message: 'a template needs a system text (system or system_file)' });
  });
export type PromptTemplateConfig = z.infer<typeof PromptTemplateSchema>;

/** The placeholders a text names that are not `{retrieval_context}` or `{ocr_text}`. */
export function unknownPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER_PATTERN)].map((m) => m[1]).filter((n) => !(PLACEHOLDERS as readonly string[]).includes(n));
}
