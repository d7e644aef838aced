/**
 * The results root every stage writes under, checked once per stage: a results dir that exists but is a file
 * would otherwise surface as `ENOTDIR` deep inside a writer and be retried as if it were transient.
 */
import { statSync } from 'node:fs';
import { resultDirs, type ResultDirs } from '../../config/load';
import type { Config } from '../../config/schema';
import { UserInputError } from './types';

/** `resultDirs(config)`, after checking that the results root is a directory or does not exist yet. */
export function checkedResultDirs(config: Config): ResultDirs {
  const dirs = resultDirs(config);
  for (const dir of Object.values(dirs)) {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) {
      throw new UserInputError(`results dir ${dir} is a file, not a directory — point --results-dir (paths.results_dir) at a folder`);
    }
  }
  return dirs;
}
