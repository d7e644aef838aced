/**
 * Where a study's files live: the results folders (checked once) and the run's corpus and index. Every other
 * path of a study — an arm's folder, an export, an arm's own corpus, a witness index — is one of these
 * folders joined with a name or a fingerprint (see ./plan.ts, docs/outputs.md#layout). One layout with
 * or without `study:`: the default arms `rag` and `zero_shot` are arms like any other.
 *
 *   <results>/arms/<arm>/        arm.json (study arms), inference_input.jsonl (a link), corrections.jsonl
 *   <results>/exports/<fp>/      one export per retrieval settings
 *   <results>/corpora/<fp>/      one corpus per corpus settings: corpus.jsonl, index-<index fp>.usearch
 *   <results>/witness/<fp>/      one witness index per witness settings
 */
import path from 'node:path';
import { resolvePath, type ResultDirs } from '../../config/load';
import { corpusFingerprint, indexFingerprint } from '../../config/corpus-fingerprint';
import type { Config } from '../../config/schema';
import { sha256Text } from '../../util/hash';
import { checkedResultDirs } from '../shared/results-dir';
import type { StagePaths } from '../build/retriever';
import type { RunOptions } from '../shared/types';

export type StudyDirs = ResultDirs;

export interface StudyLayout {
  dirs: StudyDirs;
  /** The run's corpus and index (`--corpus-path` / `--index-path` override the results dir). */
  paths: StagePaths;
}

export function studyLayout(config: Config, cli: Pick<RunOptions, 'corpusPath' | 'indexPath'>): StudyLayout {
  const dirs = checkedResultDirs(config);
  const corpus = cli.corpusPath ? resolvePath(cli.corpusPath) : null;
  // A corpus given on the command line keys its folder by its path: its settings are not the config's.
  const folder = path.join(dirs.corpora, corpus ? sha256Text(corpus).slice(0, 16) : corpusFingerprint(config));
  const paths = {
    corpus: corpus ?? path.join(folder, 'corpus.jsonl'),
    index: cli.indexPath ? resolvePath(cli.indexPath) : indexIn(folder, config),
  };
  return { dirs, paths: corpusPaths({ dirs, paths }, config) };
}

/** The index of `config`'s index settings in a corpus folder. */
function indexIn(folder: string, config: Config): string {
  return path.join(folder, `index-${indexFingerprint(config)}.usearch`);
}

/** The corpus and index a (study arm's effective) config retrieves from: its own corpus folder, else the run's. */
export function corpusPaths(layout: StudyLayout, config: Config): StagePaths {
  const dir = config.corpus.dir;
  // A study arm's own corpus (src/config/study.ts blockCorpus): its folder under the results dir.
  if (dir) {
    const folder = path.join(layout.dirs.root, dir);
    return { corpus: path.join(folder, 'corpus.jsonl'), index: indexIn(folder, config) };
  }
  return layout.paths;
}

/** Corpus and index paths for a run: the layout's, for this config. */
export function stagePaths(config: Config, cli: Pick<RunOptions, 'corpusPath' | 'indexPath'>): StagePaths {
  return studyLayout(config, cli).paths;
}
