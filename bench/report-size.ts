/**
 * Size and first render of report.html with the Lines view on the full OCR_GS set (5,092 lines).
 *
 *   npx tsx bench/report-size.ts [--input inference_input.jsonl] [--runs 3] [--keep] [--lines N] [--screenshot PATH]
 *   npx tsx bench/report-size.ts --report results/ocrgs-arms/study [--runs 3] [--screenshot PATH]   (an existing report)
 *
 * Inputs: a real export of every OCR_GS line (default `results/ocrgs-full/phase5/inference_input.jsonl`, with
 * its real retrieved sentences) and corrections made without an LLM — rag: the gold text on every third
 * line, the OCR text otherwise; zero_shot: the OCR text. Without that file, the same study from
 * ../shared/data/ocr-gs with stand-in retrieval (test/helpers/ocr-gs-study.ts). Prints the analysis time,
 * the sizes (report.html, the embedded Lines data, lines.json, report.md) against the README's budget,
 * and in headless Chromium (/usr/bin/chromium or CHROMIUM_PATH) the time from navigation to the first
 * rendered Lines page, and to a deep-linked expanded line, as the median of --runs. Exits 1 only when the
 * report is over the size budget. `--lines N` keeps the first N lines (a quick check; the budget is for the
 * full set); `--screenshot PATH` saves a PNG of the Lines view with one line expanded by its deep link.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { analyzeStudy } from '../analysis/analyze';
import { OCR_GS_ROOT, REPO_ROOT } from '../test/helpers/shared-data';
import { writeOcrGsStudy } from '../test/helpers/ocr-gs-study';

/** The README's budget for report.html on the 5,092-line set with two arms. */
const BUDGET_BYTES = 8 * 1024 * 1024;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const { values: args } = parseArgs({
  options: {
    input: { type: 'string', default: path.join(REPO_ROOT, 'results', 'ocrgs-full', 'phase5', 'inference_input.jsonl') },
    runs: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    lines: { type: 'string' },
    screenshot: { type: 'string' },
    report: { type: 'string' },
  },
});
const LIMIT = args.lines === undefined ? Infinity : Number(args.lines);
if (!(LIMIT > 0)) throw new Error(`--lines must be a positive number, got ${args.lines}`);
/** Rows on a page of the Lines view (lines.js PAGE_SIZE): the screenshot's line opens a page, under the controls. */
const PAGE_SIZE = 50;

type Rec = { sample_id: string; dataset: string; ocr_text: string; gt_text: string };

/** phase5/ (the export + rag corrections) and phase2/ (zero_shot) from a real inference_input.jsonl. */
function studyFromExport(root: string, input: string): { phase5Dir: string; phase2Dir: string } {
  const phase5Dir = path.join(root, 'phase5');
  const phase2Dir = path.join(root, 'phase2');
  mkdirSync(phase5Dir, { recursive: true });
  mkdirSync(phase2Dir, { recursive: true });
  const rows = readFileSync(input, 'utf8').trim().split('\n').slice(0, LIMIT);
  writeFileSync(path.join(phase5Dir, 'inference_input.jsonl'), rows.join('\n') + '\n');
  const recs = rows.map((l) => JSON.parse(l) as Rec);
  const correction = (r: Rec, text: string, prompt: string, version: string) => JSON.stringify({
    sample_id: r.sample_id, dataset: r.dataset, prompt_type: prompt, prompt_version: version, model: 'bench/none',
    ocr_text: r.ocr_text, gt_text: r.gt_text, corrected_text: text, raw_output: text, latency_ms: 0, prompt_tokens: 0, completion_tokens: 0, error: null,
  });
  writeFileSync(path.join(phase5Dir, 'corrections.jsonl'), recs.map((r, i) => correction(r, i % 3 === 0 ? r.gt_text : r.ocr_text, 'rag', 'p5v1')).join('\n') + '\n');
  writeFileSync(path.join(phase2Dir, 'corrections.jsonl'), recs.map((r) => correction(r, r.ocr_text, 'zero_shot', 'v1')).join('\n') + '\n');
  return { phase5Dir, phase2Dir };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** Navigation → first rendered Lines page, and → a deep-linked line expanded (ms, page clocks). */
async function renderTimes(browser: Browser, report: string, lineId: string, runs: number): Promise<{ first: number[]; deep: number[] }> {
  const first: number[] = [];
  const deep: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [hash, into] of [['', first], [`#line=${encodeURIComponent(lineId)}`, deep]] as const) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(`file://${report}${hash}`);
      await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 120000 });
      if (hash && (await page.$('tr.lx-detail')) === null) throw new Error(`${hash}: no line expanded`);
      into.push(Number(await page.getAttribute('body', 'data-lines-ms')));
      await page.close();
    }
  }
  return { first, deep };
}

