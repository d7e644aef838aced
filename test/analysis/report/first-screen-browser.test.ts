/**
 * The report's first screen in headless Chromium (1280 × 1000): the answer sentences, one per planned contrast,
 * and the forest plot come before any table and both start on the first screen — for the default study (rag vs
 * zero_shot, as `phase5 demo` runs it, with intervals), for a study of arms (the arms demo's kinds of arm) and for
 * the report of `phase5 score` on the HIPE-OCRepair fixture (test/fixtures/hipe-ocrepair/, two systems vs the OCR). A
 * screenshot of each first screen is saved in the test's folder (KEEP_REPORT_TEST=1 keeps it and prints its path).
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { scoreFiles } from '../../../analysis/outside/score-files';
import { openOfflinePage } from '../../helpers/offline-page';
import { REPO_ROOT } from '../../helpers/shared-data';
import { analyzeArmsLinesTree } from '../arms-fixture';
import { runDefaultStudy } from '../default-arms-study';

type Box = { top: number; bottom: number };
const VIEWPORT_HEIGHT = 1000;

describe('analysis/report: the first screen leads with the answer (headless Chromium)', function () {
  this.timeout(600000);
  let root: string;
  let browser: Browser | null = null;
  let page: Page;
  const problems: string[] = [];
  const external: string[] = [];

  before(async function () {
    root = mkdtempSync(path.join(os.tmpdir(), 'first-screen-'));
    await runDefaultStudy(path.join(root, 'default'), ['D1', 'D2'], undefined, {
      report: { png: false },
      reportDir: path.join(root, 'default', 'study'),
    });
    await analyzeArmsLinesTree(path.join(root, 'arms'));
    const fix = path.join(REPO_ROOT, 'test', 'fixtures', 'hipe-ocrepair');
    await scoreFiles({
      resultsDir: path.join(root, 'score'),
      references: [path.join(fix, 'reference.jsonl')],
      systems: ['system_a', 'system_b'].map((name) => ({ name, file: path.join(fix, `${name}.jsonl`) })),
      normalization: { primary: 'hipe2026', secondary: [] },
      bootstrap: { iterations: 200 },
    });
    const opened = await openOfflinePage(problems, external);
    if (opened) ({ browser, page } = opened);
  });
  after(async () => {
    await browser?.close();
    if (process.env.KEEP_REPORT_TEST) console.log(`    screenshots in ${root}`);
    else rmSync(root, { recursive: true, force: true });
  });

  /** Open a study's report, shoot its first screen, and return the boxes of the answer, the forest plot and the first table. */
  async function firstScreen(study: string) {
    // Waits for events, with limits for a machine loaded many times over (docs/contributing.md#tests-under-load).
    await page.goto(`file://${path.join(root, study, 'study', 'report.html')}`, { timeout: 180000 });
    await page.waitForSelector('body[data-charts-rendered="true"]', { timeout: 180000 });
    const shot = path.join(root, `${study}-first-screen.png`);
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).to.be.greaterThan(20000);
    const box = (sel: string) =>
      page.$eval(sel, (el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom }; // the page is not scrolled: these are its document positions
      }) as Promise<Box>;
    const sentences = await page.$$eval('#answer-sentences li', (els) =>
      els.map((e) => (e as { textContent: string | null }).textContent ?? ''),
    );
    const forestRendered = await page.getAttribute('#chart-arms_forest .vega', 'data-rendered');
    return {
      sentences,
      answer: await box('#answer-sentences'),
      forest: await box('#chart-arms_forest'),
      table: await box('table'),
      forestRendered,
    };
  }

  function expectOrder(s: { answer: Box; forest: Box; table: Box }) {
    expect(s.answer.bottom).to.be.at.most(s.forest.top);
    expect(s.forest.bottom).to.be.at.most(s.table.top);
    expect(s.answer.bottom, 'the sentences are on the first screen').to.be.below(VIEWPORT_HEIGHT);
    expect(s.forest.top, 'the forest plot starts on the first screen').to.be.below(VIEWPORT_HEIGHT);
  }

  it('the default study: a sentence per planned contrast with its interval and meaning, then the forest plot, then the tables', async function () {
    if (!browser) this.skip();
    const s = await firstScreen('default');
    const arms = JSON.parse(readFileSync(path.join(root, 'default', 'study', 'arms.json'), 'utf8'));
    expect(s.sentences).to.have.length(arms.contrasts.length).and.have.length.above(0);
    const c = arms.contrasts.find((x: { arm: string; vs: string }) => x.arm === 'rag' && x.vs === 'zero_shot');
    expect(c.ci, 'the fixture has enough clusters for intervals').to.be.an('array');
    const rag = s.sentences.find((t) => t.startsWith('rag − zero_shot'))!;
    expect(rag).to.match(/ΔCER −\d+\.\d\d pp \[[−+]\d+\.\d\d, [−+]\d+\.\d\d pp\], p \(Holm\) [\d.<]+/);
    // What it means follows from the interval: rag fixes 2 lines in 3, zero_shot 1 in 4.
    expect(c.ci[1]).to.be.below(0);
    expect(rag).to.include('rag makes fewer character errors than zero_shot');
    expect(s.forestRendered).to.equal('true');
    expectOrder(s);
  });

  it('a study of arms (zero_shot, rag, rag_k1, oracle †): the same order; too few clusters said once per sentence', async function () {
    if (!browser) this.skip();
    const s = await firstScreen('arms');
    const arms = JSON.parse(readFileSync(path.join(root, 'arms', 'study', 'arms.json'), 'utf8'));
    expect(s.sentences).to.have.length(arms.contrasts.length);
    expect(s.sentences.every((t) => t.includes('too few clusters to say'))).to.equal(true);
    expect(s.sentences.some((t) => t.startsWith('oracle − zero_shot † (upper bound, not a finding)'))).to.equal(true);
    expectOrder(s);
  });

  it('the phase5 score report (HIPE-OCRepair fixture): a sentence per system vs the OCR, then the forest plot, then the tables', async function () {
    if (!browser) this.skip();
    const s = await firstScreen('score');
    const arms = JSON.parse(readFileSync(path.join(root, 'score', 'study', 'arms.json'), 'utf8'));
    expect(arms.contrasts.map((c: { arm: string; vs: string }) => `${c.arm} − ${c.vs}`)).to.deep.equal([
      'system_a − ocr',
      'system_b − ocr',
    ]);
    expect(s.sentences).to.have.length(2);
    for (const [i, name] of ['system_a', 'system_b'].entries())
      expect(s.sentences[i]).to.match(new RegExp(`^${name} − ocr \\(9 paired lines\\): ΔCER `));
    expect(s.forestRendered).to.equal('true');
    expectOrder(s);
  });

  it('had no console errors and made no network request', function () {
    if (!browser) this.skip();
    expect(problems).to.deep.equal([]);
    expect(external).to.deep.equal([]);
  });
});
