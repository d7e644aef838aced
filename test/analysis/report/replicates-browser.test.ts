/**
 * The Lines view of a study with replicates in headless Chromium: `#arm=rep&replicates=disagree` lists the lines
 * whose replicates scored different texts (the count of lines.json), and the expanded line shows every
 * replicate's text; no console errors, no network.
 */
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { run } from '../../../analysis/stage';
import { openOfflinePage } from '../../helpers/offline-page';
import { writeReplicatesTree } from '../replicates-fixture';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('analysis: the Lines view shows the lines whose replicates disagree (headless Chromium)', function () {
  this.timeout(180000);
  let root: string;
  let lines: Json[];
  let browser: Browser | null = null;
  let page: Page;
  const problems: string[] = [];
  const external: string[] = [];

  before(async function () {
    root = writeReplicatesTree([0, 1, 2]);
    await run(
      {
        ragDir: path.join(root, 'phase5'),
        bootstrap: { iterations: 50, seed: 1 },
        report: { png: false },
        logFile: false,
        arms: { resultsDir: root, baseline: 'base' },
      },
      {},
      'silent',
    );
    lines = JSON.parse(readFileSync(path.join(root, 'study', 'lines.json'), 'utf8')).lines as Json[];
    const opened = await openOfflinePage(problems, external);
    if (opened) ({ browser, page } = opened);
  });
  after(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function open(hash: string) {
    await page.goto('about:blank');
    await page.goto(`file://${path.join(root, 'study', 'report.html')}${hash}`);
    await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 60000 });
  }

  it('#arm=rep&replicates=disagree: the lines whose replicates differ; agree: the others; the filter is offered', async function () {
    if (!browser) this.skip();
    const disagree = lines.filter((l) => l.arms.rep.replicates_disagree === true);
    expect(disagree).to.have.length(20);
    await open('#arm=rep&replicates=disagree');
    expect(await page.inputValue('#lines-replicates')).to.equal('disagree');
    expect(Number(await page.textContent('#lines-count'))).to.equal(disagree.length);
    await open('#arm=rep&replicates=agree');
    expect(Number(await page.textContent('#lines-count'))).to.equal(lines.length - disagree.length);
  });

  it("#line=l02 opens the line with each replicate's text", async function () {
    if (!browser) this.skip();
    await open('#line=l02&arm=rep');
    const detail = page.locator('tr.lx-detail[data-detail-for="l02"]');
    await detail.waitFor();
    const texts = await detail.locator('ol li').allTextContents();
    expect(texts).to.deep.equal(['abcdefghiX', 'abcdefghiX', 'abcdefghij']);
    expect(await detail.textContent()).to.include('rep: replicates disagree');
  });

  it('had no console errors and made no network request', function () {
    if (!browser) this.skip();
    expect(problems).to.deep.equal([]);
    expect(external).to.deep.equal([]);
  });
});
