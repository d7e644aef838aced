/**
 * `phase5 demo` as a person runs it without a terminal (CI, nohup, `| tee`): plain lines only — no pino JSON,
 * no SDK log lines — and the human summary at the end. A small demo (300 corpus sentences, 1 line per dataset)
 * on its own dev server (free ports, temp db), which the demo itself starts and the test stops. Then the
 * report it names, in headless Chromium: the Lines view works on a real demo run.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { rebasePaths } from '../../src/config/relative-paths';
import { loadConfig } from '../../src/config/load';
import { freePort, stopServer } from '../../src/temporal/server';
import { REPO_ROOT } from '../helpers/shared-data';
import { isJsonObjectLine } from '../helpers/output-lines';
import type { Page } from 'playwright-core';
import { openOfflinePage } from '../helpers/offline-page';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The DOM surface the page-side callbacks use (the project compiles without the DOM lib). */
interface Node {
  getAttribute(name: string): string | null;
  closest(sel: string): Node | null;
  querySelectorAll(sel: string): ArrayLike<Node>;
}

const GGUF_DIR = path.join(REPO_ROOT, 'models');

/** A line a machine wrote: a JSON object, or the SDK's `2026-…Z [INFO] …` format. */
function machineLine(line: string): boolean {
  return /^\d{4}-\d\d-\d\dT[\d:.]+Z \[[A-Z]+\]/.test(line) || isJsonObjectLine(line);
}

describe('phase5 demo output without a terminal', function () {
  // A hang guard, not a speed check: the demo's tiny LLM takes ~30 s on a quiet machine, minutes with the cores
  // busy (docs/contributing.md#tests-under-load), so the guard leaves room for a machine loaded many times over.
  this.timeout(1_560_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'demo-output-'));
  const configFile = path.join(dir, 'demo.yaml');
  /** The report.html the demo's summary names (set by the first test). */
  let report: string | null = null;

  after(async () => {
    if (existsSync(configFile)) await stopServer(loadConfig(configFile).config).catch(() => undefined);
  });

  it('prints plain lines only (no JSON, no SDK log lines) and the human summary', async function () {
    if (!existsSync(GGUF_DIR)) this.skip();
    // Its relative paths are relative to configs/: made absolute before the copy is written elsewhere.
    const demo = rebasePaths(
      YAML.parse(readFileSync(path.join(REPO_ROOT, 'configs', 'demo.yaml'), 'utf8')),
      path.join(REPO_ROOT, 'configs'),
    ) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    demo.run_name = 'demo-output';
    demo.paths = { results_dir: path.join(dir, 'results') };
    demo.corpus.max_sentences = 300;
    demo.analysis = { bootstrap_iterations: 50 };
    demo.temporal = {
      ...demo.temporal,
      address: `127.0.0.1:${await freePort()}`,
      ui_port: await freePort(),
      db_file: path.join(dir, 'temporal.db'),
      queues: { cpu: 'demo-out-cpu', gpu: 'demo-out-gpu' },
    };
    writeFileSync(configFile, YAML.stringify(demo));
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'demo', '--limit', '1'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: Object.fromEntries(Object.entries({ ...process.env, CI: 'true' }).filter(([k]) => k !== 'PHASE5_LOG_FORMAT')),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 1_500_000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, r.signal ? `the demo was killed (${r.signal}) after 25 min:\n${out.slice(-3000)}` : out.slice(-3000)).to.equal(0);
    const lines = out.split('\n').filter((l) => l.trim());
    expect(lines.filter(machineLine), 'machine-format lines').to.deep.equal([]);
    expect(out).to.contain('Demo study finished.');
    // One book line is one cluster: the summary says plainly that the demo is too small for intervals.
    expect(out).to.contain('1 lines per book: too few for confidence intervals, p-values or detectable effects');
    expect(out).to.match(/report: +.*report\.html/);
    report = /report: +(\S*report\.html)/.exec(out)![1];
    expect(out).to.match(/started \(phase5-demo-output-[0-9a-f]{8}-build\)/);
  });

  it('its report.html: the Lines view lists every line of lines.json, #line= opens the first expanded with rtl diffs; offline, no errors', async function () {
    if (!report) this.skip();
    // The demo is the default study: its Lines view's data is the rag arm's lines.json (docs/report.md), its report in study/.
    const linesFile = path.join(path.dirname(report!), '..', 'arms', 'rag', 'lines.json');
    const lines = (JSON.parse(readFileSync(linesFile, 'utf8')) as Json).lines as Json[];
    const problems: string[] = [];
    const external: string[] = [];
    const opened = await openOfflinePage(problems, external);
    if (!opened) this.skip();
    const { browser, page } = opened!;
    try {
      const open = async (hash: string) => {
        await page.goto('about:blank'); // a fresh load, not a same-document hash change
        await page.goto(`file://${report}${hash}`);
        await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 30000 });
      };
      await open('');
      expect(lines.length).to.be.greaterThan(0);
      expect(Number(await page.textContent('#lines-count'))).to.equal(lines.length);
      const ids = await page.$$eval('#lines-table tr.lx-row', (rs) => rs.map((r) => r.getAttribute('data-sample-id')));
      expect(ids).to.deep.equal(lines.slice(0, 50).map((l) => l.sample_id));
      await checkDeepLink(page, lines[0], open);
      expect(problems, 'console errors').to.deep.equal([]);
      expect(external, 'network requests').to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });
});

/** `#line=<id>` opens the line expanded: each diff rtl, its <del>/<ins> inside rtl, its edits those of lines.json. */
async function checkDeepLink(page: Page, line: Json, open: (hash: string) => Promise<void>): Promise<void> {
  await open(`#line=${encodeURIComponent(line.sample_id)}`);
  const detail = page.locator(`tr.lx-detail[data-detail-for="${line.sample_id}"]`);
  await detail.waitFor({ timeout: 10000 });
  const diffs = await detail.locator('.diff').evaluateAll((ds: Node[]) =>
    ds.map((d) => ({
      id: d.getAttribute('data-diff'),
      dir: d.getAttribute('dir'),
      spans: Array.from(d.querySelectorAll('del, ins')).map((x) => x.closest('[dir="rtl"]') !== null),
      edits: Array.from(d.querySelectorAll('[data-edits]')).reduce((a: number, x) => a + Number(x.getAttribute('data-edits')), 0),
    })),
  );
  const expected = ['ocr', ...Object.keys(line.arms).filter((a) => line.arms[a] !== null)];
  expect(diffs.map((d) => d.id)).to.have.members(expected);
  for (const d of diffs) {
    expect(d.dir, d.id!).to.equal('rtl');
    expect(d.spans.every(Boolean), d.id!).to.equal(true);
    expect(d.edits, d.id!).to.equal(d.id === 'ocr' ? line.ocr.edits : line.arms[d.id!].edits);
  }
  expect(
    diffs.reduce((a, d) => a + d.spans.length, 0),
    'diff spans',
  ).to.be.greaterThan(0);
}
