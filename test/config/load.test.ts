import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, DEFAULT_CONFIG, loadConfig, parseConfig } from '../../src/config/load';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
function write(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}
function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('config/load', () => {
  it('loads the shipped default config with every key of docs/outputs.md#config-keys', () => {
    const { config } = loadConfig(DEFAULT_CONFIG, { env: {} });
    expect(config.corpus).to.include({ max_sentences: 200000, min_char_len: 30, max_char_len: 300, status_filter: 'pri', seed: 42 });
    expect(config.index).to.include({ type: 'FlatIP', batch_size: 256 });
    expect(config.retrieval).to.include({ top_k: 3, min_score: 0, format_style: 'numbered_arabic' });
    expect(config.analysis.analyze_errors).to.equal(true);
    expect(config.rag.embedding_model).to.equal('intfloat/multilingual-e5-small');
    expect(Object.keys(config.datasets)).to.have.length(5);
    expect(config.temporal.queues).to.deep.equal({ cpu: 'phase5-cpu', gpu: 'phase5-gpu' });
  });

  it('fills defaults for an empty file', () => {
    const config = parseConfig({}, 'empty.yaml', { env: {} });
    expect(config.temporal.address).to.equal('127.0.0.1:7233');
    expect(config.corpus.eras.map((e) => e.fraction)).to.deep.equal([0.1, 0.3, 0.3, 0.3]);
    expect(config.temporal.max_parallel_activities).to.equal(64);
  });

  it('arms statistics: 10,000 resamples and permutations, blocks of 25, missing lines an error; a bad page_pattern names its key', () => {
    const a = parseConfig({}, 'empty.yaml', { env: {} }).analysis;
    expect([a.bootstrap_iterations, a.permutations, a.block_lines, a.missing_lines]).to.deep.equal([10000, 10000, 25, 'error']);
    expect(errorOf(() => parseConfig({ analysis: { missing_lines: 'drop' } }, 'x.yaml', { env: {} })).message).to.contain(
      'analysis.missing_lines',
    );
    const bad = { datasets: { D: { type: 'jsonl', path: 'd.jsonl', page_pattern: 'p(' } } };
    expect(errorOf(() => parseConfig(bad, 'x.yaml', { env: {} })).message).to.match(
      /datasets\.D\.page_pattern: not a valid regular expression/,
    );
  });

  it('rejects a fan-out window below 1', () => {
    const err = errorOf(() => parseConfig({ temporal: { max_parallel_activities: 0 } }, 'x.yaml', { env: {} }));
    expect(err.message).to.contain('temporal.max_parallel_activities');
  });

  it('infer has its own retry policy (unlimited attempts, backoff capped at 1m) even where a config names only its queue', () => {
    const infer = { maximum_attempts: 0, initial_interval: '5s', backoff_coefficient: 2, maximum_interval: '1m' };
    expect(loadConfig(DEFAULT_CONFIG, { env: {} }).config.temporal.stages.infer.retry).to.deep.equal(infer);
    const older = parseConfig({ temporal: { stages: { infer: { queue: 'gpu', start_to_close: '24h' } } } }, 'older.yaml', { env: {} });
    expect(older.temporal.stages.infer.retry).to.deep.equal(infer);
    expect(older.temporal.stages.build.retry, 'other stages use temporal.retry').to.equal(undefined);
    expect(older.infer).to.include({ max_failed_share: 0.01, outage_budget: '30m' });
  });

  it('rejects a wrong type naming file, key path, expectation and value', () => {
    const f = write('wrong-type.yaml', 'retrieval:\n  top_k: "three"\n');
    const err = errorOf(() => loadConfig(f, { env: {} }));
    expect(err.message).to.contain(f);
    expect(err.message).to.contain('retrieval.top_k');
    expect(err.message).to.match(/expected number/i);
    expect(err.message).to.contain('got string "three"');
  });

  it('rejects a negative top_k', () => {
    const err = errorOf(() => parseConfig({ retrieval: { top_k: -3 } }, 'x.yaml', { env: {} }));
    expect(err.message).to.contain('retrieval.top_k');
    expect(err.message).to.contain('got number -3');
  });

  it('rejects unknown keys (typos must not pass silently)', () => {
    const f = write('typo.yaml', 'retreival:\n  top_k: 3\n');
    const err = errorOf(() => loadConfig(f, { env: {} }));
    expect(err.message).to.contain('unknown key "retreival"');
    expect(err.message).to.contain(f);
  });

  it('rejects era fractions that do not sum to 1 and min > max length', () => {
    const err = errorOf(() =>
      parseConfig({ corpus: { min_char_len: 400, eras: [{ name: 'a', from: 0, to: 10, fraction: 0.5 }] } }, 'x.yaml', {
        env: {},
      }),
    );
    expect(err.problems.join('\n')).to.contain('fractions must sum to 1');
    expect(err.problems.join('\n')).to.contain('min_char_len');
  });

  it('reports YAML syntax errors with a line number', () => {
    const f = write('bad.yaml', 'corpus: [unclosed\n');
    const err = errorOf(() => loadConfig(f, { env: {} }));
    expect(err.message).to.match(/line \d+/);
  });

  it('applies environment overrides', () => {
    const config = parseConfig({}, 'x.yaml', { env: { OPENITI_ROOT: '/data/openiti', TEMPORAL_ADDRESS: '10.0.0.5:7233' } });
    expect(config.data.openiti_root).to.equal('/data/openiti');
    expect(config.temporal.address).to.equal('10.0.0.5:7233');
  });

  it('a missing file is a clear error', () => {
    const err = errorOf(() => loadConfig(path.join(dir, 'nope.yaml')));
    expect(err.message).to.contain('file not found');
  });
});
