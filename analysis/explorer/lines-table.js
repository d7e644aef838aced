/*
 * The table of the Lines view: its columns, one row per line (a click opens the line), the page of rows, the
 * pager, the controls and notice kept in step with the state, and `show`, which reads what the state needs from
 * the side files before drawing.
 */
/* exported LinesTable */
var LinesTable = (function () {
  'use strict';
  var el = LinesDom.el;
  var S = LinesState.S,
    ALL = LinesState.ALL,
    PAGE_SIZE = LinesState.PAGE_SIZE,
    num = LinesState.num,
    armName = LinesState.armName,
    pct = LinesState.pct,
    pp = LinesState.pp;
  var FILTERS = LinesFilters.FILTERS,
    valueOf = LinesOrder.valueOf,
    view = LinesOrder.view,
    detailRow = LinesDetail.detailRow;

  function columns() {
    var cols = [
      ['idx', '#'],
      ['dataset', 'Dataset'],
      ['sample_id', 'sample_id'],
      ['band', 'OCR CER band'],
      ['ocr', 'OCR CER'],
    ];
    S.arms.forEach(function (a) {
      cols.push(['cer:' + a, armName(a) + ' CER']);
      cols.push(['delta:' + a, 'ΔCER ' + armName(a) + (a === S.baseline ? ' vs OCR' : ' vs ' + S.baseline)]);
    });
    if (S.hasGuard) cols.push(['guard', 'Guard']);
    return cols;
  }

  function cell(i, key) {
    if (key.indexOf('delta:') === 0) {
      var d = num(S.delta[key.slice(6)][i]);
      return el(
        'td',
        { class: 'num ' + (d === null ? '' : d < -1e-9 ? 'better' : d > 1e-9 ? 'worse' : ''), 'data-value': d === null ? '' : String(d) },
        [pp(d)],
      );
    }
    if (key === 'band') return el('td', {}, [S.bands[S.band[i]]]);
    var v = valueOf(key)(i);
    if (key === 'ocr' || key.indexOf('cer:') === 0) return el('td', { class: 'num', 'data-value': v === null ? '' : String(v) }, [pct(v)]);
    return el('td', key === 'idx' ? { class: 'num' } : {}, [v === null || v === undefined ? '—' : String(v)]);
  }

  function renderHead() {
    var tr = el('tr');
    columns().forEach(function (c) {
      var th = el('th', { 'data-sort': c[0], scope: 'col' }, [c[1]]);
      if (S.sort.key === c[0]) th.setAttribute('aria-sort', S.sort.dir > 0 ? 'ascending' : 'descending');
      th.addEventListener('click', function () {
        sortBy(c[0]);
      });
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
    list.slice(S.page * PAGE_SIZE, (S.page + 1) * PAGE_SIZE).forEach(function (i) {
      body.append(rowEl(i));
      var line = S.open === i ? LinesData.lineNow(i) : null;
      if (line) body.append(detailRow(i, line, columns().length));
    });
    document.getElementById('lines-count').textContent = String(list.length);
    document.getElementById('lines-page').textContent = '· page ' + (S.page + 1) + ' of ' + pages;
    renderPager(pages);
    syncControls();
    renderNotice();
  }

  /** The controls show the state, whatever set it (a control, a link, a line opened from a link). */
  function syncControls() {
    var set = function (id, v) {
      var s = document.getElementById(id);
      if (s) s.value = v;
      return s;
    };
    set('lines-arm', S.focus);
    FILTERS.forEach(function (f) {
      var s = set('lines-' + f.key, S.filters[f.key]);
      if (s && f.perArm) s.disabled = S.focus === ALL;
    });
    var q = document.getElementById('lines-q');
    if (q && q.value.trim() !== S.filters.q) q.value = S.filters.q; // leave a trailing space being typed alone
  }

  /** One line saying how a link was read: unknown values ignored, the arm or filters changed to show its line. */
  function renderNotice() {
    var n = document.getElementById('lines-notice');
    n.textContent = S.notes.join(' · ');
    n.hidden = S.notes.length === 0;
  }

  function rowEl(i) {
    var tr = el('tr', {
      class: 'lx-row' + (S.open === i ? ' open' : ''),
      'data-sample-id': S.ids[i],
      'data-dataset': S.datasetNames[S.dataset[i]],
      tabindex: '0',
      'aria-expanded': String(S.open === i),
    });
    columns().forEach(function (c) {
      tr.append(cell(i, c[0]));
    });
    tr.addEventListener('click', function () {
      S.open = S.open === i ? -1 : i;
      show();
    });
    tr.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') tr.click();
    });
    return tr;
  }

  function renderPager(pages) {
    var go = function (p) {
      return function () {
        S.page = p;
        render();
      };
    };
    var prev = el('button', { type: 'button', id: 'lines-prev' }, ['‹ previous']);
    var next = el('button', { type: 'button', id: 'lines-next' }, ['next ›']);
    prev.disabled = S.page === 0;
    next.disabled = S.page >= pages - 1;
    prev.addEventListener('click', go(S.page - 1));
    next.addEventListener('click', go(S.page + 1));
    document.getElementById('lines-pager').replaceChildren(prev, next);
  }

  /** Say a side file that could not be read (the view goes on without it: no expanded line, search by sample_id only). */
  function loadFailed(e) {
    S.notes.push(String(e && e.message ? e.message : e));
  }

  /** Read what the state needs from the side files (the search's texts, the open line), then draw. */
  function show() {
    var need = [];
    if (S.filters.q && !LinesData.textsNow()) need.push(LinesData.texts().catch(loadFailed));
    if (S.open >= 0 && !LinesData.lineNow(S.open)) need.push(LinesData.line(S.open).catch(loadFailed));
    if (need.length) document.getElementById('lines-count').textContent = '…';
    return Promise.all(need).then(render);
  }

  return { show: show, loadFailed: loadFailed };
})();
