/** `study`: the experiment arms, their corpora and guard, and the planned contrasts. */
import { z } from 'zod';
import { DecodingSchema } from '../../llm/decoding';
import { GuardOverrideSchema, GuardSettingsSchema } from '../../llm/guard';
import { PromptTemplateSchema } from '../../prompts/template-schema';
import { BUILTIN_PROMPTS } from '../../prompts/templates';
import { CorpusBlockSchema } from './corpus';

/** Over-correction guard: the study's block and an arm's override, defined beside the guard. */
export const StudyGuardSchema = GuardSettingsSchema;
export const ArmGuardOverrideSchema = GuardOverrideSchema;

/**
 * How an arm finds its context: the configured retriever, random corpus sentences (placebo), the gold line as
 * query (oracle), none, or the aligned passage of a whole work that the OCR line copies (witness, src/witness).
 */
export const ARM_MODES = ['dense', 'random', 'gold_query', 'none', 'witness'] as const;

/** What corrects an arm's lines: the LLM (default), or a non-LLM baseline on the CPU queue (docs/correctors.md). */
export const CORRECTORS = ['llm', 'collate', 'lexicon'] as const;

/**
 * One study arm. `retrieval` and `infer` are partial overrides deep-merged into `retrieval` / `infer`
 * (src/config/study.ts validates the merged result, so a bad key names `study.arms.N.retrieval.<key>`).
 */
const PROMPT_NAME = /^[A-Za-z0-9._-]+$/;

const ArmSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'),
  /**
   * Default `rag`; `zero_shot` (or `retrieval.mode: none`) = the v1 prompt without context; `rag_cache` = p5v1c;
   * or the name of a template under `study.prompts` (docs/prompts.md#templates).
   */
  prompt: z.string().regex(PROMPT_NAME, 'letters, digits, ".", "_" and "-"').optional(),
  /** Overrides `infer.decoding` key by key (docs/prompts.md#decoding). */
  decoding: DecodingSchema.optional(),
  retrieval: z.looseObject({ mode: z.enum(ARM_MODES).optional() }).optional(),
  /** The arm's corpus: a block, or the name of one under `study.corpora` (default: corpus). */
  corpus: z.union([z.string().min(1), CorpusBlockSchema]).optional(),
  infer: z.record(z.string(), z.unknown()).optional(),
  guard: ArmGuardOverrideSchema.optional(),
  /** `llm` (default), `collate` or `lexicon`: the non-LLM correctors of docs/correctors.md. */
  corrector: z.enum(CORRECTORS).optional(),
  /** The `collate` corrector's threshold (default: the one chosen on OCR_GS's dev split). */
  collate: z
    .strictObject({ min_similarity: z.number().min(0).max(1) })
    .partial()
    .optional(),
  /** The `lexicon` corrector's settings (defaults: chosen on OCR_GS's dev split). */
  lexicon: z
    .strictObject({ min_count: z.number().int().min(1), margin: z.number().min(0) })
    .partial()
    .optional(),
  /** Full passes over the arm's lines, replicate r with seed base + r (docs/outputs.md#replicates); default 1. */
  replicates: z.number().int().min(1).max(100).optional(),
});

/** `study:` — experiment arms analysed together; absent = the two default arms, rag and zero_shot. */
export const StudySchema = z
  .strictObject({
    /** The arm every other arm is compared with (default: the first zero-shot arm, else the first arm). */
    baseline: z.string().min(1).optional(),
    guard: StudyGuardSchema.optional(),
    /** Named corpora the arms refer to by name (`corpus: similar`). */
    corpora: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'), CorpusBlockSchema).optional(),
    /** Prompt templates the arms name in `prompt:` (docs/prompts.md#templates). */
    prompts: z.record(z.string().regex(PROMPT_NAME, 'letters, digits, ".", "_" and "-"'), PromptTemplateSchema).optional(),
    arms: z.array(ArmSchema).min(1),
    /** Planned contrasts, one Holm family: ΔCER = CER(arm) − CER(vs); absent = the defaults of analysis/study/planned-contrasts.ts. */
    contrasts: z
      .array(z.strictObject({ arm: z.string().min(1), vs: z.string().min(1) }))
      .min(1)
      .optional(),
  })
  .superRefine((study, ctx) => {
    const seen = new Set<string>();
    study.arms.forEach((arm, i) => {
      if (seen.has(arm.name))
        ctx.addIssue({ code: 'custom', path: ['arms', i, 'name'], message: `duplicate arm name "${arm.name}" (arm names must be unique)` });
      seen.add(arm.name);
    });
    study.arms.forEach((arm, i) => {
      if (typeof arm.corpus === 'string' && !study.corpora?.[arm.corpus]) {
        ctx.addIssue({
          code: 'custom',
          path: ['arms', i, 'corpus'],
          message: `unknown corpus "${arm.corpus}" — study.corpora declares: ${Object.keys(study.corpora ?? {}).join(', ') || '(none)'}`,
        });
      }
    });
    promptNameIssues(study, ctx);
    study.contrasts?.forEach((c, i) => {
      for (const side of ['arm', 'vs'] as const) {
        if (!seen.has(c[side]))
          ctx.addIssue({
            code: 'custom',
            path: ['contrasts', i, side],
            message: `unknown arm "${c[side]}" — the arms are: ${[...seen].join(', ')}`,
          });
      }
      if (c.arm === c.vs)
        ctx.addIssue({ code: 'custom', path: ['contrasts', i], message: `a contrast needs two different arms, got "${c.arm}" twice` });
    });
    if (study.baseline !== undefined && !seen.has(study.baseline)) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseline'],
        message: `unknown baseline arm "${study.baseline}" — the arms are: ${[...seen].join(', ')}`,
      });
    }
  })
  .transform((study) => ({ ...study, baseline: study.baseline ?? defaultBaseline(study.arms) }));

/** An arm's `prompt` names a built-in or a declared template; a declared one does not reuse a built-in's name. */
function promptNameIssues(
  study: { prompts?: Record<string, unknown>; arms: readonly { name: string; prompt?: string }[] },
  ctx: z.RefinementCtx,
): void {
  for (const name of Object.keys(study.prompts ?? {}))
    if ((BUILTIN_PROMPTS as readonly string[]).includes(name))
      ctx.addIssue({ code: 'custom', path: ['prompts', name], message: `"${name}" is a built-in prompt; give the template another name` });
  study.arms.forEach((arm, i) => {
    if (arm.prompt === undefined || (BUILTIN_PROMPTS as readonly string[]).includes(arm.prompt) || study.prompts?.[arm.prompt]) return;
    ctx.addIssue({
      code: 'custom',
      path: ['arms', i, 'prompt'],
      message: `unknown prompt "${arm.prompt}" — built-ins: ${BUILTIN_PROMPTS.join(', ')}; study.prompts declares: ${Object.keys(study.prompts ?? {}).join(', ') || '(none)'}`,
    });
  });
}

function defaultBaseline(arms: readonly { name: string; prompt?: string; retrieval?: { mode?: string } }[]): string {
  return (arms.find((a) => a.prompt === 'zero_shot' || a.retrieval?.mode === 'none') ?? arms[0]).name;
}
