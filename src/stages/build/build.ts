/**
 * Build stage: corpus.jsonl from OpenITI (seconds to minutes), then embeddings + index (the long part).
 *
 *   const options = optionsFrom(config, {}, false);
 *   const { corpus, index } = await run(options, { onProgress: (done, total) => … });
 *
 * Both steps are skipped when their outputs are up to date (recorded settings and sha256 match), unless
 * forced. Embedding resumes from the partial vector file a killed run left (see src/index).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema';
import { readJson, writeJsonAtomic } from '../../io/jsonl';
import { buildCorpus as buildCorpusFiles, CorpusBuildError, type CorpusBuildSummary } from '../../openiti/index';
import { FILE_SKIP_REASONS } from '../../openiti/build-summary';
import { MetadataError, readMetadata } from '../../openiti/metadata';
import { sourceWorkExclusions, type SourceWorkExclusion } from '../../openiti/source-works';
import { buildGenericCorpus, GenericCorpusError, type GenericCorpusSummary } from '../../corpora/index';
import { RAGRetriever, type RetrieverConfig } from '../../index/retriever';
import { IndexMismatchError } from '../../index/errors';
import { ModelDirError } from '../../embed/model-dir';
import { sha256File } from '../../util/hash';
import { effectiveExcludePatterns } from '../../openiti/work-exclusion';
import { childLogger } from '../../util/log';
import { retrieverConfig, type StagePaths } from './retriever';
import { skipsFromCounts, type Skips } from '../shared/skips';
import { UserInputError, type RunOptions, type StageHooks } from '../shared/types';
import { ensureWitnessIndex } from '../witness/witness-index';
import { addWholeWorks } from './corpus-works';
import { corpusSettings, type CorpusSettings, type GenericCorpusSettings, type OpenitiCorpusSettings } from './corpus-settings';
import { studyPlan, type CorpusPlan, type StudyPlan, type WitnessIndexPlan } from '../study/plan';

const log = childLogger('build');

export type { StagePaths };
export { stagePaths } from '../study/layout';
export { corpusSettings, type CorpusSettings, type GenericCorpusSettings, type OpenitiCorpusSettings } from './corpus-settings';

export interface BuildOptions {
  paths: StagePaths;
  corpus: CorpusSettings;
  retriever: RetrieverConfig;
  /** Sentences embedded per durable step. */
  batchSize: number;
  /** Sentences per embedding shard of a fanned-out build (see build-shards.ts). */
  embedShardSize: number;
  force: boolean;
  /** The witness indexes the study's arms need (the plan's), built with the corpus. */
  witness?: WitnessIndexPlan[];
  /** The study arms' own corpora (the plan's), each built and indexed with the corpus. */
  corpora?: CorpusPlan[];
}

export function optionsFrom(config: Config, cli: RunOptions, force = false, plan: StudyPlan = studyPlan(config, cli)): BuildOptions {
  return {
    ...corpusBuildOptions(config, plan.paths, force),
    ...(plan.witnessIndexes.length ? { witness: plan.witnessIndexes } : {}),
    ...(plan.corpora.length ? { corpora: plan.corpora } : {}),
  };
}

/** The options that build one corpus and its index at `paths`, with `config`'s corpus and index settings. */
export function corpusBuildOptions(config: Config, paths: StagePaths, force: boolean): BuildOptions {
  const index = config.index;
  return {
    paths,
    corpus: corpusSettings(config),
    retriever: retrieverConfig(config, paths),
    batchSize: index.batch_size,
    embedShardSize: index.embed_shard_size,
    force,
  };
}

