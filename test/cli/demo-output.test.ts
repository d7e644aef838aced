/**
 * `phase5 demo` as a person runs it without a terminal (CI, nohup, `| tee`): plain lines only — no pino JSON,
 * no SDK log lines — and the human summary at the end. A small demo (300 corpus sentences, 1 line per dataset)
 * on its own dev server (free ports, temp db), which the demo itself starts and the test stops.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config/load';
import { freePort, stopServer } from '../../src/temporal/server';
import { REPO_ROOT } from '../helpers/shared-data';
import { isJsonObjectLine } from '../helpers/output-lines';

const GGUF_DIR = path.join(REPO_ROOT, 'models');

/** A line a machine wrote: a JSON object, or the SDK's `2026-…Z [INFO] …` format. */
function machineLine(line: string): boolean {
  return /^\d{4}-\d\d-\d\dT[\d:.]+Z \[[A-Z]+\]/.test(line) || isJsonObjectLine(line);
}

describe('phase5 demo output without a terminal', function () {
  this.timeout(600000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'demo-output-'));
  const configFile = path.join(dir, 'demo.yaml');

  after(async () => {
    if (existsSync(configFile)) await stopServer(loadConfig(configFile).config).catch(() => undefined);
  });

  it('prints plain lines only (no JSON, no SDK log lines) and the human summary', async function () {
    if (!existsSync(GGUF_DIR)) this.skip();
    const demo = YAML.parse(readFileSync(path.join(REPO_ROOT, 'configs', 'demo.yaml'), 'utf8')) as Record<string, any>;
    demo.run_name = 'demo-output';
    demo.paths = { results_dir: path.join(dir, 'results') };
    demo.phase5.corpus.max_sentences = 300;
    demo.analysis = { bootstrap_iterations: 50 };
    demo.temporal = { ...demo.temporal, address: `127.0.0.1:${await freePort()}`, ui_port: await freePort(), db_file: path.join(dir, 'temporal.db'), queues: { cpu: 'demo-out-cpu', gpu: 'demo-out-gpu' } };
    writeFileSync(configFile, YAML.stringify(demo));
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'demo', '--limit', '1'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: Object.fromEntries(Object.entries({ ...process.env, CI: 'true' }).filter(([k]) => k !== 'PHASE5_LOG_FORMAT')),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 540000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out.slice(-3000)).to.equal(0);
    const lines = out.split('\n').filter((l) => l.trim());
    expect(lines.filter(machineLine), 'machine-format lines').to.deep.equal([]);
    expect(out).to.contain('Demo study finished.');
    expect(out).to.match(/report: +.*report\.html/);
    expect(out).to.match(/started \(phase5-demo-output-[0-9a-f]{8}-build\)/);
  });
});
