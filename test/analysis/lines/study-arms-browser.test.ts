/**
 * The arms-only study report (<results>/study/report.html) in headless Chromium: `#arm=<study arm>&band=<band>`
 * applies the filters with the count of lines.json, `#line=` opens a line with every arm's diff, the arm's own
 * retrieved sentences, the guard and raw output, the upper bound marked; no console errors, no network.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openOfflinePage } from '../../helpers/offline-page';
import { ARM_LINES, analyzeArmsLinesTree } from '../arms-fixture';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Node {
  textContent: string | null;
  getAttribute(name: string): string | null;
}

describe("analysis/arms-lines: the arms-only study report's Lines view in headless Chromium", function () {
  this.timeout(180000);
  let root: string;
  let lines: Json;
  let browser: Browser | null = null;
  let page: Page;
  const problems: string[] = [];
  const external: string[] = [];

  before(async function () {
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-lines-browser-'));
    await analyzeArmsLinesTree(root);
    lines = JSON.parse(readFileSync(path.join(root, 'study', 'lines.json'), 'utf8'));
    const opened = await openOfflinePage(problems, external);
    if (!opened) return;
    ({ browser, page } = opened);
  });
  after(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const needBrowser = (ctx: Mocha.Context) => {
    if (!browser) ctx.skip();
  };
  async function open(hash: string) {
    await page.goto('about:blank');
    await page.goto(`file://${path.join(root, 'study', 'report.html')}${hash}`);
    await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 60000 });
  }
  const count = async () => Number(await page.textContent('#lines-count'));
  const rowIds = () => page.$$eval('#lines-table tr.lx-row', (rs) => rs.map((r) => r.getAttribute('data-sample-id')));
  const where = (arm: string, band: string) => (lines.lines as Json[]).filter((l) => l.band === band && l.arms[arm] !== null);

  it('#arm=rag_k1&band=10–20% applies both filters; the count matches lines.json (l5 has no rag_k1 line)', async function () {
    needBrowser(this);
    await open(`#arm=rag_k1&band=${encodeURIComponent('10–20%')}`);
    expect(await page.inputValue('#lines-arm')).to.equal('rag_k1');
    expect(await page.inputValue('#lines-band')).to.equal('10–20%');
    const expected = where('rag_k1', '10–20%');
    expect(expected.map((l) => l.sample_id)).to.deep.equal(['l1']);
    expect(await count()).to.equal(expected.length);
    expect(await rowIds()).to.deep.equal(['l1']);
    await open(`#arm=oracle&band=${encodeURIComponent('>20%')}`);
    expect(await count()).to.equal(where('oracle', '>20%').length);
    expect(await page.textContent('#lines-arm option[value="oracle"]')).to.equal('oracle † (upper bound)');
    expect(await page.textContent('th[data-sort="cer:oracle"]')).to.equal('oracle † CER');
  });

  it("#line=l2 opens the line: every arm's diff, rag's own retrieved sentences, its guard and raw output, the upper bound", async function () {
    needBrowser(this);
    await open('#line=l2&arm=rag');
    const detail = page.locator('tr.lx-detail[data-detail-for="l2"]');
    await detail.waitFor();
    const diffs = await detail.locator('.diff').evaluateAll((ds: Node[]) => ds.map((d) => d.getAttribute('data-diff')));
    expect(diffs).to.deep.equal(['ocr', 'oracle', 'rag', 'rag_k1', 'zero_shot']);
    const text = (await detail.textContent())!;
    expect(text).to.include('guard: trimmed').and.include(`Here: ${ARM_LINES.D1[1].gt}`);
    expect(text).to.include('0255Jahiz.rag.X-ara1').and.include('0255Jahiz.oracle.X-ara1').and.include('score 0.910');
    expect(text).to.include('upper bound: retrieved with the gold line as the query');
    expect(text).to.not.include('zero_shot: retrieved sentences');
  });

  const notice = async () => ((await page.isVisible('#lines-notice')) ? page.textContent('#lines-notice') : null);

  it('#line=l5 (no arm corrected it) opens it expanded under "all lines", says so, on page 1', async function () {
    needBrowser(this);
    for (const hash of ['#line=l5', `#line=l5&arm=rag&band=${encodeURIComponent('>20%')}`]) {
      await open(hash);
      expect(await page.$$eval('tr.lx-detail', (ds) => ds.map((d) => d.getAttribute('data-detail-for'))), hash).to.deep.equal(['l5']);
      expect(await page.inputValue('#lines-arm')).to.equal('*');
      expect(await notice()).to.include('no arm corrected line l5: showing all lines');
      expect(await page.textContent('#lines-page')).to.equal('· page 1 of 1');
      expect(await rowIds()).to.include('l5');
      expect(await page.isDisabled('#lines-outcome')).to.equal(true);
    }
    expect(await page.textContent('tr.lx-detail[data-detail-for="l5"]')).to.include('no line for this sample');
  });

  it('#arm=* lists every analysed line, those no arm corrected too (the count of lines.json)', async function () {
    needBrowser(this);
    await open('#arm=*');
    expect(await count()).to.equal(lines.lines.length);
    expect(await rowIds()).to.deep.equal((lines.lines as Json[]).map((l) => l.sample_id));
    expect(await notice()).to.equal(null);
    await open('#arm=*&outcome=improved');
    expect(await count()).to.equal(lines.lines.length);
    expect(await notice()).to.include('outcome, guard and context filters apply to one arm'); // the study arms carry gold_in_context
    await page.selectOption('#lines-arm', 'rag');
    expect(await page.isDisabled('#lines-outcome')).to.equal(false);
    expect(await count()).to.equal((lines.lines as Json[]).filter((l) => l.arms.rag !== null).length);
  });

  it('had no console errors and made no network request', function () {
    needBrowser(this);
    expect(problems).to.deep.equal([]);
    expect(external).to.deep.equal([]);
  });
});
