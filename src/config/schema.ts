/**
 * The one config schema: types, defaults and validation for configs/*.yaml. Every object is strict, so a
 * misspelt key is an error rather than a silently ignored setting. Secrets never live here: the config
 * names the environment variable that holds an API key (`infer.openai.api_key_env`).
 */
import { z } from 'zod';
import { GuardOverrideSchema, GuardSettingsSchema } from '../llm/guard';
import { DEFAULT_ERAS } from '../openiti/sampling';
import { RetrievalPipelineSchema } from '../retrieval/config';
import { DEFAULT_PRIMARY_PROFILE, DEFAULT_SECONDARY_PROFILES, NormalizationConfigError, resolveNormalization } from '../text/profiles';

const positiveInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();
const unitInterval = z.number().min(0).max(1);
/** Durations as Temporal accepts them: "30s", "5m", "2h", or milliseconds. */
const duration = z.union([z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/, 'a duration like "30s", "5m" or "2h"'), nonNegInt]);

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A validated duration ("30s", "5m", or ms) in milliseconds. */
export function durationMs(d: string | number): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(d);
  if (!m) throw new Error(`not a duration: "${d}"`);
  return Math.round(Number(m[1]) * UNIT_MS[m[2]]);
}

export const EraSchema = z.strictObject({
  name: z.string().min(1),
  /** Inclusive lower bound (hijri year). */
  from: z.number().int(),
  /** Exclusive upper bound (hijri year). */
  to: z.number().int(),
  fraction: unitInterval,
});

/**
 * Where the build stage takes its corpus from (`phase5.corpus.source`; absent = `openiti`, the OpenITI sampling).
 * `jsonl`: one record per line, text and metadata fields named here; `text_dir`: a folder of .txt/.md files.
 * Both are chunked by whitespace-separated words with overlap (src/corpora; defaults 900/180).
 */
export const CorpusSourceSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('openiti') }),
  z.strictObject({
    type: z.literal('jsonl'),
    path: z.string().min(1),
    text_field: z.string().min(1).default('text'),
    /** Field naming the record in source_uri (`<file>#<id>`); null = the line number. */
    id_field: z.string().min(1).nullable().default(null),
    /** Integer field copied to `date` (null when absent). */
    date_field: z.string().min(1).nullable().default('date'),
    metadata_fields: z.array(z.string().min(1)).default([]),
    chunk_size: positiveInt.default(900),
    chunk_overlap: nonNegInt.default(180),
  }),
  z.strictObject({
    type: z.literal('text_dir'),
    path: z.string().min(1),
    extensions: z.array(z.string().min(1)).min(1).default(['.txt', '.md']),
    recursive: z.boolean().default(true),
    chunk_size: positiveInt.default(900),
    chunk_overlap: nonNegInt.default(180),
  }),
]);

export const CorpusSchema = z.strictObject({
  /** Absent = OpenITI (the keys below); jsonl / text_dir read a generic corpus instead. */
  source: CorpusSourceSchema.optional(),
  max_sentences: positiveInt.default(200000),
  min_char_len: positiveInt.default(30),
  max_char_len: positiveInt.default(300),
  status_filter: z.enum(['pri', 'sec', 'all']).default('pri'),
  seed: z.number().int().default(42),
  eras: z
    .array(EraSchema)
    .min(1)
    .default(() => DEFAULT_ERAS.map((e) => ({ ...e }))),
  /** Optional hard cap on sentences from any one file, on top of the author-balanced allocation (null = none). */
  max_per_file: positiveInt.nullable().default(null),
  /** Glob-style version-URI patterns held out of the corpus (e.g. the OCR books' own sources). */
  exclude: z.array(z.string().min(1)).default([]),
  /**
   * Hold out every version of each dataset's source work (`datasets.*.source_pattern` resolved against the
   * metadata to work URIs `NNNNAuthor.Title`; all their versions excluded), on top of `exclude`.
   */
  exclude_dataset_sources: z.boolean().default(false),
  dedup_across_corpus: z.boolean().default(true),
  /** Version-URI globs of works added in full (every line within the length filter) on top of the sample. */
  add_works: z.array(z.string().min(1)).optional(),
  /** Corpus and index folder under the results dir (default phase5/); set by a study arm's `corpus` block. */
  dir: z.string().min(1).optional(),
});

