/**
 * The results root (src/stages/shared/results-dir.ts): a results dir that is a file is a one-line input error naming it
 * (not an ENOTDIR retried as transient); one that does not exist yet is fine.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { checkedResultDirs } from '../../../src/stages/shared/results-dir';
import { UserInputError } from '../../../src/stages/shared/types';

const configAt = (resultsDir: string) => parseConfig({ paths: { results_dir: resultsDir } }, 'results-dir-test.yaml', { env: {} });

describe('stages/results-dir', () => {
  it('a results dir that does not exist yet gives its folders by concern (no phase5/ or phase2/)', () => {
    const root = path.join(mkdtempSync(path.join(os.tmpdir(), 'results-dir-')), 'not-yet');
    const at = (name: string) => path.join(root, name);
    expect(checkedResultDirs(configAt(root))).to.deep.equal({
      root,
      arms: at('arms'),
      exports: at('exports'),
      corpora: at('corpora'),
      witness: at('witness'),
    });
  });

  it('a results dir that is a file fails with a one-line input error naming it', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'results-dir-')), 'results');
    writeFileSync(file, 'not a folder');
    expect(() => checkedResultDirs(configAt(file))).to.throw(UserInputError, `results dir ${file} is a file, not a directory`);
  });
});
