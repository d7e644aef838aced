/**
 * Where a study's files live: the results folders (checked once) and the run's corpus and index. Every other
 * path of a study — an arm's folder, a shared export, an arm's own corpus, a witness index — is one of these
 * folders joined with a name or a fingerprint (see ./study-plan.ts).
 *
 *   <results>/phase5/            corpus.jsonl, index.usearch, export/ (the default single export)
 *   <results>/phase2/            the default zero-shot arm's corrections
 *   <results>/arms/<arm>/        arm.json, inference_input.jsonl (a link), corrections.jsonl
 *   <results>/exports/<fp>/      one export per distinct retrieval
 *   <results>/corpora/<fp>/      one corpus and index per distinct arm `corpus` block
 *   <results>/witness/<fp>/      one witness index per distinct witness settings
 */
import path from 'node:path';
import { resolvePath } from '../config/load';
import type { Config } from '../config/schema';
import { checkedResultDirs } from './results-dir';
import type { StagePaths } from './retriever';
import type { RunOptions } from './types';

export interface StudyDirs {
  root: string;
  phase5: string;
  phase2: string;
  arms: string;
  exports: string;
  witness: string;
}

export interface StudyLayout {
  dirs: StudyDirs;
  /** The run's corpus and index (`--corpus-path` / `--index-path` override the results dir). */
  paths: StagePaths;
}

export function studyLayout(config: Config, cli: Pick<RunOptions, 'corpusPath' | 'indexPath'>): StudyLayout {
  const { root, phase5, phase2 } = checkedResultDirs(config);
  const dirs = {
    root,
    phase5,
    phase2,
    arms: path.join(root, 'arms'),
    exports: path.join(root, 'exports'),
    witness: path.join(root, 'witness'),
  };
  const paths = {
    corpus: cli.corpusPath ? resolvePath(cli.corpusPath) : path.join(phase5, 'corpus.jsonl'),
    index: cli.indexPath ? resolvePath(cli.indexPath) : path.join(phase5, 'index.usearch'),
  };
  return { dirs, paths: corpusPaths({ dirs, paths }, config) };
}

/** The corpus and index a (study arm's effective) config retrieves from: its own corpus folder, else the run's. */
export function corpusPaths(layout: StudyLayout, config: Config): StagePaths {
  const dir = config.corpus.dir;
  // A study arm's own corpus (src/config/study.ts blockCorpus): its folder under the results dir.
  if (dir) return { corpus: path.join(layout.dirs.root, dir, 'corpus.jsonl'), index: path.join(layout.dirs.root, dir, 'index.usearch') };
  return layout.paths;
}

/** Corpus and index paths for a run: the layout's, for this config. */
export function stagePaths(config: Config, cli: Pick<RunOptions, 'corpusPath' | 'indexPath'>): StagePaths {
  return studyLayout(config, cli).paths;
}