/**
 * A study arm's corpus (`study.arms.N.corpus`, or named once under `study.corpora`): `sample` overrides
 * `phase5.corpus` key by key, `add_works` adds whole works, `exclude_works` holds works out (as `exclude`),
 * `exclude_dataset_sources` holds out every version of the datasets' source works. Each distinct corpus is
 * built and indexed once, under `<results>/corpora/<fingerprint>/`.
 */
export const CorpusBlockSchema = z.strictObject({
  sample: z.record(z.string(), z.unknown()).optional(),
  add_works: z.array(z.string().min(1)).optional(),
  exclude_works: z.array(z.string().min(1)).optional(),
  exclude_dataset_sources: z.boolean().optional(),
});

const IndexSchema = z.strictObject({
  /** FlatIP = exact search (the default, docs/retrieval.md#index-type); HNSW for large corpora. "IVFFlat" is accepted as an alias of HNSW. */
  type: z.enum(['FlatIP', 'HNSW', 'IVFFlat']).default('FlatIP'),
  batch_size: positiveInt.default(256),
  /** Sentences per embedding activity of a Temporal build (rounded up to a multiple of batch_size); every CPU worker takes shards. */
  embed_shard_size: positiveInt.default(20000),
  connectivity: positiveInt.default(16),
  expansion_add: positiveInt.default(128),
  expansion_search: positiveInt.default(64),
  dtype: z.enum(['f32', 'f16', 'i8']).default('f32'),
});

/**
 * Witness retrieval (`mode: witness`, src/witness): which whole works its index covers and how it searches.
 * Optional and without materialised defaults, so configs without it keep their retrieval fingerprints.
 */
export const WitnessSettingsSchema = z.strictObject({
  /** Version-URI globs of the works indexed in full (default: every work of the OpenITI checkout). */
  works: z.array(z.string().min(1)).min(1).default(['*']),
  /** Version-URI globs left out of the witness index. */
  exclude_works: z.array(z.string().min(1)).default([]),
  /** Metadata status of the versions indexed (default all: every version is a witness). */
  status: z.enum(['pri', 'sec', 'all']).default('all'),
  /** Gram length and sampling stride of the n-gram index (src/witness/build.ts). */
  n: z.number().int().min(2).max(16).default(5),
  stride: positiveInt.default(1),
  /** Diagonals verified by alignment per query. */
  candidates: positiveInt.default(16),
  /** Hits whose alignment score (1 − edits / OCR key length) is below this are not put in the context. */
  min_score: unitInterval.default(0.5),
});

/** Spec §11 retrieval keys + the retriever options of the companion specs (all off by default, src/retrieval). */
export const RetrievalSchema = z
  .strictObject({
    top_k: positiveInt.default(3),
    min_score: unitInterval.default(0),
    format_style: z.enum(['numbered_arabic', 'plain']).default('numbered_arabic'),
    /** Characters each retrieved sentence is cut to in the prompt (docs/retrieval.md#prompt-context). */
    max_chars_per_sentence: positiveInt.default(150),
    witness: WitnessSettingsSchema.optional(),
  })
  .extend(RetrievalPipelineSchema.shape);

const ExportSchema = z.strictObject({
  /** Records per shard: large datasets fan out into shards that several workers process in parallel. */
  shard_size: positiveInt.default(2000),
  /**
   * Lines retrieved per call (their queries embedded in one length-sorted run, so the sessions' batches pad
   * little); records are still written and checkpointed every `checkpoint_every`.
   */
  query_batch_size: positiveInt.default(512),
  /** Checkpoint (fsync + heartbeat) every N records. */
  checkpoint_every: positiveInt.default(64),
  /** An OCR or gold line longer than this (characters) is skipped and counted in the dataset's problems. */
  max_line_chars: positiveInt.default(20_000),
});

export const Phase5Schema = z.strictObject({
  corpus: CorpusSchema.prefault({}),
  index: IndexSchema.prefault({}),
  retrieval: RetrievalSchema.prefault({}),
  export: ExportSchema.prefault({}),
  analyze_errors: z.boolean().default(true),
  max_retries: nonNegInt.default(2),
});

