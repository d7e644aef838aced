/**
 * Relative paths in a config file resolve against the file's folder (src/config/relative-paths.ts), so the config a
 * worker receives names the client's files; defaults the file does not write keep the project root.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CONFIG, loadConfig, PROJECT_ROOT } from '../../src/config/load';

describe('relative paths in a config file', () => {
  let tmp: string;
  before(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'relative-paths-'))));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it("resolve against the config file's folder, whatever the current directory; absolute paths and defaults are kept", () => {
    const dir = path.join(tmp, 'conf');
    mkdirSync(dir);
    const file = path.join(dir, 'c.yaml');
    writeFileSync(
      file,
      [
        'paths: { results_dir: out }',
        'data: { openiti_root: ../openiti }',
        'datasets:',
        '  a: { type: jsonl, path: lines/a.jsonl }',
        '  b: { type: jsonl, path: /abs/b.jsonl }',
        'temporal: { db_file: db/t.db }',
      ].join('\n'),
    );
    const { config } = loadConfig(file, { env: {} });
    expect(config.paths.results_dir).to.equal(path.join(dir, 'out'));
    expect(config.data.openiti_root).to.equal(path.join(tmp, 'openiti'));
    expect(config.datasets.a.path).to.equal(path.join(dir, 'lines', 'a.jsonl'));
    expect(config.datasets.b.path).to.equal('/abs/b.jsonl');
    expect(config.temporal.db_file).to.equal(path.join(dir, 'db', 't.db'));
    expect(config.rag.embedding.model_dir, 'a default, not written in the file').to.equal('models/multilingual-e5-small');
  });

  it('the shipped configs (configs/) still name the repository’s results, models and ../shared data', () => {
    const { config } = loadConfig(DEFAULT_CONFIG, { env: {} });
    expect(config.paths.results_dir).to.equal(path.join(PROJECT_ROOT, 'results'));
    expect(config.data.openiti_root).to.equal(path.join(PROJECT_ROOT, '..', 'shared', 'data', 'openiti'));
    expect(config.rag.embedding.model_dir).to.equal(path.join(PROJECT_ROOT, 'models', 'multilingual-e5-small'));
    expect(config.temporal.db_file).to.equal(path.join(PROJECT_ROOT, 'data', 'temporal', 'temporal.db'));
  });
});
