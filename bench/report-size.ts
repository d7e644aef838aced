/**
 * Size and first render of report.html with the Lines view: on the full OCR_GS set (5,092 lines), an existing
 * report, or a synthetic study of any size.
 *
 *   npx tsx bench/report-size.ts [--input inference_input.jsonl] [--runs 3] [--keep] [--lines N] [--screenshot PATH]
 *   npx tsx bench/report-size.ts --report results/ocrgs-arms/study [--runs 3] [--screenshot PATH]   (an existing report)
 *   npx tsx bench/report-size.ts --synthetic 100000 [--arms 8] [--runs 3]   (bench/synthetic-lines.ts)
 *
 * Inputs: a real export of every OCR_GS line (default `results/ocrgs-full/phase5/inference_input.jsonl`, with
 * its real retrieved sentences) and corrections made without an LLM — rag: the gold text on every third
 * line, the OCR text otherwise; zero_shot: the OCR text. Without that file, the same study from
 * ../shared/data/ocr-gs with stand-in retrieval (test/helpers/ocr-gs-study.ts). Prints the analysis time,
 * the sizes (report.html, the Lines index embedded in it, the side files of report-lines/, lines.json,
 * report.md) against the budget, and in headless Chromium (/usr/bin/chromium or CHROMIUM_PATH) the time from
 * navigation to the first rendered Lines page, to a deep-linked expanded line and to a text search's result
 * (it reads every text side file), as the median of --runs, against the budget. Exits 1 only when report.html
 * is over the size budget. `--lines N` keeps the first N lines (a quick check); `--screenshot PATH` saves a
 * PNG of the Lines view with one line expanded by its deep link. `--synthetic N` analyses a small OCR_GS study
 * for the report's other sections, then puts in its lines.json N synthetic lines × `--arms` arms (realistic
 * Arabic: the OCR_GS lines scored against made-up arms, repeated in shuffled copies) and renders the report;
 * then it times the arms analysis itself on a study of that size (bench/synthetic-arms.ts: N lines × `--arms`
 * arms, `--resamples` bootstrap and permutation resamples, default 10,000; in a process of its own) and prints
 * its time and peak RSS against the goal (120 s, 4 GB).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { analyzeDesignFiles } from '../analysis/documents/analyze';
import { writeLinesJson } from '../analysis/lines/lines-json';
import { renderReport } from '../analysis/report/report';
import { syntheticLineDocuments } from './synthetic-lines';
import { spawnSync } from 'node:child_process';
import { writeSyntheticArms } from './synthetic-arms';
import { syntheticCorrection } from './synthetic-record';
import { OCR_GS_ROOT, REPO_ROOT } from '../test/helpers/shared-data';
import { writeOcrGsStudy } from '../test/helpers/ocr-gs-study';

/** The budget for report.html, up to a study of 100,000 lines × 8 arms: its size, and the Lines view's first render. */
const BUDGET_BYTES = 10 * 1024 * 1024;
const BUDGET_FIRST_MS = 2000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const { values: args } = parseArgs({
  options: {
    input: { type: 'string', default: path.join(REPO_ROOT, 'results', 'ocrgs-full', 'phase5', 'inference_input.jsonl') },
    runs: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    lines: { type: 'string' },
    screenshot: { type: 'string' },
    report: { type: 'string' },
    synthetic: { type: 'string' },
    arms: { type: 'string', default: '8' },
    resamples: { type: 'string', default: '10000' },
  },
});
const LIMIT = args.lines === undefined ? Infinity : Number(args.lines);
if (!(LIMIT > 0)) throw new Error(`--lines must be a positive number, got ${args.lines}`);
/** Rows on a page of the Lines view (lines-state.js PAGE_SIZE): the screenshot's line opens a page, under the controls. */
const PAGE_SIZE = 50;

type Rec = { sample_id: string; dataset: string; ocr_text: string; gt_text: string };