const EmbeddingSchema = z.strictObject({
  /** HF-layout directory: model.onnx (or onnx/model.onnx) + tokenizer.json. Relative to the project root. */
  model_dir: z.string().min(1).default('models/multilingual-e5-small'),
  query_prefix: z.string().default('query: '),
  passage_prefix: z.string().default('passage: '),
  pooling: z.enum(['mean', 'cls']).default('mean'),
  normalize: z.boolean().default(true),
  max_length: positiveInt.default(128),
  batch_size: positiveInt.default(32),
  /** CPU threads for the encoder in all. */
  threads: positiveInt.default(2),
  /** Parallel sessions (worker threads) sharing those threads; "auto": one per thread for models ≤ 400 MB. */
  sessions: z.union([positiveInt, z.literal('auto')]).default('auto'),
  /** "cuda": the encoder on an NVIDIA GPU (onnxruntime-node's CUDA provider; README: GPU embedding), else the CPU with one warning. */
  device: z.enum(['cpu', 'cuda']).default('cpu'),
});

export const RagSchema = z.strictObject({
  /** Model id recorded in manifests and metrics (docs/outputs.md#metricsjson). */
  embedding_model: z.string().min(1).default('intfloat/multilingual-e5-small'),
  embedding: EmbeddingSchema.prefault({}),
  top_k: positiveInt.default(3),
});

/**
 * Regular expression on sample_id naming a line's page (first capture group, or the whole match): consecutive
 * lines of one page form one cluster of the analysis's resampling; absent = blocks of `analysis.block_lines`.
 */
const pagePattern = z
  .string()
  .refine((p) => {
    try {
      new RegExp(p);
      return true;
    } catch {
      return false;
    }
  }, 'not a valid regular expression')
  .optional();

const DatasetSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('paired_dir'),
    path: z.string().min(1),
    gt_suffix: z.string().min(1).default('.gt.txt'),
    ocr_suffix: z.string().min(1).default('.png.rec.txt'),
    /** Version-URI glob of this dataset's source book in OpenITI (for the leakage line of the report). */
    source_pattern: z.string().optional(),
    page_pattern: pagePattern,
  }),
  z.strictObject({
    type: z.literal('jsonl'),
    path: z.string().min(1),
    source_pattern: z.string().optional(),
    page_pattern: pagePattern,
  }),
]);

const LocalLlmSchema = z.strictObject({
  model_path: z.string().min(1).default('models/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf'),
  threads: positiveInt.default(2),
  context_size: positiveInt.default(2048),
  max_tokens: positiveInt.default(256),
  gpu: z.boolean().default(false),
});

const OpenAiLlmSchema = z.strictObject({
  base_url: z.string().url().default('http://127.0.0.1:8000/v1'),
  model: z.string().min(1).default('Qwen/Qwen3-4B-Instruct-2507'),
  /** Name of the environment variable that holds the API key (the key itself never goes in a config). */
  api_key_env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
    .default('OPENAI_API_KEY'),
  /**
   * Most requests in flight to this endpoint from one worker process. With `adaptive_concurrency` the ceiling
   * of the limit the worker finds itself (src/llm/adaptive-limit.ts), shared by all its shards and arms on the
   * endpoint; without it, a fixed number per backend.
   */
  concurrency: positiveInt.default(256),
  /** Find the endpoint's knee (requests in flight beyond which it only gets slower) instead of a fixed cap. */
  adaptive_concurrency: z.boolean().default(true),
  timeout_s: z.number().positive().default(120),
  max_tokens: positiveInt.default(512),
  max_retries: nonNegInt.default(4),
});

export const InferSchema = z.strictObject({
  backend: z.enum(['local', 'openai']).default('local'),
  temperature: z.number().min(0).max(2).default(0),
  local: LocalLlmSchema.prefault({}),
  openai: OpenAiLlmSchema.prefault({}),
  /** Which conditions the infer stage produces: the RAG condition and/or the zero-shot baseline. */
  conditions: z
    .array(z.enum(['rag', 'zero_shot']))
    .min(1)
    .default(['rag', 'zero_shot']),
  /**
   * A condition with more failed records than this share of its lines fails the stage (non-retryable), and the
   * analysis marks its comparisons not valid: failed lines are scored as the raw OCR, which would bias ΔCER.
   */
  max_failed_share: unitInterval.default(0.01),
  /**
   * How long the LLM endpoint may stay unreachable (no line finishing across retried attempts) before the
   * infer stage gives up for good. Until then an outage fails the activity retryably and Temporal retries it.
   */
  outage_budget: duration.default('30m'),
  /** Lines per infer shard: every arm × dataset is split into shards, one activity each, on every GPU worker. */
  shard_size: positiveInt.default(256),
  /**
   * Shards one run of an arm's workflow executes before it continues as new, so no history nears Temporal's
   * limits (each shard adds ~6 events and its input, with the config, ~4 KB).
   */
  shards_per_run: positiveInt.default(1000),
});

