/**
 * Bad-input suite — configuration and the command line (`loadConfig` on YAML files written here; the real
 * CLI, `node bin/phase5.js`, for the flag cases, pointed at an address where nothing listens).
 *
 * Cases:
 *   - unknown config key           → ConfigError naming the file, the key path and the unknown key; fixed, it loads
 *   - wrong type in config         → names the key path, what was expected and what was found
 *   - negative top_k in config     → names retrieval.top_k and the value
 *   - YAML syntax error            → names the file, line and column
 *   - negative top_k on the CLI (`--top-k -3`) → exit 1, the key path and value, no stack trace
 *   - unreachable Temporal         → exit 1, one line saying where and how to start it
 *   - unknown dataset in --datasets → exit 2 (usage), lists the datasets the config declares
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load';
import { REPO_ROOT } from '../helpers/shared-data';
import { tmpDir } from './helpers';

interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

/** The real CLI in a child process (async, so the three runs overlap). */
function phase5(args: string[]): Promise<CliResult> {
  const env = { ...process.env };
  delete env.TEMPORAL_ADDRESS;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'phase5.js'), ...args],
      { cwd: REPO_ROOT, env, timeout: 60000 },
      (error, out, err) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, out: String(out), err: String(err) });
      },
    );
  });
}

function configError(yaml: string): { file: string; error: ConfigError } {
  const file = path.join(tmpDir('config'), 'study.yaml');
  writeFileSync(file, yaml);
  try {
    loadConfig(file, { env: {} });
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return { file, error: err as ConfigError };
  }
  throw new Error(`expected ${file} to be rejected`);
}

const NOWHERE = '127.0.0.1:1';

describe('bad-input suite', function () {
  this.timeout(60000);

  describe('config and CLI', () => {
    let cli: { topK: CliResult; unreachable: CliResult; dataset: CliResult };
    before(async () => {
      const [topK, unreachable, dataset] = await Promise.all([
        phase5(['--address', NOWHERE, 'export', '--top-k', '-3']),
        phase5(['--address', NOWHERE, 'export']),
        phase5(['--address', NOWHERE, 'export', '--datasets', 'NOPE']),
      ]);
      cli = { topK, unreachable, dataset };
    });

    it('unknown config key', () => {
      const { file, error } = configError('retrieval:\n  top_kk: 5\n');
      expect(error.message).to.contain(`invalid config ${file}`);
      expect(error.message).to.contain('retrieval: unknown key "top_kk" (not part of the schema; check the spelling)');
      writeFileSync(file, 'retrieval:\n  top_k: 5\n');
      expect(loadConfig(file, { env: {} }).config.retrieval.top_k).to.equal(5);
    });

    it('wrong type in config', () => {
      const { file, error } = configError('retrieval:\n  top_k: three\n');
      expect(error.file).to.equal(file);
      expect(error.problems).to.have.length(1);
      expect(error.problems[0]).to.match(/^retrieval\.top_k: .*expected number.*\(got string "three"\)$/);
    });

    it('negative top_k in config', () => {
      const { error } = configError('retrieval:\n  top_k: -3\n');
      expect(error.problems[0]).to.match(/^retrieval\.top_k: .*>0.*\(got number -3\)$/);
    });

    it('YAML syntax error', () => {
      const { file, error } = configError('retrieval:\n  top_k: [3\nindex: x\n');
      expect(error.message).to.contain(file);
      expect(error.problems[0]).to.match(/^YAML syntax error at line \d+, column \d+: /);
    });

    it('negative top_k on the CLI (--top-k -3)', () => {
      expect(cli.topK.code).to.equal(1);
      expect(cli.topK.err).to.match(/phase5: invalid config .*config\.yaml \(with command-line overrides\)/);
      expect(cli.topK.err).to.match(/retrieval\.top_k: .*\(got number -3\)/);
      expect(cli.topK.err).to.not.contain('    at ');
      expect(cli.topK.out).to.equal('');
    });

    it('unreachable Temporal', () => {
      expect(cli.unreachable.code).to.equal(1);
      expect(cli.unreachable.err.trim()).to.equal(`phase5: cannot reach Temporal at ${NOWHERE} — start it with \`phase5 server start\``);
      expect(cli.unreachable.out).to.equal('');
    });

    it('unknown dataset in --datasets', () => {
      expect(cli.dataset.code).to.equal(2);
      const declared = Object.keys(loadConfig(undefined, { env: {} }).config.datasets);
      expect(declared.length).to.be.greaterThan(0);
      expect(cli.dataset.err.trim()).to.equal(`phase5: unknown dataset NOPE — the config declares: ${declared.join(', ')}`);
    });
  });
});