/** The small summary that crosses Temporal (the full one is in corpus.jsonl.build.json). */
export interface CorpusResult {
  corpusPath: string;
  reused: boolean;
  sentences: number;
  sha256: string;
  eras: { name: string; target: number; written: number }[];
  filesParsed: number;
  filesSkipped: CorpusBuildSummary['files']['skipped'];
  metadataBadRows: CorpusBuildSummary['metadata']['badRows'];
  /** Corpus files and metadata rows left out, by reason, with up to three examples each. */
  skipped: Skips;
  /** `exclude_dataset_sources`: per dataset, the works and versions held out of the corpus. */
  excludedSources?: SourceWorkExclusion[];
}

export interface IndexResult {
  indexPath: string;
  vectors: number;
  dims: number;
  model: string;
  indexType: string;
}

export interface BuildResult {
  corpus: CorpusResult;
  index: IndexResult;
  /** Study arms' own corpora, by fingerprint (builds that fan them out, one activity each). */
  corpora?: Record<string, IndexResult>;
  /** Witness indexes, by fingerprint: their folders. */
  witnessIndexes?: Record<string, string>;
}

/** Checkpoint of the embedding step: rows whose vectors are on disk. */
export interface EmbedCheckpoint {
  rowsEmbedded: number;
}

/** Both steps, in order. */
export async function run(options: BuildOptions, hooks: StageHooks<EmbedCheckpoint> = {}): Promise<BuildResult> {
  const corpus = await buildCorpus(options, { onProgress: hooks.onProgress, signal: hooks.signal });
  const index = await buildIndex(options, hooks);
  return { corpus, index };
}

export interface CorpusRecord {
  settings: CorpusSettings;
  summary: CorpusBuildSummary | GenericCorpusSummary;
  /** `exclude_dataset_sources` only: per dataset, the works and versions this corpus was built without. */
  excludedSources?: SourceWorkExclusion[];
}

const corpusRecordFile = (options: BuildOptions) => `${options.paths.corpus}.build.json`;

/**
 * Step 1 in one go: the run's corpus, then the witness indexes and the arms' own corpora one after the other
 * (builds that fan those out to the CPU workers call `buildRunCorpus` and ../study/builds.ts instead).
 */
export async function buildCorpus(options: BuildOptions, hooks: StageHooks = {}): Promise<CorpusResult> {
  const result = await buildRunCorpus(options, hooks);
  for (const w of options.witness ?? []) await ensureWitnessIndex(w, hooks.onProgress);
  for (const c of options.corpora ?? []) await buildArmCorpus(c, options.force, { onProgress: hooks.onProgress, signal: hooks.signal });
  return result;
}

/** A study arm's own corpus and its index, one after the other (each reused while up to date). */
export async function buildArmCorpus(corpus: CorpusPlan, force: boolean, hooks: StageHooks<EmbedCheckpoint>): Promise<IndexResult> {
  const options = corpusBuildOptions(corpus.config, corpus.paths, force);
  mkdirSync(path.dirname(corpus.paths.corpus), { recursive: true });
  log.info({ corpus: corpus.paths.corpus, arms: corpus.arms }, 'study arm corpus');
  await buildRunCorpus(options, { onProgress: hooks.onProgress, signal: hooks.signal });
  return buildIndex(options, hooks);
}

/**
 * The corpus at `options.paths`: sampled from OpenITI (or read from the configured generic source), or the one on
 * disk when its settings and bytes match.
 */
