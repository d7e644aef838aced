/**
 * Run identity (bin/cli/run-identity.ts): the run key — and so every workflow id — changes with anything that
 * changes the outputs, and stays the same for the identical command. The end-to-end behaviour (new work vs
 * "already finished") is in test/cli/cli-e2e.test.ts.
 */
import { expect } from 'chai';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig, PROJECT_ROOT } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { runKey } from '../../bin/cli/run-identity';
import { runWorkflowId, stageWorkflowId } from '../../src/temporal/types';

describe('cli: run identity', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'run-identity-'));
  const dataset = path.join(dir, 'ocr.jsonl');
  writeFileSync(dataset, JSON.stringify({ ocr_text: 'قال', gt_text: 'قال' }) + '\n');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a loose patch of the raw config
  const config = (patch: Record<string, any> = {}): Config =>
    parseConfig(
      { run_name: 'study', paths: { results_dir: path.join(dir, 'results') }, datasets: { d: { type: 'jsonl', path: dataset } }, ...patch },
      'test',
      { env: {} },
    );

  it('is <run>-<hash8>; the ids derive from it as before', () => {
    const key = runKey(config(), {});
    expect(key).to.match(/^study-[0-9a-f]{8}$/);
    expect(runWorkflowId(key)).to.equal(`phase5-${key}`);
    expect(stageWorkflowId(key, 'export')).to.equal(`phase5-${key}-export`);
  });

  it('the identical command gets the identical key (and a relative path equals its absolute form)', () => {
    expect(runKey(config(), { limit: 5 })).to.equal(runKey(config(), { limit: 5 }));
    const abs = path.join(dir, 'idx.usearch');
    expect(runKey(config(), { indexPath: path.relative(PROJECT_ROOT, abs) })).to.equal(runKey(config(), { indexPath: abs }));
    expect(runKey(config(), { indexPath: abs })).to.not.equal(runKey(config(), {}));
  });

  it('another results dir, config value, option or run name changes the key', () => {
    const base = runKey(config(), {});
    expect(runKey(config({ paths: { results_dir: path.join(dir, 'other') } }), {})).to.not.equal(base);
    expect(runKey(config({ retrieval: { top_k: 2 } }), {})).to.not.equal(base);
    expect(runKey(config(), { limit: 3 })).to.not.equal(base);
    expect(runKey(config({ run_name: 'other' }), {})).to.not.match(/^study-/);
  });

  it('where and how a run executes (temporal block) does not change the key', () => {
    expect(runKey(config({ temporal: { address: '10.0.0.1:7299', concurrency: { cpu: 1 } } }), {})).to.equal(runKey(config(), {}));
  });

  it('an --import file is identified by its content, a dataset file by size and mtime', () => {
    const a = path.join(dir, 'import.jsonl');
    writeFileSync(a, '{"x":1}\n');
    const first = runKey(config(), { importFile: a });
    writeFileSync(a, '{"x":2}\n'); // same size, same path
    expect(runKey(config(), { importFile: a })).to.not.equal(first);
    const before = runKey(config(), {});
    const t = new Date(Date.now() + 60_000);
    utimesSync(dataset, t, t);
    expect(runKey(config(), {})).to.not.equal(before);
  });
});
