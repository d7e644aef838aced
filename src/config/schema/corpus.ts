/** `corpus`: what the build stage samples (OpenITI eras, filters, hold-outs) or reads (jsonl, text_dir), and a study arm's corpus block. */
import { z } from 'zod';
import { DEFAULT_ERAS } from '../../openiti/sampling';
import { nonNegInt, positiveInt, unitInterval } from './primitives';

export const EraSchema = z.strictObject({
  name: z.string().min(1),
  /** Inclusive lower bound (hijri year). */
  from: z.number().int(),
  /** Exclusive upper bound (hijri year). */
  to: z.number().int(),
  fraction: unitInterval,
});

/**
 * Where the build stage takes its corpus from (`corpus.source`; absent = `openiti`, the OpenITI sampling).
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
  /** Corpus and index folder under the results dir (default `corpora/<fingerprint>/` of `corpus`); set by a study arm's `corpus` block. */
  dir: z.string().min(1).optional(),
});

/**
 * A study arm's corpus (`study.arms.N.corpus`, or named once under `study.corpora`): `sample` overrides
 * `corpus` key by key, `add_works` adds whole works, `exclude_works` holds works out (as `exclude`),
 * `exclude_dataset_sources` holds out every version of the datasets' source works. Each distinct corpus is
 * built and indexed once, under `<results>/corpora/<fingerprint>/`.
 */
export const CorpusBlockSchema = z.strictObject({
  sample: z.record(z.string(), z.unknown()).optional(),
  add_works: z.array(z.string().min(1)).optional(),
  exclude_works: z.array(z.string().min(1)).optional(),
  exclude_dataset_sources: z.boolean().optional(),
});
