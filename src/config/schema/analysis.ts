/** `analysis`: scoring (whitespace, normalisation profiles) and the resampling behind every interval and p. */
import { z } from 'zod';
import { DEFAULT_PRIMARY_PROFILE, DEFAULT_SECONDARY_PROFILES, NormalizationConfigError, resolveNormalization } from '../../text/profiles';
import { positiveInt } from './primitives';

/** The Arabic switches this key held before profiles existed: each now names where its rule lives. */
const SWITCH_KEYS = ['remove_diacritics', 'remove_tatweel', 'unify_alef', 'unify_yaa', 'unify_taa_marbuta'];

const ProfileSchema = z.strictObject({
  rules: z.string().min(1),
  remove: z.array(z.string().min(1)).default([]),
  map: z.record(z.string().min(1), z.string()).default({}),
  unit: z.enum(['codepoint', 'grapheme']).default('codepoint'),
  case_fold: z.boolean().optional(),
  replace: z.array(z.strictObject({ class: z.string().min(1), with: z.string() })).optional(),
});

const NormalizationSchema = z
  .looseObject({
    primary: z.string().min(1).default(DEFAULT_PRIMARY_PROFILE),
    secondary: z.array(z.string().min(1)).default([...DEFAULT_SECONDARY_PROFILES]),
    profiles: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/u, 'a profile name: lower-case letters, digits, _'), ProfileSchema).default({}),
  })
  .superRefine((n, ctx) => {
    for (const k of Object.keys(n).filter((k) => !['primary', 'secondary', 'profiles'].includes(k))) {
      const message = SWITCH_KEYS.includes(k)
        ? 'the Arabic switches are normalisation profiles: use analysis.normalization.secondary (built-in "no_diacritics" applies all five) or define a profile under analysis.normalization.profiles'
        : 'unknown key (the keys are primary, secondary, profiles)';
      ctx.addIssue({ code: 'custom', path: [k], message });
    }
    try {
      resolveNormalization(n);
    } catch (e) {
      if (!(e instanceof NormalizationConfigError)) throw e;
      ctx.addIssue({ code: 'custom', path: e.field, message: e.detail });
    }
  })
  .transform(({ primary, secondary, profiles }) => ({ primary, secondary, profiles }));

export const AnalysisSchema = z.strictObject({
  /** Write error_changes.json (the character edits corrected and introduced); `--no-error-analysis` turns it off for one run. */
  analyze_errors: z.boolean().default(true),
  /** Collapse whitespace runs before scoring (the metric definition); false = trim only, as the OCR_GS README figures. */
  collapse_whitespace: z.boolean().default(true),
  bootstrap_iterations: positiveInt.default(10000),
  bootstrap_seed: z.number().int().default(42),
  /** Permutations of the arms' block permutation test (the primary p of every ΔCER). */
  permutations: positiveInt.default(10000),
  /** Fewest clusters of lines for a CI, a permutation p and a detectable effect; below it: estimate only, with the reason (docs/statistics.md). */
  min_clusters: positiveInt.default(10),
  /** Lines per resampled cluster when a dataset names no page (`datasets.*.page_pattern`). */
  block_lines: positiveInt.default(25),
  /** A line one arm has and another lacks: `error` fails the analysis; `ocr` scores it as the OCR text and counts it. */
  missing_lines: z.enum(['error', 'ocr']).default('error'),
  /** The figure of the planned contrasts, their Holm family and the report's answer: ΔCER, or micro ΔcMER (docs/scoring.md). */
  primary_metric: z.enum(['cer', 'cmer']).default('cer'),
  /** Normalisation profiles (src/text/profiles.ts): the primary one scores every figure, the secondary ones are reported beside. */
  normalization: NormalizationSchema.prefault({}),
});
