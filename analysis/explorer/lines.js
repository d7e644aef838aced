/*
 * Lines view of report.html (inlined by analysis/explorer/embed.ts). Reads the embedded lines.json
 * (gzip + base64), then filters, sorts, paginates and renders; a row expands to OCR, gold and each arm's
 * output with the character diff computed at analysis time (analysis/diff.ts) and the retrieved sentences.
 * Text from the data is only ever set as textContent, never parsed as HTML.
 */
(function () {
  'use strict';
  var PAGE_SIZE = 50;
  /** The arm filter's "all lines" value: no arm required, so lines no arm corrected are listed too (never an arm name). */
  var ALL = '*';
  var OUTCOMES = ['improved', 'unchanged', 'worsened', 'n/a'];
  var S = { rows: [], arms: [], upper: {}, baseline: '', focus: '', defaultFocus: '', bands: [], datasets: {}, hasGuard: false,
    filters: noFilters(), sort: { key: 'idx', dir: 1 }, page: 0, open: null, notes: [] };

  function noFilters() { return { dataset: '', band: '', outcome: '', guard: '', context: '', q: '' }; }
  /** Study arms: whether the chosen arm's context held the line's gold passage (lines.json `gold_in_context`). */
  var CONTEXTS = ['gold passage in context', 'gold passage not in context'];
  function contextOf(a) { return a.gold_in_context === true ? CONTEXTS[0] : a.gold_in_context === false ? CONTEXTS[1] : ''; }
  function hasContextFlag() { return S.rows.some(function (r) { return S.arms.some(function (n) { var x = r.line.arms[n]; return x && typeof x.gold_in_context === 'boolean'; }); }); }

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { e.append(c); });
    return e;
  }

  async function loadDoc() {
    var bin = atob(document.getElementById('lines-data').textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  /** Gold and output text of a diff (segments: a string, or [gold, output, edits]). */
  function sides(diff) {
    var gold = '', out = '';
    diff.forEach(function (s) { if (typeof s === 'string') { gold += s; out += s; } else { gold += s[0]; out += s[1]; } });
    return { gold: gold, output: out };
  }

  function prepare(doc) {
    S.arms = doc.meta.arms.map(function (a) { return a.name; });
    doc.meta.arms.forEach(function (a) { if (a.upper_bound) S.upper[a.name] = true; });
    S.baseline = doc.meta.baseline;
    S.focus = S.defaultFocus = S.arms.find(function (a) { return a !== S.baseline; }) || S.baseline;
    S.bands = doc.meta.bands || [];
    doc.meta.datasets.forEach(function (d) { S.datasets[d.name] = d; });
    S.rows = doc.lines.map(prepareRow);
    S.hasGuard = S.rows.some(function (r) { return S.arms.some(function (a) { return r.line.arms[a] && r.line.arms[a].guard; }); });
  }

  function prepareRow(line, idx) {
    var t = sides(line.ocr.diff);
    var r = { idx: idx + 1, line: line, gold: t.gold, ocr: t.output, delta: {} };
    S.arms.forEach(function (a) {
      var x = line.arms[a];
      var ref = a === S.baseline ? line.ocr.cer : (line.arms[S.baseline] ? line.arms[S.baseline].cer : null);
      r.delta[a] = x && x.cer !== null && ref !== null ? x.cer - ref : null;
    });
    return r;
  }

  function outcomeOf(d) {
    if (d === null) return 'n/a';
    return Math.abs(d) < 1e-9 ? 'unchanged' : d < 0 ? 'improved' : 'worsened';
  }

  /** Outcome and guard belong to the chosen arm; with all lines (S.focus === ALL) they are cleared and disabled. */
  function matches(r) {
    var f = S.filters, a = r.line.arms[S.focus];
    if (S.focus !== ALL && !a) return false;
    if (f.dataset && r.line.dataset !== f.dataset) return false;
    if (f.band && r.line.band !== f.band) return false;
    if (a && f.outcome && outcomeOf(r.delta[S.focus]) !== f.outcome) return false;
    if (a && f.guard && (a.guard || '(none)') !== f.guard) return false;
    if (a && f.context && contextOf(a) !== f.context) return false;
    if (f.q && r.gold.indexOf(f.q) < 0 && r.ocr.indexOf(f.q) < 0 && r.line.sample_id.indexOf(f.q) < 0) return false;
    return true;
  }

  function sortValue(r, key) {
    if (key === 'idx') return r.idx;
    if (key === 'dataset' || key === 'sample_id') return r.line[key];
    if (key === 'band') return S.bands.indexOf(r.line.band);
    if (key === 'ocr') return r.line.ocr.cer;
    if (key === 'guard') return r.line.arms[S.focus] ? r.line.arms[S.focus].guard : null;
    var arm = key.slice(key.indexOf(':') + 1);
    if (key.indexOf('delta:') === 0) return r.delta[arm];
    return r.line.arms[arm] ? r.line.arms[arm].cer : null;
  }

  function compareRows(a, b) {
    var va = sortValue(a, S.sort.key), vb = sortValue(b, S.sort.key);
    if (va === null || va === undefined) return vb === null || vb === undefined ? a.idx - b.idx : 1;
    if (vb === null || vb === undefined) return -1;
    var c = va < vb ? -1 : va > vb ? 1 : 0;
    return c * S.sort.dir || a.idx - b.idx;
  }

  function view() { return S.rows.filter(matches).sort(compareRows); }

  /** An upper-bound arm (retrieval with the gold line as the query) carries a dagger wherever it is named. */
  function armName(a) { return S.upper[a] ? a + ' †' : a; }

  function columns() {
    var cols = [['idx', '#'], ['dataset', 'Dataset'], ['sample_id', 'sample_id'], ['band', 'OCR CER band'], ['ocr', 'OCR CER']];
    S.arms.forEach(function (a) {
      cols.push(['cer:' + a, armName(a) + ' CER']);
      cols.push(['delta:' + a, 'ΔCER ' + armName(a) + (a === S.baseline ? ' vs OCR' : ' vs ' + S.baseline)]);
    });
    if (S.hasGuard) cols.push(['guard', 'Guard']);
    return cols;
  }

  var pct = function (x) { return x === null || x === undefined ? '—' : (x * 100).toFixed(2) + '%'; };
  var pp = function (x) { return x === null ? '—' : (x > 0 ? '+' : x < 0 ? '−' : '±') + Math.abs(x * 100).toFixed(2) + ' pp'; };

  function cell(r, key) {
    if (key.indexOf('delta:') === 0) {
      var d = r.delta[key.slice(6)];
      return el('td', { class: 'num ' + (d === null ? '' : d < -1e-9 ? 'better' : d > 1e-9 ? 'worse' : ''), 'data-value': d === null ? '' : String(d) }, [pp(d)]);
    }
    var v = sortValue(r, key);
    if (key === 'ocr' || key.indexOf('cer:') === 0) return el('td', { class: 'num', 'data-value': v === null ? '' : String(v) }, [pct(v)]);
    if (key === 'band') return el('td', {}, [r.line.band]);
    return el('td', key === 'idx' ? { class: 'num' } : {}, [v === null || v === undefined ? '—' : String(v)]);
  }

  function renderHead() {
    var tr = el('tr');
    columns().forEach(function (c) {
      var th = el('th', { 'data-sort': c[0], scope: 'col' }, [c[1]]);
      if (S.sort.key === c[0]) th.setAttribute('aria-sort', S.sort.dir > 0 ? 'ascending' : 'descending');
      th.addEventListener('click', function () { sortBy(c[0]); });
      tr.append(th);
    });
    var thead = document.querySelector('#lines-table thead');
    thead.replaceChildren(tr);
  }

  function sortBy(key) {
    S.sort = { key: key, dir: S.sort.key === key ? -S.sort.dir : 1 };
    S.page = 0;
    render();
  }

  function render() {
    var list = view();
    var pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
    S.page = Math.min(S.page, pages - 1);
    renderHead();
    var body = document.querySelector('#lines-table tbody');
    body.replaceChildren();
    list.slice(S.page * PAGE_SIZE, (S.page + 1) * PAGE_SIZE).forEach(function (r) { body.append(rowEl(r)); if (S.open === r) body.append(detailRow(r)); });
    document.getElementById('lines-count').textContent = String(list.length);
    document.getElementById('lines-page').textContent = '· page ' + (S.page + 1) + ' of ' + pages;
    renderPager(pages);
    syncControls();
    renderNotice();
  }

  /** The controls show the state, whatever set it (a control, a link, a line opened from a link). */
  function syncControls() {
    var set = function (id, v) { var s = document.getElementById(id); if (s) s.value = v; return s; };
    set('lines-arm', S.focus);
    ['dataset', 'band', 'outcome', 'guard', 'context'].forEach(function (k) { set('lines-' + k, S.filters[k]); });
    ['lines-outcome', 'lines-guard', 'lines-context'].forEach(function (id) { var s = document.getElementById(id); if (s) s.disabled = S.focus === ALL; });
    var q = document.getElementById('lines-q');
    if (q && q.value.trim() !== S.filters.q) q.value = S.filters.q; // leave a trailing space being typed alone
  }

  /** One line saying how a link was read: unknown values ignored, the arm or filters changed to show its line. */
  function renderNotice() {
    var n = document.getElementById('lines-notice');
    n.textContent = S.notes.join(' · ');
    n.hidden = S.notes.length === 0;
  }

  function rowEl(r) {
    var tr = el('tr', { class: 'lx-row' + (S.open === r ? ' open' : ''), 'data-sample-id': r.line.sample_id, 'data-dataset': r.line.dataset, tabindex: '0', 'aria-expanded': String(S.open === r) });
    columns().forEach(function (c) { tr.append(cell(r, c[0])); });
    tr.addEventListener('click', function () { S.open = S.open === r ? null : r; render(); });
    tr.addEventListener('keydown', function (e) { if (e.key === 'Enter') tr.click(); });
    return tr;
  }

  function renderPager(pages) {
    var go = function (p) { return function () { S.page = p; render(); }; };
    var prev = el('button', { type: 'button', id: 'lines-prev' }, ['‹ previous']);
    var next = el('button', { type: 'button', id: 'lines-next' }, ['next ›']);
    prev.disabled = S.page === 0;
    next.disabled = S.page >= pages - 1;
    prev.addEventListener('click', go(S.page - 1));
    next.addEventListener('click', go(S.page + 1));
    document.getElementById('lines-pager').replaceChildren(prev, next);
  }

  // ---- the expanded line -------------------------------------------------------------------

  function diffEl(diff, id) {
    var box = el('div', { class: 'diff', dir: 'rtl', lang: 'ar', 'data-diff': id });
    diff.forEach(function (s) { box.append(typeof s === 'string' ? s : changeEl(s)); });
    return box;
  }

  function changeEl(s) {
    var ws = function (t) { return /^\s+$/.test(t) ? ' ws' : ''; };
    var del = s[0] ? el('del', { class: 'edit' + ws(s[0]) }, [s[0]]) : null;
    var ins = s[1] ? el('ins', { class: 'edit' + ws(s[1]) }, [s[1]]) : null;
    if (del && ins) return el('span', { class: 'sub', title: 'gold ' + s[0] + ' → output ' + s[1] + ' (' + s[2] + ' edit' + (s[2] === 1 ? '' : 's') + ')', 'data-edits': String(s[2]) }, [del, ins]);
    var one = del || ins;
    one.setAttribute('data-edits', String(s[2]));
    one.setAttribute('title', (del ? 'missing in output: ' : 'not in gold: ') + (s[0] || s[1]));
    return one;
  }

  function textRow(label, content) {
    return el('div', { class: 'lx-text' }, [el('div', { class: 'lx-label' }, [label]), content]);
  }

  function armLabel(r, a, x) {
    var parts = [armName(a) + ' · CER ' + pct(x.cer) + ' · Δ ' + pp(r.delta[a])];
    if (S.upper[a]) parts.push('upper bound: retrieved with the gold line as the query');
    if (x.failed) parts.push('failed: ' + x.failed + ' (scored as OCR)');
    if (x.guard) parts.push('guard: ' + x.guard);
    return parts.join(' · ');
  }

  function hitsEl(hits, dataset) {
    if (hits.length === 0) return el('div', { class: 'lx-meta' }, ['no retrieval (zero-shot fallback)']);
    var excl = S.datasets[dataset] ? S.datasets[dataset].source_excluded : null;
    var ol = el('ol', { class: 'lx-hits' });
    hits.forEach(function (h) {
      var meta = el('div', { class: 'lx-meta', dir: 'ltr' }, ['score ' + (h.score === null ? '—' : h.score.toFixed(3)) + ' · ' + (h.source_uri || '—')]);
      if (h.from_source) meta.append(el('span', { class: 'flag' }, ['from the dataset\'s source book']));
      if (h.provenance) meta.append(el('span', { class: 'flag' }, [h.provenance.replace('_', ' ')]));
      meta.append(el('span', { class: 'flag' }, ['source book excluded: ' + (excl === null || excl === undefined ? 'unknown' : excl ? 'yes' : 'no')]));
      ol.append(el('li', {}, [meta, el('div', { class: 'rtl', dir: 'rtl', lang: 'ar' }, [h.text === null ? '—' : h.text])]));
    });
    return ol;
  }

  function armRows(r, a) {
    var x = r.line.arms[a];
    if (!x) return [textRow(a, el('div', { class: 'lx-meta' }, ['no line for this sample']))];
    var out = [textRow(armLabel(r, a, x), diffEl(x.diff, a))];
    if (x.raw !== null) out.push(textRow(a + ': raw model output (before trimming / guard)', el('div', { class: 'rtl raw', dir: 'rtl', lang: 'ar' }, [x.raw])));
    if (x.retrieval) out.push(textRow(a + ': retrieved sentences', hitsEl(x.retrieval, r.line.dataset)));
    return out;
  }

  function detailRow(r) {
    var box = el('div', { class: 'lx-detail-box' }, [
      textRow('Gold', el('div', { class: 'rtl gold', dir: 'rtl', lang: 'ar' }, [r.gold])),
      textRow('OCR · CER ' + pct(r.line.ocr.cer), diffEl(r.line.ocr.diff, 'ocr')),
    ]);
    S.arms.forEach(function (a) { armRows(r, a).forEach(function (e) { box.append(e); }); });
    return el('tr', { class: 'lx-detail', 'data-detail-for': r.line.sample_id }, [el('td', { colspan: String(columns().length) }, [box])]);
  }

  // ---- controls and deep links -------------------------------------------------------------

  function select(id, label, options, value, onChange) {
    var s = el('select', { id: id });
    options.forEach(function (o) { var opt = el('option', { value: o[0] }, [o[1]]); opt.selected = o[0] === value; s.append(opt); });
    s.addEventListener('change', function () { onChange(s.value); S.page = 0; S.open = null; S.notes = []; writeHash(); render(); });
    return el('label', {}, [label, s]);
  }

  function setFilter(k) { return function (v) { S.filters[k] = v; }; }

  function setFocus(v) {
    S.focus = v;
    if (v === ALL) S.filters.outcome = S.filters.guard = S.filters.context = '';
  }

  function guardValues() {
    var seen = {};
    S.rows.forEach(function (r) { S.arms.forEach(function (a) { var x = r.line.arms[a]; if (x) seen[x.guard || '(none)'] = 1; }); });
    return Object.keys(seen).sort();
  }

  function renderControls() {
    var all = function (label) { return [['', label]]; };
    var pairs = function (xs) { return xs.map(function (x) { return [x, x]; }); };
    var f = S.filters;
    var q = el('input', { id: 'lines-q', type: 'search', dir: 'auto', placeholder: 'OCR / gold / sample_id' });
    q.value = f.q;
    q.addEventListener('input', function () { S.filters.q = q.value.trim(); S.page = 0; S.notes = []; writeHash(); render(); });
    var arms = S.arms.map(function (a) { return [a, S.upper[a] ? a + ' † (upper bound)' : a]; }).concat([[ALL, 'all lines (any arm or none)']]);
    var c = [
      select('lines-arm', 'Arm', arms, S.focus, setFocus),
      select('lines-dataset', 'Dataset', all('all').concat(pairs(Object.keys(S.datasets))), f.dataset, setFilter('dataset')),
      select('lines-band', 'OCR CER band', all('all').concat(pairs(S.bands)), f.band, setFilter('band')),
      select('lines-outcome', 'Outcome of the arm', all('all').concat(pairs(OUTCOMES)), f.outcome, setFilter('outcome')),
    ];
    if (S.hasGuard) c.push(select('lines-guard', 'Guard', all('all').concat(pairs(guardValues())), f.guard, setFilter('guard')));
    if (hasContextFlag()) c.push(select('lines-context', 'Context', all('all').concat(pairs(CONTEXTS)), f.context, setFilter('context')));
    c.push(el('label', {}, ['Search', q]));
    document.getElementById('lines-controls').replaceChildren.apply(document.getElementById('lines-controls'), c);
  }

  function writeHash() {
    var p = new URLSearchParams();
    p.set('arm', S.focus);
    Object.keys(S.filters).forEach(function (k) { if (S.filters[k]) p.set(k, S.filters[k]); });
    try { history.replaceState(null, '', '#' + p.toString()); } catch (e) { /* file:// may refuse; the view works without */ }
  }

  /** The filters a link may set, each with its label and the values it knows ('q' is free text). */
  function knownValues() {
    return { dataset: ['dataset', Object.keys(S.datasets)], band: ['band', S.bands], outcome: ['outcome', OUTCOMES], guard: ['guard', S.hasGuard ? guardValues() : []], context: ['context', hasContextFlag() ? CONTEXTS : []] };
  }

  /** The state a link describes: what it leaves out is the default, an unknown value is ignored and said so. */
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ''));
    S.notes = [];
    S.focus = armFromHash(p.get('arm'));
    var known = knownValues();
    Object.keys(S.filters).forEach(function (k) { S.filters[k] = filterFromHash(k, p.get(k) || '', known[k]); });
    if (S.focus === ALL && (S.filters.outcome || S.filters.guard || S.filters.context)) {
      S.notes.push('outcome and guard filters apply to one arm: ignored with all lines' + (S.filters.context ? ' (the context filter too)' : ''));
      S.filters.outcome = S.filters.guard = S.filters.context = '';
    }
    S.page = 0;
    S.open = null;
    if (p.has('line')) openLine(p.get('line'), p.get('dataset'));
  }

  function armFromHash(v) {
    if (v === null || v === ALL || S.arms.indexOf(v) >= 0) return v === null ? S.defaultFocus : v;
    S.notes.push('unknown arm "' + v + '" in the link: showing ' + S.defaultFocus);
    return S.defaultFocus;
  }

  function filterFromHash(k, v, known) {
    if (!v || !known || known[1].indexOf(v) >= 0) return v;
    S.notes.push('unknown ' + known[0] + ' "' + v + '" in the link: ignored');
    return '';
  }

  /**
   * Show a line expanded, always: if the chosen arm has no line for it, switch to an arm that has, or to all
   * lines when no arm corrected it; if the other filters hide it, clear them; say what changed; go to its page.
   */
  function openLine(id, dataset) {
    var r = S.rows.find(function (x) { return x.line.sample_id === id && (!dataset || x.line.dataset === dataset); });
    if (!r) { S.notes.push('line "' + id + '"' + (dataset ? ' of ' + dataset : '') + ' is not in this report'); return; }
    if (S.focus !== ALL && !r.line.arms[S.focus]) {
      var other = S.arms.find(function (a) { return r.line.arms[a]; });
      S.notes.push(other ? 'line ' + id + ' has no ' + S.focus + ' output: showing arm ' + other
        : 'no arm corrected line ' + id + ': showing all lines');
      setFocus(other || ALL);
    }
    if (!matches(r)) {
      S.notes.push('filters cleared to show line ' + id);
      S.filters = noFilters();
    }
    S.open = r;
    S.page = Math.floor(view().indexOf(r) / PAGE_SIZE);
  }

  function scrollToOpen() {
    var d = document.querySelector('#lines-table tr.lx-detail');
    if (d && /line=/.test(location.hash)) d.previousElementSibling.scrollIntoView({ block: 'start' });
  }

  async function main() {
    try {
      prepare(await loadDoc());
      readHash();
      renderControls();
      render();
      scrollToOpen();
      window.addEventListener('hashchange', function () { readHash(); render(); scrollToOpen(); });
      document.body.setAttribute('data-lines-ms', String(Math.round(performance.now())));
      document.body.setAttribute('data-lines-rendered', 'true');
    } catch (e) {
      document.getElementById('lines-count').textContent = 'error: ' + e;
      document.body.setAttribute('data-lines-error', String(e));
      console.error(e);
    }
  }

  main();
})();
