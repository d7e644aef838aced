import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/shared-data';
import { buildProgram } from '../../bin/cli/main';
import { resolveConfig, runOptions, forcedStages, UsageError } from '../../bin/cli/options';
import { ConfigError } from '../../src/config/load';
import { optionsFrom as inferOptionsFrom } from '../../src/stages/infer/infer';

function phase5(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('cli', function () {
  this.timeout(60000);

  it('every command has --help', () => {
    const program = buildProgram();
    const names = program.commands.map((c) => c.name());
    expect(names).to.include.members(['server', 'worker', 'doctor', 'build', 'export', 'infer', 'analyze', 'run', 'status']);
    for (const cmd of program.commands) expect(cmd.helpInformation()).to.contain('--help');
  });

  it('exit code 2 for usage errors, 0 for help', () => {
    expect(phase5(['--help']).code).to.equal(0);
    const bad = phase5(['export', '--no-such-flag']);
    expect(bad.code).to.equal(2);
    expect(bad.err).to.contain('unknown option');
  });

  it('before `npm install`: one line naming `npm run setup`, exit 1, no stack trace', () => {
    // bin/ and package.json in a folder with no node_modules on the way up: no package can be resolved.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-nodeps-'));
    for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) expect(existsSync(path.join(d, 'node_modules')), d).to.equal(false);
    cpSync(path.join(REPO_ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
    cpSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
    const r = spawnSync(process.execPath, [path.join(dir, 'bin', 'phase5.js'), '--help'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
      timeout: 30000,
    });
    expect(r.status).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.equal('phase5: dependencies are not installed — run `npm run setup`\n');
  });

  it('--log-format accepts human or json only', () => {
    const r = phase5(['--log-format', 'xml', 'server', 'status']);
    expect(r.code).to.equal(2);
    expect(r.err.trim()).to.equal('phase5: --log-format must be human or json, got "xml"');
  });

  it('Temporal unreachable → one clear line, exit 1, no stack trace', () => {
    const r = phase5(['doctor', '--address', '127.0.0.1:1']);
    expect(r.code).to.equal(1);
    expect(r.err.trim()).to.equal('phase5: cannot reach Temporal at 127.0.0.1:1 — start it with `phase5 server start`');
    expect(r.err).not.to.contain('    at ');
  });

  it('an invalid config fails with file, key path and expectation', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
    const f = path.join(dir, 'bad.yaml');
    writeFileSync(f, 'temporal:\n  adress: x\n');
    const r = phase5(['--config', f, 'server', 'status']);
    expect(r.code).to.equal(1);
    expect(r.err).to.contain(f);
    expect(r.err).to.contain('unknown key "adress"');
  });

  it('phase5 infer --retry-failed reaches the infer stage (and only when given)', () => {
    const infer = buildProgram().commands.find((c) => c.name() === 'infer')!;
    expect(infer.options.map((o) => o.long)).to.include('--retry-failed');
    const { config } = resolveConfig({}, {});
    expect(runOptions({ retryFailed: true }, config)).to.deep.equal({ retryFailed: true });
    expect(inferOptionsFrom(config, runOptions({ retryFailed: true }, config)).retryFailed).to.equal(true);
    expect(inferOptionsFrom(config, runOptions({}, config)).retryFailed).to.equal(false);
  });

  it('flag overrides are validated like config values', () => {
    expect(() => resolveConfig({}, { topK: '-3' })).to.throw(ConfigError, /retrieval.top_k/);
    expect(() => resolveConfig({}, { topK: 'x' })).to.throw(UsageError, /--top-k expects an integer/);
    const { config } = resolveConfig({ run: 'exp1', address: '127.0.0.1:9999' }, { topK: '5', minScore: '0.4', noErrorAnalysis: true });
    expect(config.retrieval.top_k).to.equal(5);
    expect(config.retrieval.min_score).to.equal(0.4);
    expect(config.analysis.analyze_errors).to.equal(false);
    expect(config.run_name).to.equal('exp1');
    expect(config.temporal.address).to.equal('127.0.0.1:9999');
    expect(resolveConfig({}, { missingLines: 'ocr' }).config.analysis.missing_lines).to.equal('ocr');
    expect(() => resolveConfig({}, { missingLines: 'drop' })).to.throw(ConfigError, /analysis.missing_lines/);
  });

  it('run options: datasets are checked against the config, stages against the pipeline', () => {
    const { config } = resolveConfig({});
    expect(runOptions({ datasets: ['OCR_GS-Jahiz.Hayawan'], limit: '5' }, config)).to.deep.equal({
      datasets: ['OCR_GS-Jahiz.Hayawan'],
      limit: 5,
    });
    expect(() => runOptions({ datasets: ['KHATT'] }, config)).to.throw(UsageError, /unknown dataset KHATT/);
    expect(() => runOptions({ limit: '0' }, config)).to.throw(UsageError, /--limit/);
    expect(forcedStages({ force: true })).to.deep.equal(['build', 'export', 'infer', 'analyze']);
    expect(forcedStages({ forceStage: ['export,infer'] })).to.deep.equal(['export', 'infer']);
    expect(() => forcedStages({ forceStage: ['deploy'] })).to.throw(UsageError, /unknown stage "deploy"/);
  });
});