/**
 * A PNG of the Lines view opened at `#line=<id>`: from the view's heading (controls, count) down to a few rows
 * below the expanded line — the line opens its page, so the whole page of rows is left out.
 */
async function screenshot(browser: Browser, report: string, lineId: string, file: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  try {
    await page.goto(`file://${report}#line=${encodeURIComponent(lineId)}`);
    await page.waitForSelector('body[data-lines-rendered="true"]', { timeout: 120000 });
    await page.waitForSelector(`tr.lx-detail[data-detail-for="${lineId}"]`);
    await page.evaluate('document.fonts.ready.then(() => true)');
    const clip = await page.evaluate(`(() => {
      const top = document.getElementById('lines-view').getBoundingClientRect().top + scrollY;
      const detail = document.querySelector('tr.lx-detail');
      let last = detail;
      for (let i = 0; i < 3 && last.nextElementSibling; i++) last = last.nextElementSibling;
      return { x: 0, y: top, width: document.documentElement.clientWidth, height: last.getBoundingClientRect().bottom + scrollY - top + 8 };
    })()`);
    mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file, fullPage: true, clip: clip as { x: number; y: number; width: number; height: number } });
  } finally {
    await page.close();
  }
}

/** Render times in headless Chromium (and the screenshot when asked for), or a line saying why not. */
async function inBrowser(report: string, doc: { lines: Array<{ sample_id: string }> }): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`(no render times${args.screenshot ? ' or screenshot' : ''}: ${CHROMIUM} not found)`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const runs = Number(args.runs);
    const t = await renderTimes(browser, report, doc.lines[Math.floor(doc.lines.length / 2)].sample_id, runs);
    console.log(`first render of the Lines view (navigation → first page drawn, median of ${runs}): ${median(t.first)} ms  [${t.first.join(', ')}]`);
    console.log(`deep link #line=… (navigation → line expanded, median of ${runs}): ${median(t.deep)} ms  [${t.deep.join(', ')}]`);
    if (args.screenshot) {
      const line = doc.lines[Math.floor(doc.lines.length / 2 / PAGE_SIZE) * PAGE_SIZE].sample_id;
      const file = path.resolve(args.screenshot);
      await screenshot(browser, report, line, file);
      console.log(`screenshot (#line=${line} expanded): ${file}`);
    }
  } finally {
    await browser.close();
  }
}

/** Sizes of a report folder (report.html, its embedded Lines data, lines.json, report.md) against the budget; the html's size. */
function printSizes(dir: string): { htmlBytes: number; doc: { lines: Array<{ sample_id: string }>; meta: { arms: unknown[] } } } {
  const size = (f: string) => statSync(path.join(dir, f)).size;
  const htmlBytes = size('report.html');
  const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
  const embedded = /id="lines-data"[^>]*>([^<]*)</.exec(html)?.[1].length ?? 0;
  const doc = JSON.parse(readFileSync(path.join(dir, 'lines.json'), 'utf8'));
  console.log(`lines: ${doc.lines.length} × ${doc.meta.arms.length} arms`);
  console.log(`report.html: ${mb(htmlBytes)} (budget ${mb(BUDGET_BYTES)}) — Lines data embedded: ${mb(embedded)} (gzip + base64 of lines.json ${mb(size('lines.json'))})`);
  console.log(`report.md: ${(size('report.md') / 1024).toFixed(1)} KB`);
  return { htmlBytes, doc };
}

/** The two-arm study of the budget, analysed here from a real export (or the stand-in); returns its phase5 folder. */
async function analysedStudy(root: string): Promise<string> {
  const real = existsSync(args.input!);
  const dirs = real ? studyFromExport(root, args.input!) : writeOcrGsStudy(root, OCR_GS_ROOT, LIMIT);
  const first = LIMIT < Infinity ? ` (first ${LIMIT} lines only: not the budget's set)` : '';
  console.log(`inputs: ${real ? `${args.input} (real export)` : `${OCR_GS_ROOT} (stand-in retrieval)`}${first}; rag = gold every third line, zero_shot = OCR`);
  const t0 = performance.now();
  await analyzeStudy({ ...dirs, bootstrap: { iterations: 1000 }, progress: 'silent', logFile: false, report: { png: false } });
  console.log(`analysis + report: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return dirs.phase5Dir;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-report-size-'));
  const dir = args.report ? path.resolve(args.report) : await analysedStudy(root);
  if (args.report) console.log(`report: ${dir} (as written by its analysis)`);
  const { htmlBytes, doc } = printSizes(dir);
  await inBrowser(path.join(dir, 'report.html'), doc);
  if (args.keep && !args.report) console.log(`kept: ${dir}`);
  else rmSync(root, { recursive: true, force: true });
  if (htmlBytes > BUDGET_BYTES) {
    console.log('OVER the size budget');
    process.exitCode = 1;
  }
}

await main();