export async function buildRunCorpus(options: BuildOptions, hooks: StageHooks): Promise<CorpusResult> {
  const { paths, corpus: settings, force } = options;
  if ('generic' in settings) {
    if (settings.inputs === 'missing') throw new UserInputError(`corpus source not found: ${settings.generic.path} (corpus.source.path)`);
  } else if (!existsSync(settings.openitiRoot)) {
    throw new UserInputError(`OpenITI root not found: ${settings.openitiRoot} (set data.openiti_root, OPENITI_ROOT or --openiti-root)`);
  }
  const reusable = force ? null : await upToDateCorpus(options);
  const held = 'generic' in settings ? null : await resolveSourceExclusions(settings);
  const withHeld = (r: CorpusResult): CorpusResult => (held ? { ...r, excludedSources: held } : r);
  if (reusable) {
    log.info(
      { corpus: paths.corpus, sentences: corpusResult(reusable, true).sentences },
      'corpus is up to date, reusing it (use --force to rebuild)',
    );
    return withHeld(corpusResult(reusable, true));
  }
  if (force) rmSync(corpusRecordFile(options), { force: true });
  const summary =
    'generic' in settings ? await buildGeneric(settings, paths.corpus) : await buildOpeniti(settings, paths.corpus, hooks, held ?? []);
  writeJsonAtomic(corpusRecordFile(options), { settings, summary, ...(held ? { excludedSources: held } : {}) } satisfies CorpusRecord);
  if ('eras' in summary)
    for (const e of summary.eras)
      log.info({ era: e.name, target: e.target, written: e.written }, `era ${e.name}: ${e.written} sentences (target ${e.target})`);
  return withHeld(corpusResult(summary, false));
}

/** Every version of each dataset's source work (`exclude_dataset_sources`), from the metadata; null when not asked for. */
export async function resolveSourceExclusions(settings: OpenitiCorpusSettings): Promise<SourceWorkExclusion[] | null> {
  if (!settings.datasetSources) return null;
  const { rows } = await readMetadata(settings.metadataPath).catch((err: unknown) => {
    throw err instanceof MetadataError ? new UserInputError(`${err.message} (corpus.exclude_dataset_sources reads it)`) : err;
  });
  const found = sourceWorkExclusions(settings.datasetSources, rows);
  for (const e of found)
    log.info(
      { dataset: e.dataset, works: e.works, versions: e.versions.length },
      `${e.dataset}: excluding ${e.versions.length} version(s) of ${e.works.join(', ') || '(no work matches ' + e.source_pattern + ')'}`,
    );
  return found;
}

async function buildOpeniti(
  settings: OpenitiCorpusSettings,
  outPath: string,
  hooks: StageHooks,
  held: readonly SourceWorkExclusion[],
): Promise<CorpusBuildSummary> {
  const summary = await buildOpenitiSample(settings, outPath, hooks, held);
  return settings.addWorks ? addWholeWorks(summary, settings, outPath) : summary;
}

async function buildOpenitiSample(
  settings: OpenitiCorpusSettings,
  outPath: string,
  hooks: StageHooks,
  held: readonly SourceWorkExclusion[],
): Promise<CorpusBuildSummary> {
  const { datasetSources: _sources, addWorks: _works, ...files } = settings;
  try {
    return await buildCorpusFiles(
      { ...files, exclude: effectiveExcludePatterns(files.exclude, held), outPath, progressMode: 'log' },
      (done, total, stage) => hooks.onProgress?.(done, total, stage),
    );
  } catch (err) {
    if (err instanceof CorpusBuildError) throw new UserInputError(err.message);
    throw err;
  }
}

async function buildGeneric(settings: GenericCorpusSettings, outPath: string): Promise<GenericCorpusSummary> {
  try {
    const summary = await buildGenericCorpus({ sources: [settings.generic], outPath, chunk: settings.chunk });
    log.info(
      { documents: summary.documents, chunks: summary.chunks, duplicates: summary.duplicates, problems: summary.problems },
      `generic corpus: ${summary.chunks} chunks from ${summary.documents} documents`,
    );
    if (summary.chunks === 0)
      throw new UserInputError(
        `corpus source ${settings.generic.path} gave no text chunks (problems: ${JSON.stringify(summary.problems)})`,
      );
    return summary;
  } catch (err) {
    if (err instanceof GenericCorpusError) throw new UserInputError(err.message);
    throw err;
  }
}