/** phase5/ (the export + rag corrections) and phase2/ (zero_shot) from a real inference_input.jsonl. */
function studyFromExport(root: string, input: string): { ragDir: string; baselineDir: string } {
  const ragDir = path.join(root, 'phase5');
  const baselineDir = path.join(root, 'phase2');
  mkdirSync(ragDir, { recursive: true });
  mkdirSync(baselineDir, { recursive: true });
  const rows = readFileSync(input, 'utf8').trim().split('\n').slice(0, LIMIT);
  writeFileSync(path.join(ragDir, 'inference_input.jsonl'), rows.join('\n') + '\n');
  const recs = rows.map((l) => JSON.parse(l) as Rec);
  const correction = (r: Rec, text: string, prompt: 'rag' | 'zero_shot', version: string) =>
    JSON.stringify(syntheticCorrection(r, text, { prompt, version }));
  writeFileSync(
    path.join(ragDir, 'corrections.jsonl'),
    recs.map((r, i) => correction(r, i % 3 === 0 ? r.gt_text : r.ocr_text, 'rag', 'p5v1')).join('\n') + '\n',
  );
  writeFileSync(
    path.join(baselineDir, 'corrections.jsonl'),
    recs.map((r) => correction(r, r.ocr_text, 'zero_shot', 'v1')).join('\n') + '\n',
  );
  return { ragDir, baselineDir };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** A word for the search's timing: common in the OCR_GS gold text. */
const SEARCH_WORD = 'الله';

/** Wait for the Lines view to be drawn; its error (data-lines-error) is the bench's. */
async function rendered(page: Page, hash: string): Promise<void> {
  await page.waitForSelector('body[data-lines-rendered="true"], body[data-lines-error]', { timeout: 120000 });
  const error = await page.getAttribute('body', 'data-lines-error');
  if (error !== null) throw new Error(`the Lines view of ${hash || 'the page'} failed: ${error}`);
}

/**
 * Navigation → first rendered Lines page, → a deep-linked line expanded, → a search link's result (ms, page
 * clocks); and navigation → the view's script starting (the rest of the page: Vega runtime, charts).
 */
async function renderTimes(
  browser: Browser,
  report: string,
  lineId: string,
  runs: number,
): Promise<Record<'first' | 'deep' | 'search' | 'start', number[]>> {
  const t = { first: [] as number[], deep: [] as number[], search: [] as number[], start: [] as number[] };
  const hashes = { first: '', deep: `#line=${encodeURIComponent(lineId)}`, search: `#q=${encodeURIComponent(SEARCH_WORD)}` };
  for (let i = 0; i < runs; i++) {
    for (const k of ['first', 'deep', 'search'] as const) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(`file://${report}${hashes[k]}`);
      await rendered(page, hashes[k]);
      if (k === 'deep' && (await page.$('tr.lx-detail')) === null) throw new Error(`${hashes[k]}: no line expanded`);
      if (k === 'search' && !(Number(await page.textContent('#lines-count')) > 0)) throw new Error(`${hashes[k]}: no line found`);
      t[k].push(Number(await page.getAttribute('body', 'data-lines-ms')));
      if (k === 'first') t.start.push(Number(await page.getAttribute('body', 'data-lines-start-ms')));
      await page.close();
    }
  }
  return t;
}

/**
 * A PNG of the Lines view opened at `#line=<id>`: from the view's heading (controls, count) down to a few rows
 * below the expanded line — the line opens its page, so the whole page of rows is left out.
 */