/** The Arabic switches this key held before profiles existed: each now names where its rule lives. */
const SWITCH_KEYS = ['remove_diacritics', 'remove_tatweel', 'unify_alef', 'unify_yaa', 'unify_taa_marbuta'];

const ProfileSchema = z.strictObject({
  rules: z.string().min(1),
  remove: z.array(z.string().min(1)).default([]),
  map: z.record(z.string().min(1), z.string()).default({}),
  unit: z.enum(['codepoint', 'grapheme']).default('codepoint'),
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
        ? 'the Arabic switches are now normalisation profiles: use analysis.normalization.secondary (built-in "no_diacritics" applies all five) or define a profile under analysis.normalization.profiles'
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

const AnalysisSchema = z.strictObject({
  /** Collapse whitespace runs before scoring (the metric definition); false = trim only, as the OCR_GS README figures. */
  collapse_whitespace: z.boolean().default(true),
  bootstrap_iterations: positiveInt.default(10000),
  bootstrap_seed: z.number().int().default(42),
  /** Permutations of the arms' block permutation test (the primary p of every ΔCER). */
  permutations: positiveInt.default(10000),
  /** Lines per resampled cluster when a dataset names no page (`datasets.*.page_pattern`). */
  block_lines: positiveInt.default(25),
  /** A line one arm has and another lacks: `error` fails the analysis; `ocr` scores it as the OCR text and counts it. */
  missing_lines: z.enum(['error', 'ocr']).default('error'),
  /** Normalisation profiles (src/text/profiles.ts): the primary one scores every figure, the secondary ones are reported beside. */
  normalization: NormalizationSchema.prefault({}),
});

const RetrySchema = z.strictObject({
  /** 0 = unlimited (Temporal's convention). */
  maximum_attempts: nonNegInt.default(5),
  initial_interval: duration.default('2s'),
  backoff_coefficient: z.number().min(1).default(2),
  maximum_interval: duration.default('1m'),
});

const StageSchema = z.strictObject({
  queue: z.enum(['cpu', 'gpu']),
  start_to_close: duration,
  /** This stage's activity retry policy; default `temporal.retry`. */
  retry: RetrySchema.optional(),
});

/**
 * Infer rides out an LLM outage (a server restart, a rate-limit storm) by retrying its activity: unlimited
 * attempts, backoff capped at a minute; `infer.outage_budget` ends an outage that does not end.
 */
const InferStageSchema = StageSchema.extend({
  retry: RetrySchema.extend({ maximum_attempts: nonNegInt.default(0), initial_interval: duration.default('5s') }).prefault({}),
});

const TemporalSchema = z.strictObject({
  address: z.string().min(1).default('127.0.0.1:7233'),
  namespace: z.string().min(1).default('default'),
  ui_port: z.number().int().min(1).max(65535).default(8233),
  /** SQLite file of the embedded dev server (relative to the project root). */
  db_file: z.string().min(1).default('data/temporal/temporal.db'),
  queues: z.strictObject({ cpu: z.string().min(1).default('phase5-cpu'), gpu: z.string().min(1).default('phase5-gpu') }).prefault({}),
  /**
   * Activities one worker runs at once, per queue. Three on the GPU queue: the infer shards of a worker share its
   * endpoint limit (up to `infer.openai.concurrency`, 256), and with three shards of 256 lines (`infer.shard_size`)
   * there are always lines waiting for it — while one shard drains and the next one starts, the others fill the
   * endpoint's free slots, so a shard boundary leaves no gap.
   */
  concurrency: z.strictObject({ cpu: positiveInt.default(2), gpu: positiveInt.default(3) }).prefault({}),
  /** Most activities one workflow keeps in flight (the export's shard fan-out), however many shards there are. */
  max_parallel_activities: positiveInt.default(64),
  heartbeat_timeout: duration.default('2m'),
  /**
   * Consecutive attempts, per worker polling the queue, that may fail on something only that worker lacks (an API
   * key variable, a model file) before the run fails; it fails at once when every polling worker has failed so.
   */
  max_worker_local_attempts: positiveInt.default(3),
  retry: RetrySchema.extend({ maximum_attempts: positiveInt.default(5) }).prefault({}),
  stages: z
    .strictObject({
      build: StageSchema.default({ queue: 'cpu', start_to_close: '12h' }),
      export: StageSchema.default({ queue: 'cpu', start_to_close: '6h' }),
      infer: InferStageSchema.prefault({ queue: 'gpu', start_to_close: '24h' }),
      analyze: StageSchema.default({ queue: 'cpu', start_to_close: '1h' }),
    })
    .prefault({}),
});

/** Over-correction guard: the study's block and an arm's override, defined beside the guard. */
export const StudyGuardSchema = GuardSettingsSchema;
export const ArmGuardOverrideSchema = GuardOverrideSchema;

/**
 * How an arm finds its context: the configured retriever, random corpus sentences (placebo), the gold line as
 * query (oracle), none, or the aligned passage of a whole work that the OCR line copies (witness, src/witness).
 */
export const ARM_MODES = ['dense', 'random', 'gold_query', 'none', 'witness'] as const;

/**
 * One study arm. `retrieval` and `infer` are partial overrides deep-merged into `phase5.retrieval` / `infer`
 * (src/config/study.ts validates the merged result, so a bad key names `study.arms.N.retrieval.<key>`).
 */
const ArmSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'),
  /** Default `rag`; `zero_shot` (or `retrieval.mode: none`) = the v1 prompt without context. */
  prompt: z.enum(['rag', 'zero_shot']).optional(),
  retrieval: z.looseObject({ mode: z.enum(ARM_MODES).optional() }).optional(),
  /** The arm's corpus: a block, or the name of one under `study.corpora` (default: phase5.corpus). */
  corpus: z.union([z.string().min(1), CorpusBlockSchema]).optional(),
  infer: z.record(z.string(), z.unknown()).optional(),
  guard: ArmGuardOverrideSchema.optional(),
});

