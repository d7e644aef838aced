import { expect } from 'chai';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { CHART_NAMES } from '../../../analysis/charts/specs';
import { renderReport } from '../../../analysis/report/report';
import { FIXTURES } from '../../helpers/shared-data';
import { CHROMIUM, CHROMIUM_ARGS } from '../../helpers/offline-page';

describe('analysis/report (report.md, self-contained report.html in headless Chromium)', function () {
  this.timeout(120000);
  let root: string;
  let ragDir: string;
  let browser: Browser | null = null;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'report-test-'));
    cpSync(path.join(FIXTURES, 'analysis', 'study'), root, { recursive: true });
    ragDir = path.join(root, 'phase5');
    await analyzeDesignFiles({
      ragDir,
      baselineDir: path.join(root, 'phase2'),
      meta: { model: 'toy/llm', embedding_model: 'intfloat/multilingual-e5-small', top_k: 3, corpus_size: 1234 },
      datasetInfo: { 'TOY-A': { excluded: false, sourcePattern: '0276IbnQutayba.Adab*' } },
      bootstrap: { iterations: 200, seed: 3 },
      progress: 'silent',
      maxFailedShare: 1, // the toy study's deliberate failed lines are under test here, not the validity mark
    });
  });
  after(async () => {
    await browser?.close();
    // Keep the folder (screenshot) when asked to, for a look by eye.
    if (!process.env.KEEP_REPORT_TEST) rmSync(root, { recursive: true, force: true });
  });

  it('writes report.md with the main table, leakage lines and chart images', () => {
    const md = readFileSync(path.join(ragDir, 'report.md'), 'utf8');
    expect(md).to.match(/^# Report: RAG \(OpenITI\) vs zero-shot/);
    expect(md).to.include('| TOY-A | 6 | 12.50% | 9.38% | 6.25% | −3.13 pp |');
    expect(md).to.include('LEAKAGE: source book NOT excluded');
    expect(md).to.include('SECONDARY metrics under the normalisation profile no_diacritics: NFC; tashkeel');
    // Every profile side by side, the primary marked, each with its rules.
    expect(md).to.include('## Normalisation profiles');
    expect(md).to.include('| nfc (primary) | 14.29% | 7.14% | 10.26% | −5.13 pp |');
    expect(md).to.include('| no_diacritics | 11.90% | 7.14% | 7.69% | −2.56 pp |');
    expect(md).to.include('graphemes: NFC; CER over extended grapheme clusters');
    for (const n of CHART_NAMES) {
      expect(md).to.include(`(charts/${n}.png)`);
      expect(statSync(path.join(ragDir, 'charts', `${n}.png`)).size).to.be.greaterThan(1000);
      expect(readFileSync(path.join(ragDir, 'charts', `${n}.svg`), 'utf8')).to.match(/^<svg/);
    }
  });

  it('report.html needs nothing from the network', () => {
    const html = readFileSync(path.join(ragDir, 'report.html'), 'utf8');
    expect(html).to.not.match(/<script[^>]+src=/i);
    expect(html).to.not.match(/<link[^>]+href=/i);
    expect(html).to.not.match(/https?:\/\/(?!www\.w3\.org|vega\.github\.io)/);
  });

  it('renderReport alone regenerates the same report from the documents on disk', async () => {
    const before = readFileSync(path.join(ragDir, 'report.html'));
    const r = await renderReport(ragDir);
    expect(r.files).to.include.members(['report.md', 'report.html', 'charts/confusions.svg']);
    expect(readFileSync(path.join(ragDir, 'report.html')).equals(before)).to.equal(true);
  });

  it('renders every chart from file:// with no console errors', async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    (skipped: ${CHROMIUM} not found; install Debian "chromium" or set CHROMIUM_PATH)`);
      this.skip();
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 90000 });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const external: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
      external.push(url);
      return route.abort();
    });
    await page.goto(`file://${path.join(ragDir, 'report.html')}`);
    await page.waitForSelector('body[data-charts-rendered="true"]', { timeout: 60000 });

    const charts = await page.$$eval('.vega[data-chart]', (els) =>
      els.map((el) => ({
        name: el.getAttribute('data-chart'),
        rendered: el.getAttribute('data-rendered'),
        error: el.getAttribute('data-error'),
        svgs: el.querySelectorAll(':scope > svg').length,
        marks: el.querySelectorAll('svg .role-mark').length,
        text: Array.from(el.querySelectorAll('svg text'))
          .map((t) => (t as { textContent: string | null }).textContent ?? '')
          .join(' '),
      })),
    );
    expect(charts.map((c) => c.name)).to.deep.equal([...CHART_NAMES]);
    for (const c of charts) {
      expect(c.error, `${c.name}: ${c.error}`).to.equal(null);
      expect(c.rendered, c.name).to.equal('true');
      expect(c.svgs, c.name).to.equal(1);
      expect(c.marks, c.name).to.be.greaterThan(0);
    }
    // Arabic gold/output characters are drawn as text in the confusion chart.
    expect(charts.find((c) => c.name === 'confusions')!.text).to.match(/[\u0600-\u06FF]/);
    const shot = path.join(root, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).to.be.greaterThan(10000);
    if (process.env.KEEP_REPORT_TEST) console.log(`    screenshot: ${shot}`);
    expect(problems).to.deep.equal([]);
    expect(external).to.deep.equal([]);
  });
});