async function screenshot(browser: Browser, report: string, lineId: string, file: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  try {
    await page.goto(`file://${report}#line=${encodeURIComponent(lineId)}`);
    await rendered(page, `#line=${lineId}`);
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
async function inBrowser(report: string, ids: readonly string[]): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`(no render times${args.screenshot ? ' or screenshot' : ''}: ${CHROMIUM} not found)`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const runs = Number(args.runs);
    const t = await renderTimes(browser, report, ids[Math.floor(ids.length / 2)], runs);
    console.log(
      `first render of the Lines view (navigation → first page drawn, median of ${runs}): ${median(t.first)} ms (budget ${BUDGET_FIRST_MS} ms${median(t.first) > BUDGET_FIRST_MS ? ': OVER' : ''})  [${t.first.join(', ')}]`,
    );
    console.log(`  of which before the view's script starts (the rest of the page): ${median(t.start)} ms  [${t.start.join(', ')}]`);
    console.log(`deep link #line=… (navigation → line expanded, median of ${runs}): ${median(t.deep)} ms  [${t.deep.join(', ')}]`);
    console.log(
      `search link #q=${SEARCH_WORD} (navigation → matching lines drawn, every text read; median of ${runs}): ${median(t.search)} ms  [${t.search.join(', ')}]`,
    );
    if (args.screenshot) {
      const line = ids[Math.floor(ids.length / 2 / PAGE_SIZE) * PAGE_SIZE];
      const file = path.resolve(args.screenshot);
      await screenshot(browser, report, line, file);
      console.log(`screenshot (#line=${line} expanded): ${file}`);
    }
  } finally {
    await browser.close();
  }
}

/** The side files of the Lines view beside report.html (analysis/explorer/bundle.ts SIDE_DIR), if any. */
const SIDE_DIR = 'report-lines';

/** The number of lines of lines.json, its arms and line ids, found by scanning (a large one is over a string's length). */
function linesSummary(file: string): { ids: string[]; arms: number } {
  const buf = readFileSync(file);
  const key = Buffer.from('"sample_id":"');
  const ids: string[] = [];
  for (let i = buf.indexOf(key); i >= 0; i = buf.indexOf(key, i + 1)) {
    const start = i + key.length;
    ids.push(JSON.parse(buf.toString('utf8', start - 1, buf.indexOf('"', start) + 1)) as string);
  }
  const meta = buf.toString('utf8', 0, buf.indexOf('"lines":['));
  return { ids, arms: (meta.match(/"retrieval":/g) ?? []).length };
}

/** Sizes of a report folder (report.html, its embedded Lines data, the side files, lines.json, report.md) against the budget. */
function printSizes(dir: string): { htmlBytes: number; ids: string[] } {
  const size = (f: string) => statSync(path.join(dir, f)).size;
  const htmlBytes = size('report.html');
  const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
  const embedded = /id="lines-(?:data|index)"[^>]*>([^<]*)</.exec(html)?.[1].length ?? 0;
  const side = existsSync(path.join(dir, SIDE_DIR)) ? readdirSync(path.join(dir, SIDE_DIR)).map((f) => size(path.join(SIDE_DIR, f))) : [];
  const { ids, arms } = linesSummary(path.join(dir, 'lines.json'));
  console.log(`lines: ${ids.length} × ${arms} arms`);
  console.log(
    `report.html: ${mb(htmlBytes)} (budget ${mb(BUDGET_BYTES)}) — Lines data embedded: ${mb(embedded)} (lines.json ${mb(size('lines.json'))})`,
  );
  console.log(
    `side files (${SIDE_DIR}/, read on demand): ${side.length} files, ${mb(side.reduce((a, b) => a + b, 0))}, largest ${mb(Math.max(0, ...side))}`,
  );
  console.log(`report.md: ${(size('report.md') / 1024).toFixed(1)} KB`);
  return { htmlBytes, ids };
}

