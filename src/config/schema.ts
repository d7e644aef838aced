/**
 * The one config schema: types, defaults and validation for configs/*.yaml. Every object is strict, so a
 * misspelt key is an error rather than a silently ignored setting. Secrets never live here: the config
 * names the environment variable that holds an API key (`infer.openai.api_key_env`).
 */
import { z } from 'zod';
import { AnalysisSchema } from './schema/analysis';
import { DatasetSchema } from './schema/datasets';
import { RagSchema } from './schema/embedding';
import { InferSchema } from './schema/infer';
import { ProbeSchema } from './schema/probe';
import { CorpusSchema } from './schema/corpus';
import { ExportSchema } from './schema/export';
import { IndexSchema, RetrievalSchema } from './schema/retrieval';
import { StudySchema } from './schema/study';
import { TemporalSchema } from './schema/temporal';

export { durationMs } from './schema/primitives';
export { CorpusBlockSchema, CorpusSchema, CorpusSourceSchema, EraSchema } from './schema/corpus';
export { IndexSchema, RetrievalSchema, WitnessSettingsSchema } from './schema/retrieval';
export { ExportSchema } from './schema/export';
export { RagSchema } from './schema/embedding';
export { InferSchema } from './schema/infer';
export { ARM_MODES, ArmGuardOverrideSchema, StudyGuardSchema, StudySchema } from './schema/study';

export const ConfigSchema = z.strictObject({
  /** Default run name; workflow ids derive from it and a hash of the inputs (`phase5-<run>-<hash8>-<stage>`). */
  run_name: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"')
    .default('default'),
  paths: z
    .strictObject({
      /** Root of all results: each arm in <results_dir>/arms/<arm>/, the study's analysis in <results_dir>/study/ (docs/outputs.md#layout). */
      results_dir: z.string().min(1).default('results'),
    })
    .prefault({}),
  data: z
    .strictObject({
      openiti_root: z.string().min(1).default('../shared/data/openiti'),
      /** Defaults to <openiti_root>/metadata/OpenITI_metadata_2023-1-8.csv. */
      openiti_metadata: z.string().min(1).optional(),
    })
    .prefault({}),
  /** The sentences build samples (OpenITI, or a generic corpus); the design document nests it in its phase5 block. */
  corpus: CorpusSchema.prefault({}),
  /** The vector index build writes and export searches. */
  index: IndexSchema.prefault({}),
  /** How export retrieves each OCR line's context; a study arm's `retrieval` deep-merges into it. */
  retrieval: RetrievalSchema.prefault({}),
  /** How export shards, batches and checkpoints. */
  export: ExportSchema.prefault({}),
  rag: RagSchema.prefault({}),
  datasets: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'), DatasetSchema).default({}),
  infer: InferSchema.prefault({}),
  analysis: AnalysisSchema.prefault({}),
  temporal: TemporalSchema.prefault({}),
  /** Experiment arms; absent = the two default arms, rag (results/arms/rag/) and zero_shot (results/arms/zero_shot/). */
  study: StudySchema.optional(),
  /** The memorisation probe (`phase5 probe`, docs/memorisation.md); absent = its defaults, no unpublished control. */
  probe: ProbeSchema.optional(),
});

export type Config = z.infer<typeof ConfigSchema>;
export type DatasetConfig = Config['datasets'][string];
export type StudyConfig = NonNullable<Config['study']>;
export type ArmConfig = StudyConfig['arms'][number];
export type StageName = 'build' | 'export' | 'infer' | 'analyze';
export const STAGES: StageName[] = ['build', 'export', 'infer', 'analyze'];