/** The recorded summary when corpus.jsonl was built with these settings and is unchanged since. */
async function upToDateCorpus(options: BuildOptions): Promise<CorpusRecord['summary'] | null> {
  const recordFile = corpusRecordFile(options);
  if (!existsSync(options.paths.corpus) || !existsSync(recordFile)) return null;
  const rec = await readJson<CorpusRecord>(recordFile);
  if (
    JSON.stringify(rec.settings) === JSON.stringify(options.corpus) &&
    (await sha256File(options.paths.corpus)) === rec.summary.corpusSha256
  )
    return rec.summary;
  log.info('corpus settings or file changed since the last build: rebuilding');
  return null;
}

function corpusResult(summary: CorpusRecord['summary'], reused: boolean): CorpusResult {
  if (!('eras' in summary)) {
    const skipped = Object.fromEntries(FILE_SKIP_REASONS.map((k) => [k, 0])) as CorpusResult['filesSkipped'];
    const problems = skipsFromCounts(summary.problems as Record<string, number>, summary.examples as Record<string, readonly string[]>);
    return {
      corpusPath: summary.outPath,
      reused,
      sentences: summary.chunks,
      sha256: summary.corpusSha256,
      eras: [],
      filesParsed: summary.documents,
      filesSkipped: skipped,
      metadataBadRows: 0,
      skipped: problems,
    };
  }
  return {
    corpusPath: summary.outPath,
    reused,
    sentences: summary.totalWritten,
    sha256: summary.corpusSha256,
    eras: summary.eras.map((e) => ({ name: e.name, target: e.target, written: e.written })),
    filesParsed: summary.files.parsed,
    filesSkipped: summary.files.skipped,
    metadataBadRows: summary.metadata.badRows,
    skipped: corpusSkips(summary),
  };
}

/** Skipped files by reason (`file <reason>`) and bad / duplicate metadata rows, with examples. */
function corpusSkips(summary: CorpusBuildSummary): Skips {
  const counts: Record<string, number> = {};
  const examples: Record<string, readonly string[]> = {};
  for (const [reason, n] of Object.entries(summary.files.skipped)) {
    counts[`file ${reason}`] = n;
    examples[`file ${reason}`] = summary.files.examples?.[reason] ?? [];
  }
  const m = summary.metadata;
  counts['metadata row'] = m.badRows + (m.duplicateRows ?? 0);
  examples['metadata row'] = m.examples ?? [];
  return skipsFromCounts(counts, examples);
}

/** Step 2: embed the corpus and index it (resumes from the vectors a killed run left on disk). */
export async function buildIndex(options: BuildOptions, hooks: StageHooks<EmbedCheckpoint> = {}): Promise<IndexResult> {
  const { paths } = options;
  if (!existsSync(paths.corpus)) throw new UserInputError(`no corpus at ${paths.corpus} — the corpus step of \`phase5 build\` makes it`);
  if (hooks.resumeFrom) log.info({ rowsEmbedded: hooks.resumeFrom.rowsEmbedded }, 'resuming the embedding from the last checkpoint');
  const retriever = await RAGRetriever.open(options.retriever, { loadIndex: false });
  try {
    if (retriever.disabledReason?.startsWith('embedding model unavailable')) throw new UserInputError(retriever.disabledReason);
    const manifest = await retriever.buildIndex(paths.corpus, paths.index, {
      force: options.force,
      batchSize: options.batchSize,
      showProgress: false,
      signal: hooks.signal,
      onBatch: (r) => {
        hooks.onProgress?.(r.rowsEmbedded, r.totalRows);
        hooks.checkpoint?.({ rowsEmbedded: r.rowsEmbedded });
      },
    });
    return {
      indexPath: paths.index,
      vectors: manifest.corpus.count,
      dims: manifest.model.dims,
      model: manifest.model.id,
      indexType: manifest.index.type,
    };
  } catch (err) {
    if (err instanceof IndexMismatchError || err instanceof ModelDirError) throw new UserInputError(err.message);
    throw err;
  } finally {
    await retriever.close();
  }
}