/** The two-arm study of the budget, analysed here from a real export (or the stand-in); returns its phase5 folder. */
async function analysedStudy(root: string): Promise<string> {
  const real = existsSync(args.input!);
  const dirs = real ? studyFromExport(root, args.input!) : writeOcrGsStudy(root, OCR_GS_ROOT, LIMIT);
  const first = LIMIT < Infinity ? ` (first ${LIMIT} lines only: not the budget's set)` : '';
  console.log(
    `inputs: ${real ? `${args.input} (real export)` : `${OCR_GS_ROOT} (stand-in retrieval)`}${first}; rag = gold every third line, zero_shot = OCR`,
  );
  const t0 = performance.now();
  await analyzeDesignFiles({ ...dirs, bootstrap: { iterations: 1000 }, progress: 'silent', logFile: false, report: { png: false } });
  console.log(`analysis + report: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return dirs.ragDir;
}

/** A small OCR_GS study analysed for the report's other sections, its lines.json replaced by N synthetic lines × --arms, the report rendered. */
async function syntheticStudy(root: string, n: number): Promise<string> {
  if (!(n > 0)) throw new Error(`--synthetic must be a positive number of lines, got ${args.synthetic}`);
  if (!existsSync(OCR_GS_ROOT)) throw new Error(`--synthetic needs the OCR_GS lines at ${OCR_GS_ROOT}`);
  const { ragDir, baselineDir } = writeOcrGsStudy(root, OCR_GS_ROOT, 200);
  const dirs = { ragDir, baselineDir };
  await analyzeDesignFiles({ ...dirs, bootstrap: { iterations: 200 }, progress: 'silent', logFile: false, report: { png: false } });
  let t0 = performance.now();
  const docs = syntheticLineDocuments(OCR_GS_ROOT, n, Number(args.arms));
  writeLinesJson(path.join(dirs.ragDir, 'lines.json'), docs.lines);
  writeFileSync(path.join(dirs.ragDir, 'error_classes.json'), JSON.stringify(docs.errorClasses, null, 2) + '\n');
  console.log(
    `inputs: synthetic, ${n} lines × ${args.arms} arms from ${OCR_GS_ROOT} (bench/synthetic-lines.ts): ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  t0 = performance.now();
  await renderReport(dirs.ragDir, { png: false });
  console.log(`report (from lines.json): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return dirs.ragDir;
}

/** Goal for the arms analysis of 100,000 lines × 8 arms with 10,000 resamples. */
const ANALYSIS_GOAL = { seconds: 120, rssBytes: 4 * 1024 ** 3 };

/** The arms analysis of a synthetic study of `n` lines × --arms arms, timed in a process of its own (its peak RSS is the analysis's). */
async function analysisAtScale(root: string, n: number): Promise<void> {
  const dir = path.join(root, 'arms-study');
  let t0 = performance.now();
  await writeSyntheticArms(dir, OCR_GS_ROOT, n, Number(args.arms));
  console.log(
    `arms study: ${n} lines × ${args.arms} arms written (bench/synthetic-arms.ts): ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'arms-analysis-run.ts'), dir, args.resamples!], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`the arms analysis failed: ${r.stderr.slice(-2000)}`);
  const m = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
    seconds: number;
    cpuSeconds: number;
    maxRssBytes: number;
    lines: number;
    arms: number;
  };
  const gb = (b: number) => `${(b / 1024 ** 3).toFixed(2)} GB`;
  console.log(
    `arms analysis (${m.lines} lines × ${m.arms} arms, ${args.resamples} resamples, tidy lines.parquet/csv.gz included): ${m.seconds.toFixed(1)} s wall, ${m.cpuSeconds.toFixed(1)} CPU-s (goal ≤ ${ANALYSIS_GOAL.seconds} s), peak RSS ${gb(m.maxRssBytes)} (goal ≤ ${gb(ANALYSIS_GOAL.rssBytes)}); process ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-report-size-'));
  const dir = args.report
    ? path.resolve(args.report)
    : args.synthetic
      ? await syntheticStudy(root, Number(args.synthetic))
      : await analysedStudy(root);
  if (args.report) console.log(`report: ${dir} (as written by its analysis)`);
  const { htmlBytes, ids } = printSizes(dir);
  await inBrowser(path.join(dir, 'report.html'), ids);
  if (args.synthetic) await analysisAtScale(root, Number(args.synthetic));
  if (args.keep && !args.report) console.log(`kept: ${dir}`);
  else rmSync(root, { recursive: true, force: true });
  if (htmlBytes > BUDGET_BYTES) {
    console.log('OVER the size budget');
    process.exitCode = 1;
  }
}

await main();
