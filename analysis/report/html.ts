/**
 * Blocks rendered as a self-contained report.html: the Vega runtime (node_modules/vega/build/vega.min.js) and the
 * compiled Vega specs inline, rendered as SVG in the browser, with the server-rendered SVG as a <noscript> fallback.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Block } from './blocks';
import { linesView } from '../explorer/embed';

const require = createRequire(import.meta.url);

/** node_modules/vega/build/vega.min.js (the package exports only its ESM entry, which sits beside it). */
export function vegaMinJsPath(): string {
  return path.join(path.dirname(require.resolve('vega')), 'vega.min.js');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Markdown-ish bold in cells (`**x**`) → <strong>. */
const inline = (s: string) => esc(s).replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>');
/** JSON or JS safe inside a <script> element. */
const scriptSafe = (s: string) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

// long: the page template (head, styles, one case per block kind, scripts) reads best as one piece
export function toHtml(blocks: Block[], title: string): string {
  const body: string[] = [];
  const specs: string[] = [];
  const extra = { style: '', script: '' };
  for (const b of blocks) {
    if (b.only === 'md') continue;
    const id = b.id ? ` id="${esc(b.id)}"` : '';
    switch (b.kind) {
      case 'h1':
      case 'h2':
      case 'h3':
      case 'p':
        body.push(`<${b.kind}${id}>${inline(b.text)}</${b.kind}>`);
        break;
      case 'list':
        body.push(`<ul${id}>${b.items.map((i) => `<li>${inline(i)}</li>`).join('')}</ul>`);
        break;
      case 'table': {
        const cls = (i: number) => (b.align?.[i] === 'r' ? ' class="num"' : '');
        body.push(
          `<table${id}><thead><tr>${b.head.map((h, i) => `<th${cls(i)}>${inline(h)}</th>`).join('')}</tr></thead><tbody>` +
            b.rows.map((r) => `<tr>${r.map((x, i) => `<td${cls(i)}>${inline(x)}</td>`).join('')}</tr>`).join('') +
            '</tbody></table>',
        );
        break;
      }
      case 'chart': {
        const id = b.chart.name;
        body.push(
          `<figure class="chart" id="chart-${id}" aria-label="${esc(b.chart.title)}">` +
            `<div class="vega" data-chart="${id}" data-spec="spec-${id}"><noscript>${b.chart.svg}</noscript></div></figure>`,
        );
        specs.push(`<script type="application/json" id="spec-${id}">${scriptSafe(JSON.stringify(b.chart.vega))}</script>`);
        break;
      }
      case 'lines': {
        const v = linesView(b.doc);
        body.push(v.body);
        extra.style = v.style;
        extra.script = `<script>${scriptSafe(v.script)}</script>`;
        break;
      }
    }
  }
  const vegaJs = readFileSync(vegaMinJsPath(), 'utf8');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font-family: "Noto Sans", "Noto Sans Arabic", "DejaVu Sans", Arial, sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.5rem 0 1.2rem; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.chart { margin: 1rem 0 2rem; }
.vega svg { max-width: 100%; height: auto; }
${extra.style}
</style>
</head>
<body>
${body.join('\n')}
${specs.join('\n')}
<script>${scriptSafe(vegaJs)}</script>
<script>
(function () {
  var els = document.querySelectorAll('.vega[data-spec]');
  var pending = els.length;
  function done() { if (--pending === 0) document.body.setAttribute('data-charts-rendered', 'true'); }
  if (pending === 0) document.body.setAttribute('data-charts-rendered', 'true');
  els.forEach(function (el) {
    try {
      var spec = JSON.parse(document.getElementById(el.getAttribute('data-spec')).textContent);
      var view = new vega.View(vega.parse(spec), { renderer: 'svg', container: el, hover: true });
      view.runAsync().then(function () { el.setAttribute('data-rendered', 'true'); done(); },
        function (e) { el.setAttribute('data-error', String(e)); console.error(e); done(); });
    } catch (e) { el.setAttribute('data-error', String(e)); console.error(e); done(); }
  });
})();
</script>
${extra.script}
</body>
</html>
`;
}
