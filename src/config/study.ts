/**
 * Study arms' effective settings: an arm's `retrieval` and `infer` overrides deep-merged into the config's
 * `retrieval` / `infer` and validated by the same schemas, so a bad override names its key
 * (`study.arms.2.retrieval.top_k: …`). Pure: used by config loading (validation) and src/stages/arms.
 */
import type { z } from 'zod';
import { armDecoding } from '../llm/decoding';
import { resolveTemplate } from '../prompts/templates';
import { corpusFingerprint } from './corpus-fingerprint';
import { decodingProblems, templateProblems } from './prompt-problems';
import { CorpusSchema, InferSchema, RetrievalSchema, type ArmConfig, type Config, type CorpusBlockSchema } from './schema';

type CorpusBlock = z.infer<typeof CorpusBlockSchema>;

export type ArmMode = 'dense' | 'random' | 'gold_query' | 'none' | 'witness';

/** `base` with `over` merged in: objects merge key by key, anything else (arrays too) replaces. */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? deepMerge(out[k], v) : v;
  return out as T;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The arm's retrieval mode (a prompt without `{retrieval_context}`, e.g. `zero_shot`, implies `none`), its kind of
 * prompt (`rag`: it shows a context; `mode: none` implies zero_shot) and the name of its template.
 */
export function armModeAndPrompt(
  arm: ArmConfig,
  prompts?: NonNullable<Config['study']>['prompts'],
): { mode: ArmMode; prompt: 'rag' | 'zero_shot'; template: string } {
  const retrieves = arm.prompt === undefined ? undefined : (resolveTemplate(arm.prompt, prompts)?.retrieves ?? arm.prompt !== 'zero_shot');
  const mode = arm.retrieval?.mode ?? (retrieves === false ? 'none' : 'dense');
  const prompt = retrieves === undefined ? (mode === 'none' ? 'zero_shot' : 'rag') : retrieves ? 'rag' : 'zero_shot';
  return { mode, prompt, template: arm.prompt ?? prompt };
}

/** The config an arm runs with: its overrides merged into retrieval and infer (throws a ZodError on a bad override). */
export function armConfig(config: Config, arm: ArmConfig): Config {
  const { mode: _mode, ...retrieval } = arm.retrieval ?? {};
  const block = armCorpusBlock(config, arm);
  return {
    ...config,
    retrieval: RetrievalSchema.parse(deepMerge(config.retrieval, retrieval)),
    ...(block ? { corpus: blockCorpus(config, block) } : {}),
    infer: armInfer(config, arm),
  };
}

function armInfer(config: Config, arm: ArmConfig): Config['infer'] {
  const infer = InferSchema.parse(deepMerge(config.infer, arm.infer ?? {}));
  const decoding = armDecoding(infer.decoding, arm.decoding);
  return decoding ? { ...infer, decoding } : infer;
}

/** The arm's corpus block (named ones resolved), or null when it uses corpus. */
export function armCorpusBlock(config: Config, arm: ArmConfig): CorpusBlock | null {
  if (arm.corpus === undefined) return null;
  return typeof arm.corpus === 'string' ? (config.study?.corpora?.[arm.corpus] ?? null) : arm.corpus;
}

/** The merged corpus settings of a block, in its own folder `corpora/<fingerprint>` (relative to the results dir; ./corpus-fingerprint.ts). */
export function blockCorpus(config: Config, block: CorpusBlock): Config['corpus'] {
  const { dir: _dir, ...base } = config.corpus;
  const merged = CorpusSchema.parse({
    ...deepMerge(base, block.sample ?? {}),
    exclude: [...base.exclude, ...(block.exclude_works ?? [])],
    exclude_dataset_sources: block.exclude_dataset_sources ?? base.exclude_dataset_sources,
    ...(block.add_works ? { add_works: [...(base.add_works ?? []), ...block.add_works] } : {}),
  });
  if (JSON.stringify(merged) === JSON.stringify(CorpusSchema.parse(base))) return config.corpus; // the run's own corpus: shared, built once
  return { ...merged, dir: `corpora/${corpusFingerprint(config, merged)}` };
}

/** One line per problem with the study's arms (the merged overrides), `study.arms.N.<block>.<key>: …`. */
export function studyProblems(config: Config): string[] {
  const problems: string[] = [];
  config.study?.arms.forEach((arm, i) => {
    const check = (block: 'retrieval' | 'infer' | 'corpus', schema: z.ZodType, base: unknown, over: unknown) => {
      const r = schema.safeParse(deepMerge(base, over ?? {}));
      if (!r.success)
        for (const issue of r.error.issues)
          problems.push(`study.arms.${i}.${[block, ...issue.path.map(String)].join('.')}: ${issue.message} (arm "${arm.name}")`);
    };
    const { mode: _mode, ...retrieval } = arm.retrieval ?? {};
    check('retrieval', RetrievalSchema, config.retrieval, retrieval);
    check('infer', InferSchema, config.infer, arm.infer);
    const block = armCorpusBlock(config, arm);
    if (block) check('corpus', CorpusSchema, config.corpus, block.sample ?? {});
    if (arm.prompt === 'zero_shot' && arm.retrieval?.mode && arm.retrieval.mode !== 'none') {
      problems.push(
        `study.arms.${i}.retrieval.mode: a zero_shot prompt uses no context, so mode must be "none", got "${arm.retrieval.mode}" (arm "${arm.name}")`,
      );
    }
    if (arm.prompt === 'rag' && arm.retrieval?.mode === 'none')
      problems.push(`study.arms.${i}.prompt: mode "none" has no context for the rag prompt — use prompt: zero_shot (arm "${arm.name}")`);
  });
  problems.push(...templateProblems(config), ...decodingProblems(config));
  return problems;
}
