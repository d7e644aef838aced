/**
 * Study arms: what one arm of a study runs — which prompt, on which exported input, into which corrections
 * file, with which LLM (the arm's `infer` overrides applied), guard and retrieval — and the exports they share
 * (one per distinct retrieval fingerprint). The study plan (./plan.ts) calls these once per stage, on
 * the study's layout (./layout.ts); the stages read the plan.
 *
 * Without `study:` in the config the arms are the two default ones, in `infer.arms` order, each in its
 * folder like a study arm's: `rag` → <results>/arms/rag/corrections.jsonl and `zero_shot` →
 * <results>/arms/zero_shot/corrections.jsonl, each reading its own inference_input.jsonl, a link to the one
 * default export (`--baseline-dir` leaves zero_shot out).
 *
 *   for (const arm of studyPlan(config, {}).arms) await runArm(options, arm, hooks, openBackend);
 */
import { resolveGuard } from '../../llm/guard';
import path from 'node:path';
import type { Config } from '../../config/schema';
import { armConfig, armModeAndPrompt } from '../../config/study';
import type { PromptKind } from '../../llm/index';
import { resolveTemplate } from '../../prompts/templates';
import { sha256Text } from '../../util/hash';
import { armNames } from './arm-names';
import { backendConfig, modelName } from '../infer/backend';
import type { StagePaths } from '../build/retriever';
import { correctorOf } from '../infer/corrector-arm';
import { armBaseSeed } from './replicates';
import { corpusPaths, type StudyLayout } from './layout';
import { UserInputError } from '../shared/types';
import { witnessIndexFingerprint } from '../witness/witness-index';

export { armNames };
import type { ArmRetrieval, ArmRole, ArmRun, ExportGroup, RetrievalMode, RetrievalSettings } from './types';

export type { ArmGuard, ArmRetrieval, ArmRole, ArmRun, ExportGroup, RetrievalMode, RetrievalSettings } from './types';

/** Every arm the config declares, in order (without `study:`: the default arms). */
export function declaredArms(config: Config, layout: StudyLayout): ArmRun[] {
  return config.study ? studyArms(config, layout) : defaultArms(config, layout);
}

/** The default arms: rag → <results>/arms/rag, zero_shot → <results>/arms/zero_shot, both reading the default export. */
function defaultArms(config: Config, layout: StudyLayout): ArmRun[] {
  return config.infer.arms.map((name) => {
    const dir = defaultArmDir(layout.dirs, name);
    const prompt = name as PromptKind;
    const retrieval = armRetrieval(config, layout.paths, config.retrieval, prompt === 'zero_shot' ? 'none' : undefined);
    return {
      name,
      role: prompt === 'zero_shot' ? 'baseline' : 'method',
      prompt,
      template: resolveTemplate(prompt, undefined)!,
      input: path.join(dir, 'inference_input.jsonl'),
      output: path.join(dir, 'corrections.jsonl'),
      backend: () => backendConfig(config),
      model: modelName(config),
      upperBound: false,
      retrieval,
      config,
    };
  });
}

/** The folder of a default arm (no `study:`): `<results>/arms/<rag|zero_shot>/`. */
export function defaultArmDir(dirs: Pick<StudyLayout['dirs'], 'arms'>, name: string): string {
  return path.join(dirs.arms, name);
}

/**
 * The arms of `study:`. A zero-shot arm (prompt zero_shot / mode none) ignores the context but needs the lines:
 * it reads the export of the configured `retrieval` (dense) when an arm makes that one, else the first
 * export an arm makes, else the configured one (exported for it) — so it never costs an extra export when there is one.
 */
function studyArms(config: Config, layout: StudyLayout): ArmRun[] {
  const study = config.study!;
  const arms = study.arms.map((spec) => {
    const { mode, prompt, template } = armModeAndPrompt(spec, study.prompts);
    const effective = armConfig(config, spec);
    const retrieval = armRetrieval(effective, corpusPaths(layout, effective), effective.retrieval, mode);
    const dir = path.join(layout.dirs.arms, spec.name);
    const corrector = correctorOf(spec, corpusPaths(layout, effective).corpus);
    // The over-correction guard judges an LLM's answer; a non-LLM corrector has none.
    const guard = !corrector && (study.guard || spec.guard) ? resolveGuard(study.guard, spec.guard) : undefined;
    return {
      name: spec.name,
      role: armRole(spec.name === (study.baseline ?? 'zero_shot'), mode),
      prompt,
      template: resolveTemplate(template, study.prompts)!,
      input: path.join(dir, 'inference_input.jsonl'),
      output: path.join(dir, 'corrections.jsonl'),
      backend: () => backendConfig(effective),
      model: corrector?.model ?? modelName(effective),
      guard,
      upperBound: mode === 'gold_query',
      retrieval,
      config: effective,
      dir,
      ...(corrector ? { corrector } : {}),
      replicates: spec.replicates ?? 1,
      baseSeed: armBaseSeed(effective),
    } satisfies ArmRun;
  });
  const zeroShotInput = zeroShotExport(config, layout, arms);
  for (const arm of arms) if (arm.retrieval.mode === 'none') arm.retrieval = { ...arm.retrieval, top_k: 0, fingerprint: zeroShotInput };
  for (const arm of arms) arm.retrieval.k_group = kGroup(arm, layout);
  return arms;
}

