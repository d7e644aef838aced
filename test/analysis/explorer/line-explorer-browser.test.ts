/**
 * The report's Lines view in headless Chromium, on a real analysis run of the toy study plus a third,
 * guarded arm: the count matches lines.json / metrics.json, band filter, ΔCER sort, deep links, the diff
 * spans with dir="rtl", the raw output a guard changed, the text search, the lines read from the side files
 * of report-lines/ (a notice when they are missing), and no console errors or network requests.
 */
import { expect } from 'chai';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { openOfflinePage } from '../../helpers/offline-page';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { renderReport } from '../../../analysis/report/report';
import { diffSides } from '../../../analysis/lines/diff';
import { FIXTURES } from '../../helpers/shared-data';

/** Where the screenshot of the expanded view is kept for a look by eye. */
const SHOT = path.join(os.tmpdir(), 'line-explorer-expanded.png');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** The DOM surface the page-side callbacks use (the project compiles without the DOM lib). */
interface Node {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(sel: string): ArrayLike<Node>;
}

/** A third arm from the rag corrections: a6's over-long raw output trimmed back to the gold by a guard. */
function writeGuardedArm(root: string): string {
  const dir = path.join(root, 'arms', 'guarded');
  mkdirSync(dir, { recursive: true });
  const recs = readFileSync(path.join(root, 'phase5', 'corrections.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
  const out = recs.map((r) =>
    r.sample_id === 'a6'
      ? { ...r, corrected_text: 'رجل', raw_output: 'رجل قال كلاما طويلا', raw_text: 'رجل قال كلاما طويلا', guard: 'trimmed' }
      : { ...r, raw_text: r.raw_output, guard: 'kept' },
  );
  const file = path.join(dir, 'corrections.jsonl');
  writeFileSync(file, out.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

describe('analysis/explorer: the Lines view of report.html in headless Chromium', function () {
  this.timeout(180000);
  let root: string;
  let ragDir: string;
  let lines: Json;
  let metrics: Json;
  let browser: Browser | null = null;
  let page: Page;
  const problems: string[] = [];
  const external: string[] = [];

  before(async function () {
    root = mkdtempSync(path.join(os.tmpdir(), 'line-explorer-'));
    cpSync(path.join(FIXTURES, 'analysis', 'study'), root, { recursive: true });
    ragDir = path.join(root, 'phase5');
    await analyzeDesignFiles({
      ragDir,
      baselineDir: path.join(root, 'phase2'),
      datasetInfo: { 'TOY-A': { excluded: false, sourcePattern: '0276IbnQutayba.Adab*' } },
      lines: {
        arms: [{ name: 'guarded', correctionsPath: writeGuardedArm(root), inferenceInputPath: path.join(ragDir, 'inference_input.jsonl') }],
      },
      bootstrap: { iterations: 50, seed: 3 },
      progress: 'silent',
      maxFailedShare: 1,
      report: { png: false },
    });
    lines = JSON.parse(readFileSync(path.join(ragDir, 'lines.json'), 'utf8'));
    metrics = JSON.parse(readFileSync(path.join(ragDir, 'metrics.json'), 'utf8'));
    const opened = await openOfflinePage(problems, external);
    if (!opened) return;
    ({ browser, page } = opened);
  });
  after(async () => {
    await browser?.close();
    if (!process.env.KEEP_REPORT_TEST) rmSync(root, { recursive: true, force: true });
  });

  const needBrowser = (ctx: Mocha.Context) => {
    if (!browser) ctx.skip();
  };
  const url = (hash = '') => `file://${path.join(ragDir, 'report.html')}${hash}`;
  async function open(hash = '') {
    await page.goto('about:blank');
    await page.goto(url(hash));
    await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 60000 });
  }
  const count = async () => Number(await page.textContent('#lines-count'));
  const rowIds = () => page.$$eval('#lines-table tr.lx-row', (rs) => rs.map((r) => r.getAttribute('data-sample-id')));
  const linesWhere = (f: (l: Json) => boolean) => (lines.lines as Json[]).filter(f);

  it('lines.json has every analysed line with every arm (the count of metrics.json)', () => {
    expect(lines.meta.num_lines).to.equal(metrics.meta.num_samples);
    expect(lines.lines).to.have.length(9);
    expect(lines.meta.arms.map((a: Json) => a.name)).to.deep.equal(['rag', 'zero_shot', 'guarded']);
    expect(lines.meta.baseline).to.equal('zero_shot');
    const sum = (arm: string) => linesWhere(() => true).reduce((a, l) => a + l.arms[arm].edits, 0);
    expect(sum('rag')).to.equal(metrics.overall.corrected.char_edits);
  });

  it('opens with every line counted, rows carrying data-sample-id, from file:// with no network', async function () {
    needBrowser(this);
    await open();
    expect(await count()).to.equal(metrics.meta.num_samples);
    expect(await rowIds()).to.deep.equal(linesWhere(() => true).map((l) => l.sample_id));
    expect(await page.$$eval('#lines-table thead th', (t) => t.map((x) => x.getAttribute('data-sort')))).to.include.members([
      'delta:rag',
      'cer:guarded',
      'guard',
    ]);
  });

  it('filters by band (the count matches lines.json) and sorts by ΔCER both ways, nulls last', async function () {
    needBrowser(this);
    await open();
    await page.selectOption('#lines-band', '10–20%');
    const inBand = linesWhere((l) => l.band === '10–20%');
    expect(inBand.length).to.be.greaterThan(1);
    expect(await count()).to.equal(inBand.length);
    expect(new Set(await rowIds())).to.deep.equal(new Set(inBand.map((l) => l.sample_id)));
    await page.selectOption('#lines-band', '');
    await page.click('th[data-sort="delta:rag"]');
    const deltas = async () => page.$$eval('#lines-table tr.lx-row', (rs) => rs.map((r) => r.children[6].getAttribute('data-value')));
    const asc = await deltas();
    const nums = asc.filter((v) => v !== '').map(Number);
    expect(nums).to.deep.equal([...nums].sort((a, b) => a - b));
    expect(asc.slice(nums.length).every((v) => v === '')).to.equal(true); // b2 has no zero_shot line: last
    expect(nums[0]).to.be.lessThan(0);
    await page.click('th[data-sort="delta:rag"]');
    const desc = (await deltas()).filter((v) => v !== '').map(Number);
    expect(desc).to.deep.equal([...nums].sort((a, b) => b - a));
  });

  it('#arm=<name>&band=<band> applies the filters', async function () {
    needBrowser(this);
    await open(`#arm=zero_shot&band=${encodeURIComponent('>20%')}`);
    expect(await page.inputValue('#lines-arm')).to.equal('zero_shot');
    expect(await page.inputValue('#lines-band')).to.equal('>20%');
    expect(await count()).to.equal(linesWhere((l) => l.band === '>20%' && l.arms.zero_shot !== null).length);
  });

  it('#line=<sample_id> opens the line expanded: rtl diffs with <del>/<ins> of the counted edits, retrieved sources', async function () {
    needBrowser(this);
    await open('#line=a3');
    const detail = page.locator('tr.lx-detail[data-detail-for="a3"]');
    await detail.waitFor();
    const diffs = await detail.locator('.diff').evaluateAll((ds: Node[]) =>
      ds.map((d) => ({
        id: d.getAttribute('data-diff'),
        dir: d.getAttribute('dir'),
        text: d.textContent,
        del: Array.from(d.querySelectorAll('del')).map((x) => x.textContent),
        ins: Array.from(d.querySelectorAll('ins')).map((x) => x.textContent),
        edits: Array.from(d.querySelectorAll('[data-edits]')).reduce((a: number, x) => a + Number(x.getAttribute('data-edits')), 0),
      })),
    );
    expect(diffs.map((d) => d.id)).to.deep.equal(['ocr', 'rag', 'zero_shot', 'guarded']);
    for (const d of diffs) expect(d.dir).to.equal('rtl');
    const ocr = diffs[0];
    expect(ocr).to.include({ edits: 1 });
    expect(ocr.del).to.deep.equal(['ي']);
    expect(ocr.ins).to.deep.equal(['ب']);
    expect(diffs[1]).to.include({ edits: 0, text: 'قال الشيخ' });
    const a3 = linesWhere((l) => l.sample_id === 'a3')[0];
    diffs.slice(1).forEach((d) => expect(d.edits).to.equal(a3.arms[d.id!].edits));
    expect(await detail.textContent())
      .to.include('0255Jahiz.Hayawan.X-ara1')
      .and.include('score 0.650');
    await page.evaluate('document.fonts.ready.then(() => true)');
    await page.locator('#lines-view').screenshot({ path: SHOT });
    expect(statSync(SHOT).size).to.be.greaterThan(10000);
    console.log(`    screenshot of the expanded view: ${SHOT}`);
  });

  it('shows the raw model output where the guard changed it, the guard decision and own-source hits', async function () {
    needBrowser(this);
    await open('#line=a6&arm=guarded');
    const detail = page.locator('tr.lx-detail[data-detail-for="a6"]');
    await detail.waitFor();
    const text = await detail.textContent();
    expect(text).to.include('guard: trimmed').and.include('رجل قال كلاما طويلا').and.include("from the dataset's source book");
    expect(await page.$$eval('tr.lx-detail .raw', (r) => r.map((x) => x.getAttribute('dir')))).to.deep.equal(['rtl']);
  });

  const notice = async () => ((await page.isVisible('#lines-notice')) ? page.textContent('#lines-notice') : null);
  const expanded = () => page.$$eval('tr.lx-detail', (ds) => ds.map((d) => d.getAttribute('data-detail-for')));

  it('#line=<id> of a line the chosen arm lacks switches to an arm that has it and says so (b2 has no zero_shot line)', async function () {
    needBrowser(this);
    await open(`#line=b2&arm=zero_shot&band=${encodeURIComponent('>20%')}`);
    expect(await expanded()).to.deep.equal(['b2']);
    expect(await page.inputValue('#lines-arm')).to.equal('rag');
    expect(await notice()).to.include('b2 has no zero_shot output: showing arm rag');
    expect(await page.textContent('#lines-page')).to.match(/page 1 of 1$/);
  });

  it('a link with unknown values ignores them with a one-line notice naming each; the dropdowns show what applies', async function () {
    needBrowser(this);
    await open('#band=nonsense');
    expect(await count()).to.equal(linesWhere((l) => l.arms.rag !== null).length);
    expect(await page.inputValue('#lines-band')).to.equal('');
    expect(await notice()).to.equal('unknown band "nonsense" in the link: ignored');
    await open('#arm=nope&dataset=NOPE&outcome=maybe&guard=zzz&band=nonsense');
    expect(await count()).to.equal(linesWhere((l) => l.arms.rag !== null).length);
    expect(await page.inputValue('#lines-arm')).to.equal('rag');
    for (const id of ['#lines-dataset', '#lines-outcome', '#lines-guard']) expect(await page.inputValue(id)).to.equal('');
    const text = (await notice())!;
    for (const v of ['arm "nope"', 'dataset "NOPE"', 'outcome "maybe"', 'guard "zzz"', 'band "nonsense"'])
      expect(text).to.include(`unknown ${v}`);
    expect(text).to.not.include('\n');
    await page.selectOption('#lines-band', '10–20%');
    expect(await notice()).to.equal(null); // a control changed: the link's notice is gone
  });

  it('going to a hash without line= collapses the expanded line; an unknown line says so', async function () {
    needBrowser(this);
    await open('#line=a3');
    expect(await expanded()).to.deep.equal(['a3']);
    await page.evaluate(`location.hash = '#arm=rag&band=${encodeURIComponent('10–20%')}'`);
    await page.waitForSelector('tr.lx-detail', { state: 'detached' });
    expect(await page.inputValue('#lines-band')).to.equal('10–20%');
    expect(await count()).to.equal(linesWhere((l) => l.band === '10–20%' && l.arms.rag !== null).length);
    await page.evaluate(`location.hash = '#line=nosuch'`);
    await page.waitForFunction('document.getElementById("lines-notice").hidden === false');
    expect(await notice()).to.equal('line "nosuch" is not in this report');
    expect(await expanded()).to.deep.equal([]);
    expect(await page.inputValue('#lines-band')).to.equal('');
  });

  it('report.html holds the index, not the lines: a retrieved source is only in the side files of report-lines/', () => {
    const html = readFileSync(path.join(ragDir, 'report.html'), 'utf8');
    const embedded = gunzipSync(Buffer.from(/id="lines-index"[^>]*>([^<]*)</.exec(html)![1], 'base64')).toString('utf8');
    expect(Object.keys(JSON.parse(embedded).columns)).to.deep.equal([
      'dataset',
      'sample_id',
      'band',
      'ref_chars',
      'ocr_edits',
      'arms',
      'guards',
    ]);
    expect(embedded).to.not.include('0255Jahiz.Hayawan.X-ara1');
    const side = readdirSync(path.join(ragDir, 'report-lines'));
    expect(side).to.deep.equal(['lines-0000.js', 'text-0000.js']);
    expect(readFileSync(path.join(ragDir, 'report-lines', 'lines-0000.js'), 'utf8')).to.match(
      /^openitiLinesChunk\("[0-9a-f]{16}","lines",0,"/,
    );
  });

  it('searches gold, OCR and sample_id (the texts read from their side file): typed, and from #q=', async function () {
    needBrowser(this);
    const having = (q: string) =>
      linesWhere(
        (l) => l.arms.rag !== null && (l.sample_id.includes(q) || Object.values(diffSides(l.ocr.diff)).some((t) => String(t).includes(q))),
      );
    await open();
    await page.fill('#lines-q', 'الشيخ');
    await page.waitForFunction(`document.getElementById('lines-count').textContent === '${having('الشيخ').length}'`);
    expect(having('الشيخ').length).to.be.within(1, 8);
    expect(await rowIds()).to.deep.equal(having('الشيخ').map((l) => l.sample_id));
    await open(`#arm=rag&q=${encodeURIComponent('b')}`);
    expect(await page.inputValue('#lines-q')).to.equal('b');
    expect(await rowIds()).to.deep.equal(having('b').map((l) => l.sample_id));
  });

  it('without its report-lines/ folder (or with one of another render) the table still works and a notice says why a line does not open', async function () {
    needBrowser(this);
    const alone = mkdtempSync(path.join(os.tmpdir(), 'line-explorer-alone-'));
    const before = problems.length;
    try {
      cpSync(path.join(ragDir, 'report.html'), path.join(alone, 'report.html'));
      const openAlone = async (hash: string) => {
        await page.goto('about:blank');
        await page.goto(`file://${path.join(alone, 'report.html')}${hash}`);
        await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 60000 });
      };
      await openAlone('#line=a3');
      expect(await count()).to.equal(linesWhere((l) => l.arms.rag !== null).length);
      expect(await expanded()).to.deep.equal([]);
      expect(await notice()).to.equal('could not read report-lines/lines-0000.js: keep the folder report-lines/ beside report.html');
      mkdirSync(path.join(alone, 'report-lines'));
      writeFileSync(path.join(alone, 'report-lines', 'lines-0000.js'), 'openitiLinesChunk("0000000000000000","lines",0,"");\n');
      await openAlone('#line=a3');
      expect(await expanded()).to.deep.equal([]);
      expect(await notice()).to.include('report-lines/lines-0000.js belongs to another render of this report');
    } finally {
      problems.splice(before); // the refused file is a console error here, and only here
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it("#arm=<name>&context=… filters the arm's lines by gold passage in context (lines.json gold_in_context)", async function () {
    needBrowser(this);
    const withCtx = mkdtempSync(path.join(os.tmpdir(), 'line-explorer-context-'));
    try {
      cpSync(ragDir, withCtx, { recursive: true });
      // The first two rag lines held their gold passage, the others did not; other arms carry no flag.
      const doc = JSON.parse(readFileSync(path.join(withCtx, 'lines.json'), 'utf8')) as Json;
      let k = 0;
      for (const l of doc.lines as Json[]) if (l.arms.rag) l.arms.rag.gold_in_context = k++ < 2;
      writeFileSync(path.join(withCtx, 'lines.json'), JSON.stringify(doc));
      await renderReport(withCtx, { png: false });
      const openCtx = async (hash: string) => {
        await page.goto('about:blank');
        await page.goto(`file://${path.join(withCtx, 'report.html')}${hash}`);
        await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 60000 });
      };
      await openCtx(`#arm=rag&context=${encodeURIComponent('in context')}`);
      expect(await page.inputValue('#lines-context')).to.equal('in context');
      expect(await count()).to.equal(2);
      await openCtx(`#arm=rag&context=${encodeURIComponent('not in context')}`);
      expect(await count()).to.equal(k - 2);
      // An arm without the flag has no line in either class.
      await openCtx(`#arm=zero_shot&context=${encodeURIComponent('in context')}`);
      expect(await count()).to.equal(0);
    } finally {
      rmSync(withCtx, { recursive: true, force: true });
    }
  });

  it('had no console errors and made no network request', function () {
    needBrowser(this);
    expect(problems).to.deep.equal([]);
    expect(external).to.deep.equal([]);
  });
});
