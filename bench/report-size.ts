/**
 * Size and first render of report.html with the Lines view on the full OCR_GS set (5,092 lines).
 *
 *   npx tsx bench/report-size.ts [--input inference_input.jsonl] [--runs 3] [--keep]
 *
 * Inputs: a real export of every OCR_GS line (default `results/ocrgs-full/phase5/inference_input.jsonl`, with
 * its real retrieved sentences) and corrections made without an LLM — rag: the gold text on every third
 * line, the OCR text otherwise; zero_shot: the OCR text. Without that file, the same study from
 * ../shared/data/ocr-gs with stand-in retrieval (test/helpers/ocr-gs-study.ts). Prints the analysis time,
 * the sizes (report.html, the embedded Lines data, lines.json, report.md) against the README's budget,
 * and in headless Chromium (/usr/bin/chromium or CHROMIUM_PATH) the time from navigation to the first
 * rendered Lines page, and to a deep-linked expanded line, as the median of --runs. Exits 1 only when the
 * report is over the size budget.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
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
  },
});

type Rec = { sample_id: string; dataset: string; ocr_text: string; gt_text: string };

/** phase5/ (the export + rag corrections) and phase2/ (zero_shot) from a real inference_input.jsonl. */
function studyFromExport(root: string, input: string): { phase5Dir: string; phase2Dir: string } {
  const phase5Dir = path.join(root, 'phase5');
  const phase2Dir = path.join(root, 'phase2');
  mkdirSync(phase5Dir, { recursive: true });
  mkdirSync(phase2Dir, { recursive: true });
  copyFileSync(input, path.join(phase5Dir, 'inference_input.jsonl'));
  const recs = readFileSync(input, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Rec);
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
async function renderTimes(report: string, lineId: string, runs: number): Promise<{ first: number[]; deep: number[] }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const first: number[] = [];
  const deep: number[] = [];
  try {
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
  } finally {
    await browser.close();
  }
  return { first, deep };
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-report-size-'));
  const real = existsSync(args.input!);
  const dirs = real ? studyFromExport(root, args.input!) : writeOcrGsStudy(root, OCR_GS_ROOT);
  console.log(`inputs: ${real ? `${args.input} (real export)` : `${OCR_GS_ROOT} (stand-in retrieval)`}; rag = gold every third line, zero_shot = OCR`);
  const t0 = performance.now();
  await analyzeStudy({ ...dirs, bootstrap: { iterations: 1000 }, progress: 'silent', logFile: false, report: { png: false } });
  console.log(`analysis + report: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const size = (f: string) => statSync(path.join(dirs.phase5Dir, f)).size;
  const htmlBytes = size('report.html');
  const html = readFileSync(path.join(dirs.phase5Dir, 'report.html'), 'utf8');
  const embedded = /id="lines-data"[^>]*>([^<]*)</.exec(html)?.[1].length ?? 0;
  const doc = JSON.parse(readFileSync(path.join(dirs.phase5Dir, 'lines.json'), 'utf8'));
  console.log(`lines: ${doc.lines.length} × ${doc.meta.arms.length} arms`);
  console.log(`report.html: ${mb(htmlBytes)} (budget ${mb(BUDGET_BYTES)}) — Lines data embedded: ${mb(embedded)} (gzip + base64 of lines.json ${mb(size('lines.json'))})`);
  console.log(`report.md: ${(size('report.md') / 1024).toFixed(1)} KB`);
  if (existsSync(CHROMIUM)) {
    const runs = Number(args.runs);
    const t = await renderTimes(path.join(dirs.phase5Dir, 'report.html'), doc.lines[Math.floor(doc.lines.length / 2)].sample_id, runs);
    console.log(`first render of the Lines view (navigation → first page drawn, median of ${runs}): ${median(t.first)} ms  [${t.first.join(', ')}]`);
    console.log(`deep link #line=… (navigation → line expanded, median of ${runs}): ${median(t.deep)} ms  [${t.deep.join(', ')}]`);
  } else {
    console.log(`(no render times: ${CHROMIUM} not found)`);
  }
  if (args.keep) console.log(`kept: ${dirs.phase5Dir}`);
  else rmSync(root, { recursive: true, force: true });
  if (htmlBytes > BUDGET_BYTES) {
    console.log('OVER the size budget');
    process.exitCode = 1;
  }
}

await main();
