/**
 * Renamed config keys and flags through the real CLI: one line on stderr naming the new name, no stack.
 * (vocab-codemod: keep — this test uses the old names on purpose.)
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/shared-data';
import { buildProgram } from '../../bin/cli/main';
import { runOptions, type StageFlags } from '../../bin/cli/options';
import { ConfigSchema } from '../../src/config/schema';

function phase5(args: string[]) {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60000,
  });
  return { code: r.status, err: r.stderr };
}

describe('cli: renamed keys and flags', function () {
  this.timeout(120000);

  it('a config with the old phase5 block: exit 1 and one line naming the file and the new key', () => {
    const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-renamed-')), 'old.yaml');
    writeFileSync(f, 'phase5:\n  retrieval:\n    top_k: 5\n');
    const r = phase5(['--config', f, 'server', 'status']);
    expect(r.code).to.equal(1);
    expect(r.err).to.equal(`phase5: ${f}: key phase5.retrieval was renamed to retrieval\n`);
  });

  it("--phase2-dir (the design document's name) sets what --baseline-dir sets", () => {
    const config = ConfigSchema.parse({});
    expect(runOptions({ phase2Dir: 'results/old-baseline' } as StageFlags, config).baselineDir).to.equal('results/old-baseline');
    expect(runOptions({ baselineDir: 'b', phase2Dir: 'b' } as StageFlags, config).baselineDir).to.equal('b');
    expect(runOptions({}, config).baselineDir).to.equal(undefined);
  });

  it('--phase2-dir and --baseline-dir naming different folders: exit 2 and one line', () => {
    const r = phase5(['report', '--phase2-dir', 'x', '--baseline-dir', 'y']);
    expect(r.code).to.equal(2);
    expect(r.err).to.equal('phase5: --phase2-dir and --baseline-dir name different folders (x, y): give one\n');
  });

  it('the alias is hidden from --help', () => {
    for (const name of ['infer', 'analyze', 'run', 'report']) {
      const help = buildProgram()
        .commands.find((c) => c.name() === name)!
        .helpInformation();
      expect(help, name).to.contain('--baseline-dir').and.not.contain('--phase2-dir');
    }
  });
});