/** `study:` — experiment arms analysed together; absent = the two default arms, rag and zero_shot. */
export const StudySchema = z
  .strictObject({
    /** The arm every other arm is compared with (default: the first zero-shot arm, else the first arm). */
    baseline: z.string().min(1).optional(),
    guard: StudyGuardSchema.optional(),
    /** Named corpora the arms refer to by name (`corpus: similar`). */
    corpora: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'), CorpusBlockSchema).optional(),
    arms: z.array(ArmSchema).min(1),
    /** Planned contrasts, one Holm family: ΔCER = CER(arm) − CER(vs); absent = the defaults of analysis/contrasts.ts. */
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

function defaultBaseline(arms: readonly { name: string; prompt?: string; retrieval?: { mode?: string } }[]): string {
  return (arms.find((a) => a.prompt === 'zero_shot' || a.retrieval?.mode === 'none') ?? arms[0]).name;
}

export const ConfigSchema = z.strictObject({
  /** Default run name; workflow ids derive from it and a hash of the inputs (`phase5-<run>-<hash8>-<stage>`). */
  run_name: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"')
    .default('default'),
  paths: z
    .strictObject({
      /** Root of all results: phase5 outputs in <results_dir>/phase5, the baseline in <results_dir>/phase2. */
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
  phase5: Phase5Schema.prefault({}),
  rag: RagSchema.prefault({}),
  datasets: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-"'), DatasetSchema).default({}),
  infer: InferSchema.prefault({}),
  analysis: AnalysisSchema.prefault({}),
  temporal: TemporalSchema.prefault({}),
  /** Experiment arms; absent = the two default arms, rag (results/phase5) and zero_shot (results/phase2). */
  study: StudySchema.optional(),
});

export type Config = z.infer<typeof ConfigSchema>;
export type DatasetConfig = Config['datasets'][string];
export type StudyConfig = NonNullable<Config['study']>;
export type ArmConfig = StudyConfig['arms'][number];
export type StageName = 'build' | 'export' | 'infer' | 'analyze';
export const STAGES: StageName[] = ['build', 'export', 'infer', 'analyze'];