function armRole(isBaseline: boolean, mode: RetrievalMode): ArmRole {
  if (isBaseline) return 'baseline';
  return mode === 'gold_query' ? 'upper_bound' : mode === 'random' ? 'placebo' : 'method';
}

/** See ArmRetrieval.k_group: the retrieval fingerprint with top_k neutralised, plus prompt, infer and guard. */
function kGroup(arm: ArmRun, layout: StudyLayout): string {
  const r = arm.retrieval;
  const paths = corpusPaths(layout, arm.config);
  const retrieval = r.mode === 'none' ? 'none' : retrievalFingerprint(arm.config, paths, { ...r.settings, top_k: 0 }, r.mode);
  const corrector = arm.corrector ? { corrector: { ...arm.corrector, corpus: undefined } } : {};
  // A template other than the two first built-ins enters by its text; those two keep the hashes they always had.
  const t = arm.template;
  const template = !t || t.name === 'rag' || t.name === 'zero_shot' ? {} : { template: t.sha256 };
  return sha256Text(
    stableJson({ retrieval, prompt: arm.prompt, ...template, infer: arm.config.infer, guard: arm.guard ?? null, ...corrector }),
  ).slice(0, 16);
}

/** The fingerprint of the export zero-shot arms read (see studyArms). */
function zeroShotExport(config: Config, layout: StudyLayout, arms: readonly ArmRun[]): string {
  const configured = armRetrieval(config, layout.paths, config.retrieval).fingerprint;
  const exporting = arms.filter((a) => a.retrieval.mode !== 'none').map((a) => a.retrieval.fingerprint);
  return exporting.includes(configured) ? configured : (exporting[0] ?? configured);
}

/** The exports a study's arms need, in arm order (a zero-shot arm alone gets the configured retrieval's). */
export function groupExports(config: Config, layout: StudyLayout, arms: readonly ArmRun[]): ExportGroup[] {
  const groups = new Map<string, ExportGroup>();
  for (const arm of arms) {
    const fp = arm.retrieval.fingerprint;
    const group = groups.get(fp);
    if (group) {
      group.arms.push(arm.name);
      continue;
    }
    // A zero-shot arm first in line for this fingerprint: the export is the configured retrieval's (or another arm's, joined later).
    const maker = arm.retrieval.mode === 'none' ? arms.find((a) => a.retrieval.mode !== 'none' && a.retrieval.fingerprint === fp) : arm;
    const mode = maker ? (maker.retrieval.mode as ExportGroup['mode']) : config.retrieval.hybrid.enabled ? 'hybrid' : 'dense';
    const made = maker?.config ?? config;
    groups.set(fp, {
      fingerprint: fp,
      mode,
      config: made,
      arms: [arm.name],
      dir: path.join(layout.dirs.exports, fp),
      paths: corpusPaths(layout, made),
    });
  }
  return [...groups.values()];
}

/** The arm named `name` among `arms`, or an error listing the names there are. */
export function findArm(arms: readonly ArmRun[], name: string): ArmRun {
  const arm = arms.find((a) => a.name === name);
  if (!arm) throw new UserInputError(`unknown arm "${name}" — the study has: ${arms.map((a) => a.name).join(', ') || '(none)'}`);
  return arm;
}

/** The effective retrieval of an arm: mode (dense/hybrid from the settings unless given), top_k and fingerprint. */
export function armRetrieval(
  config: Config,
  paths: StagePaths,
  settings: RetrievalSettings,
  mode?: Exclude<RetrievalMode, 'hybrid'>,
): ArmRetrieval {
  const effective: RetrievalMode = mode === undefined || mode === 'dense' ? (settings.hybrid.enabled ? 'hybrid' : 'dense') : mode;
  return { mode: effective, top_k: settings.top_k, fingerprint: retrievalFingerprint(config, paths, settings, effective), settings };
}

/**
 * Stable hash (16 hex) of what decides an export's records: the retrieval settings, the mode, the corpus and
 * index (paths and the corpus seed, which seeds the placebo), the embedding model and the dataset selection.
 */
export function retrievalFingerprint(config: Config, paths: StagePaths, settings: RetrievalSettings, mode: RetrievalMode): string {
  return sha256Text(
    stableJson({
      mode,
      retrieval: settings,
      corpus: paths.corpus,
      index: paths.index,
      corpus_seed: config.corpus.seed,
      embedding_model: config.rag.embedding_model,
      embedding: config.rag.embedding,
      // the witness index's identity (works, parameters); absent for every other mode, so their fingerprints stay
      ...(mode === 'witness' ? { witness_index: witnessIndexFingerprint(config) } : {}),
    }),
  ).slice(0, 16);
}

/** JSON with object keys sorted at every level: equal settings give equal text whatever the key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
