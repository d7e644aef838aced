/**
 * Build stage: corpus.jsonl from OpenITI (seconds to minutes), then embeddings + index (the long part).
 * Both are skipped when their outputs are up to date (recorded fingerprints match), unless forced.
 * Embedding resumes from the partial vector file a killed attempt left (see src/index).
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { metadataPath, resolvePath, resultDirs } from '../src/config/load';
import type { Config } from '../src/config/schema';
import { readJson, writeJsonAtomic } from '../src/io/jsonl';
import { buildCorpus as buildCorpusFiles, CorpusBuildError, type CorpusBuildSummary } from '../src/openiti';
import { sha256File } from '../src/util/hash';
import { childLogger } from '../src/util/log';
import type { StageInput } from '../workflows/types';
import { asActivity, currentSignal, heartbeater, previousCheckpoint, UserInputError } from './support';
import { RAGRetriever } from '../src/index/retriever';
import { IndexMismatchError } from '../src/index/errors';
import { ModelDirError } from '../src/embed/model-dir';
import { retrieverConfig } from './retriever';

const log = childLogger('build');

export interface StagePaths {
  corpus: string;
  index: string;
}

/** Corpus and index paths for a run (`--corpus-path` / `--index-path` override the results dir). */
export function stagePaths(config: Config, options: StageInput['options']): StagePaths {
  const { phase5 } = resultDirs(config);
  return {
    corpus: options.corpusPath ? resolvePath(options.corpusPath) : path.join(phase5, 'corpus.jsonl'),
    index: options.indexPath ? resolvePath(options.indexPath) : path.join(phase5, 'index.usearch'),
  };
}

/** Everything that changes corpus.jsonl. */
function corpusSettings(config: Config) {
  const c = config.phase5.corpus;
  return {
    openitiRoot: resolvePath(config.data.openiti_root),
    metadataPath: metadataPath(config),
    maxSentences: c.max_sentences,
    minCharLen: c.min_char_len,
    maxCharLen: c.max_char_len,
    statusFilter: c.status_filter,
    seed: c.seed,
    eras: c.eras,
    maxPerFile: c.max_per_file,
    exclude: c.exclude,
    dedupAcrossCorpus: c.dedup_across_corpus,
  };
}

interface CorpusRecord {
  settings: ReturnType<typeof corpusSettings>;
  summary: CorpusBuildSummary;
}

/** The small summary that crosses Temporal (the full one is in corpus.jsonl.build.json). */
function corpusResult(summary: CorpusBuildSummary, reused: boolean) {
  return {
    corpusPath: summary.outPath,
    reused,
    sentences: summary.totalWritten,
    sha256: summary.corpusSha256,
    eras: summary.eras.map((e) => ({ name: e.name, target: e.target, written: e.written })),
    filesParsed: summary.files.parsed,
    filesSkipped: summary.files.skipped,
    metadataBadRows: summary.metadata.badRows,
  };
}

export async function buildCorpus(input: StageInput) {
  return asActivity(async () => {
    const { config, options, force } = input;
    const paths = stagePaths(config, options);
    const recordFile = `${paths.corpus}.build.json`;
    const settings = corpusSettings(config);
    if (!existsSync(settings.openitiRoot)) {
      throw new UserInputError(`OpenITI root not found: ${settings.openitiRoot} (set data.openiti_root, OPENITI_ROOT or --openiti-root)`);
    }
    if (!force && existsSync(paths.corpus) && existsSync(recordFile)) {
      const rec = await readJson<CorpusRecord>(recordFile);
      if (JSON.stringify(rec.settings) === JSON.stringify(settings) && (await sha256File(paths.corpus)) === rec.summary.corpusSha256) {
        log.info({ corpus: paths.corpus, sentences: rec.summary.totalWritten }, 'corpus is up to date, reusing it (use --force to rebuild)');
        return corpusResult(rec.summary, true);
      }
      log.info('corpus settings or file changed since the last build: rebuilding');
    }
    if (force) rmSync(recordFile, { force: true });
    const hb = heartbeater('corpus', 0, 0, 'bytes');
    let summary: CorpusBuildSummary;
    try {
      summary = await buildCorpusFiles({ ...settings, outPath: paths.corpus, progressMode: 'log' }, (done, total, stage) => {
        hb.setTotal(total);
        hb.beat(done, { stage });
      });
    } catch (err) {
      if (err instanceof CorpusBuildError) throw new UserInputError(err.message);
      throw err;
    } finally {
      hb.stop();
    }
    writeJsonAtomic(recordFile, { settings, summary } satisfies CorpusRecord);
    for (const e of summary.eras) log.info({ era: e.name, target: e.target, written: e.written }, `era ${e.name}: ${e.written} sentences (target ${e.target})`);
    return corpusResult(summary, false);
  });
}

export async function buildIndex(input: StageInput) {
  return asActivity(async () => {
    const { config, options, force } = input;
    const paths = stagePaths(config, options);
    if (!existsSync(paths.corpus)) throw new UserInputError(`no corpus at ${paths.corpus} — the corpus step of \`phase5 build\` makes it`);
    const prev = previousCheckpoint<{ rowsEmbedded: number }>();
    if (prev?.checkpoint) log.info({ rowsEmbedded: prev.checkpoint.rowsEmbedded }, 'resuming the embedding from the last checkpoint');
    const hb = heartbeater('embed', 0, prev?.checkpoint?.rowsEmbedded ?? 0, 'sentences');
    const retriever = await RAGRetriever.open(retrieverConfig(config, paths), { loadIndex: false }).catch((err) => {
      hb.stop();
      throw err;
    });
    try {
      if (retriever.disabledReason?.startsWith('embedding model unavailable')) throw new UserInputError(retriever.disabledReason);
      const manifest = await retriever.buildIndex(paths.corpus, paths.index, {
        force,
        batchSize: config.phase5.index.batch_size,
        showProgress: false,
        signal: currentSignal(),
        onBatch: (r) => {
          hb.setTotal(r.totalRows);
          hb.beat(r.rowsEmbedded, { rowsEmbedded: r.rowsEmbedded }, true);
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
      hb.stop();
      await retriever.close();
    }
  });
}
