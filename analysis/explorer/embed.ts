/**
 * The Lines view of report.html: the index of lines.json (analysis/explorer/bundle.ts: the columns the table,
 * its sort and filters need, gzip + base64, inflated by the browser with DecompressionStream) embedded in the
 * page, the lines themselves in side files beside it (`report-lines/`, written by side-files.ts) read when a line
 * is expanded or the text searched; with the view's own scripts (SCRIPTS: loading, diffs and hits, state, filters,
 * order, the expanded line, table, controls, deep links, and lines.js, which starts the view) and style inlined.
 * The diffs are computed at analysis time (analysis/lines/diff.ts); the script only filters, sorts and renders.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { linesBundle } from './bundle';

const DIR = path.dirname(fileURLToPath(import.meta.url));
/** In load order: each part defines one global its successors read (lines.js, last, starts the view). */
const SCRIPTS = [
  'lines-data.js',
  'lines-dom.js',
  'lines-state.js',
  'lines-filters.js',
  'lines-order.js',
  'lines-detail.js',
  'lines-table.js',
  'lines-controls.js',
  'lines-link.js',
  'lines.js',
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The view's markup (with the embedded index; the lines are in the side files), style and script. */
export function linesView(doc: Json): { body: string; style: string; script: string } {
  const body = `<section id="lines-view" aria-labelledby="lines-title">
<h2 id="lines-title">Lines</h2>
<p>Every analysed line. Filter and sort, then click a row (or open <code>#line=&lt;sample_id&gt;</code>) to see OCR, gold and each arm's output with a character diff against gold — the alignment the CER counts: <del>gold only</del>, <ins>output only</ins> — and the retrieved sentences. ΔCER = the arm's line CER − the ${esc(String(doc.meta.baseline))} line CER; for ${esc(String(doc.meta.baseline))} itself, − the OCR line CER. Outcome and guard filters apply to the chosen arm.${upperBoundNote(doc)}</p>
<div class="lx-controls" id="lines-controls"></div>
<p class="lx-status"><strong id="lines-count">…</strong> lines match <span id="lines-page"></span></p>
<p class="lx-notice" id="lines-notice" role="status" hidden></p>
<div class="lx-scroll"><table class="lx" id="lines-table"><thead></thead><tbody></tbody></table></div>
<div class="lx-pager" id="lines-pager"></div>
<noscript><p>The Lines view needs JavaScript; lines.json holds the same data.</p></noscript>
<script type="application/octet-stream" id="lines-index" data-encoding="gzip+base64">${linesBundle(doc).index}</script>
</section>`;
  const script = SCRIPTS.map((f) => readFileSync(path.join(DIR, f), 'utf8')).join('\n');
  return { body, style: readFileSync(path.join(DIR, 'lines.css'), 'utf8'), script };
}

/** Said only when an arm is an upper bound (a study's gold_query arm), so a study without one keeps its page. */
function upperBoundNote(doc: Json): string {
  const upper = (doc.meta.arms as Array<{ name: string; upper_bound?: boolean }>).filter((a) => a.upper_bound).map((a) => a.name);
  return upper.length ? ` † marks an upper bound (${esc(upper.join(', '))}: retrieval with the gold line as the query), not a method.` : '';
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
