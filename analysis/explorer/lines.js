/*
 * Lines view of report.html (inlined by analysis/explorer/embed.ts after lines-data.js, which loads the data,
 * and lines-dom.js, which builds the diffs and retrieved sentences).
 * The table, its sort and its filters run on the embedded index (columns: one entry per line); a row expands
 * to OCR, gold and each arm's output with the character diff computed at analysis time (analysis/diff.ts) and
 * the retrieved sentences, read from the line's side file. Text from the data is only ever set as
 * textContent, never parsed as HTML.
 */
(function () {
  'use strict';
  var el = LinesDom.el,
    sides = LinesDom.sides,
    diffEl = LinesDom.diffEl,
    textRow = LinesDom.textRow,
    hitsEl = LinesDom.hitsEl;
  var PAGE_SIZE = 50;
  /** The arm filter's "all lines" value: no arm required, so lines no arm corrected are listed too (never an arm name). */
  var ALL = '*';
  var OUTCOMES = ['improved', 'unchanged', 'worsened', 'n/a'];
  /** Per line i: ids[i], dataset[i] / band[i] (indices into datasetNames / bands), ocrCer[i]; per arm a: has[a][i], cer[a][i], delta[a][i] (NaN = none), guard[a][i] (index into guards, -1 = none). */
  var S = {
    n: 0,
    ids: [],
    dataset: [],
    datasetNames: [],
    band: [],
    bands: [],
    ocrCer: null,
    has: {},
    cer: {},
    delta: {},
    guard: {},
    guards: [],
    context: {},
    arms: [],
    upper: {},
    baseline: '',
    focus: '',
    defaultFocus: '',
    datasets: {},
    hasGuard: false,
    filters: {},
    sort: { key: 'idx', dir: 1 },
    page: 0,
    open: -1,
    notes: [],
  };

  /**
   * The filters besides the arm and the text search, in the order of their controls: key (the link's parameter;
   * the control is #lines-<key>), label, whether it applies to the chosen arm (then off with all lines), the
   * values it offers (none: no control), and whether line i passes value v for arm a. A filter is one entry.
   */
  var FILTERS = [
    {
      key: 'dataset',
      label: 'Dataset',
      values: function () {
        return S.datasetNames;
      },
      test: function (i, v) {
        return S.datasetNames[S.dataset[i]] === v;
      },
    },
    {
      key: 'band',
      label: 'OCR CER band',
      values: function () {
        return S.bands;
      },
      test: function (i, v) {
        return S.bands[S.band[i]] === v;
      },
    },
    {
      key: 'outcome',
      label: 'Outcome of the arm',
      perArm: true,
      values: function () {
        return OUTCOMES;
      },
      test: function (i, v, a) {
        return outcomeOf(num(S.delta[a][i])) === v;
      },
    },
    {
      key: 'guard',
      label: 'Guard',
      perArm: true,
      values: guardValues,
      test: function (i, v, a) {
        return (guardOf(a, i) || '(none)') === v;
      },
    },
    {
      key: 'context',
      label: 'Gold passage',
      perArm: true,
      values: contextValues,
      test: function (i, v, a) {
        return contextOf(a, i) === v;
      },
    },
  ];

  /** Study arms: whether the arm's context held the line's gold passage (lines.json `gold_in_context`). */
  var CONTEXTS = ['in context', 'not in context'];
  function contextOf(a, i) {
    var c = S.context[a];
    return c && c[i] >= 0 ? CONTEXTS[1 - c[i]] : null;
  }
  function contextValues() {
    return S.arms.some(function (a) {
      return S.context[a];
    })
      ? CONTEXTS
      : [];
  }

  function noFilters() {
    var f = {};
    FILTERS.forEach(function (x) {
      f[x.key] = '';
    });
    f.q = '';
    return f;
  }

  /** NaN (no value) as null. */
  function num(x) {
    return x !== x ? null : x;
  }

  /** A line CER as analysis/lines.ts computes it: round(edits / ref_chars, 6), null without reference characters. */
  function lineCer(edits, refChars) {
    if (!(refChars > 0)) return NaN;
    var r = Math.round((edits / refChars) * 1e6) / 1e6;
    return Object.is(r, -0) ? 0 : r;
  }

  function prepare(index) {
    var c = index.columns,
      meta = index.meta;
    S.arms = meta.arms.map(function (a) {
      return a.name;
    });
    meta.arms.forEach(function (a) {
      if (a.upper_bound) S.upper[a.name] = true;
    });
    S.baseline = meta.baseline;
    S.focus = S.defaultFocus =
      S.arms.find(function (a) {
        return a !== S.baseline;
      }) || S.baseline;
    S.bands = meta.bands || [];
    meta.datasets.forEach(function (d) {
      S.datasets[d.name] = d;
      S.datasetNames.push(d.name);
    });
    S.n = c.sample_id.length;
    S.ids = c.sample_id;
    S.dataset = c.dataset;
    S.band = c.band;
    S.guards = c.guards;
    S.ocrCer = cers(c.ocr_edits, c.ref_chars);
    S.arms.forEach(function (a) {
      var x = c.arms[a];
      S.cer[a] = cers(x.edits, c.ref_chars);
      S.has[a] = new Uint8Array(S.n);
      for (var i = 0; i < S.n; i++) S.has[a][i] = x.edits[i] === null ? 0 : 1;
      S.guard[a] = x.guard;
      S.context[a] = x.context || null;
      if (x.guard) S.hasGuard = true;
    });
    S.arms.forEach(function (a) {
      var ref = a === S.baseline ? S.ocrCer : S.cer[S.baseline],
        d = (S.delta[a] = new Float64Array(S.n)),
        cer = S.cer[a];
      for (var i = 0; i < S.n; i++) d[i] = cer[i] - ref[i]; // NaN wherever either is missing
    });
    S.filters = noFilters();
  }

  /** The line CERs of an edits column (null: no line → NaN). */
  function cers(edits, refChars) {
    var out = new Float64Array(edits.length);
    for (var i = 0; i < edits.length; i++) out[i] = edits[i] === null ? NaN : lineCer(edits[i], refChars[i]);
    return out;
  }

  function guardOf(a, i) {
    var g = S.guard[a];
    return g && g[i] >= 0 ? S.guards[g[i]] : null;
  }

  function outcomeOf(d) {
    if (d === null) return 'n/a';
    return Math.abs(d) < 1e-9 ? 'unchanged' : d < 0 ? 'improved' : 'worsened';
  }

  /** Per-arm filters belong to the chosen arm; with all lines (S.focus === ALL) they are cleared and disabled. */
  function matcher() {
    var a = S.focus === ALL ? null : S.focus,
      has = a === null ? null : S.has[a],
      q = S.filters.q;
    var active = FILTERS.filter(function (f) {
      return S.filters[f.key] && !(f.perArm && a === null);
    });
    return function (i) {
      if (has !== null && !has[i]) return false;
      for (var k = 0; k < active.length; k++) if (!active[k].test(i, S.filters[active[k].key], a)) return false;
      return !q || textMatches(i, q);
    };
  }

  function matches(i) {
    return matcher()(i);
  }

  /** The search over gold, OCR and sample_id (the texts are read on the first search; without them, sample_id only). */
  function textMatches(i, q) {
    var t = LinesData.textsNow();
    return S.ids[i].indexOf(q) >= 0 || (t !== null && (t.gold[i].indexOf(q) >= 0 || t.ocr[i].indexOf(q) >= 0));
  }

  /** The value of column `key` for line i (null: none). */
  function valueOf(key) {
    if (key === 'idx')
      return function (i) {
        return i + 1;
      };
    if (key === 'dataset')
      return function (i) {
        return S.datasetNames[S.dataset[i]];
      };
    if (key === 'sample_id')
      return function (i) {
        return S.ids[i];
      };
    if (key === 'band')
      return function (i) {
        return S.band[i];
      };
    if (key === 'ocr')
      return function (i) {
        return num(S.ocrCer[i]);
      };
    if (key === 'guard')
      return function (i) {
        return S.focus === ALL ? null : guardOf(S.focus, i);
      };
    var arm = key.slice(key.indexOf(':') + 1),
      col = key.indexOf('delta:') === 0 ? S.delta[arm] : S.cer[arm];
    return function (i) {
      return num(col[i]);
    };
  }

  function view() {
    var list = [],
      keep = matcher();
    for (var i = 0; i < S.n; i++) if (keep(i)) list.push(i);
    if (S.sort.key === 'idx' && S.sort.dir === 1) return list;
    var get = valueOf(S.sort.key),
      dir = S.sort.dir;
    return list.sort(function (a, b) {
      var va = get(a),
        vb = get(b);
      if (va === null || va === undefined) return vb === null || vb === undefined ? a - b : 1;
      if (vb === null || vb === undefined) return -1;
      var c = va < vb ? -1 : va > vb ? 1 : 0;
      return c * dir || a - b;
    });
  }

  /** An upper-bound arm (retrieval with the gold line as the query) carries a dagger wherever it is named. */
  function armName(a) {
    return S.upper[a] ? a + ' †' : a;
  }

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

  var pct = function (x) {
    return x === null || x === undefined ? '—' : (x * 100).toFixed(2) + '%';
  };
  var pp = function (x) {
    return x === null ? '—' : (x > 0 ? '+' : x < 0 ? '−' : '±') + Math.abs(x * 100).toFixed(2) + ' pp';
  };

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
      if (line) body.append(detailRow(i, line));
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

  // ---- the expanded line -------------------------------------------------------------------

  function armLabel(i, a, x) {
    var parts = [armName(a) + ' · CER ' + pct(x.cer) + ' · Δ ' + pp(num(S.delta[a][i]))];
    if (S.upper[a]) parts.push('upper bound: retrieved with the gold line as the query');
    if (x.failed) parts.push('failed: ' + x.failed + ' (scored as OCR)');
    if (x.guard) parts.push('guard: ' + x.guard);
    return parts.join(' · ');
  }

  function armRows(i, line, a) {
    var x = line.arms[a];
    if (!x) return [textRow(a, el('div', { class: 'lx-meta' }, ['no line for this sample']))];
    var out = [textRow(armLabel(i, a, x), diffEl(x.diff, a))];
    if (x.raw !== null)
      out.push(
        textRow(a + ': raw model output (before trimming / guard)', el('div', { class: 'rtl raw', dir: 'rtl', lang: 'ar' }, [x.raw])),
      );
    if (x.retrieval)
      out.push(
        textRow(
          a + ': retrieved sentences',
          hitsEl(x.retrieval, S.datasets[line.dataset] ? S.datasets[line.dataset].source_excluded : null),
        ),
      );
    return out;
  }

  /** The expanded line i, from its line of lines.json. */
  function detailRow(i, line) {
    var box = el('div', { class: 'lx-detail-box' }, [
      textRow('Gold', el('div', { class: 'rtl gold', dir: 'rtl', lang: 'ar' }, [sides(line.ocr.diff).gold])),
      textRow('OCR · CER ' + pct(line.ocr.cer), diffEl(line.ocr.diff, 'ocr')),
    ]);
    S.arms.forEach(function (a) {
      armRows(i, line, a).forEach(function (e) {
        box.append(e);
      });
    });
    return el('tr', { class: 'lx-detail', 'data-detail-for': line.sample_id }, [el('td', { colspan: String(columns().length) }, [box])]);
  }

  // ---- controls and deep links -------------------------------------------------------------

  function select(id, label, options, value, onChange) {
    var s = el('select', { id: id });
    options.forEach(function (o) {
      var opt = el('option', { value: o[0] }, [o[1]]);
      opt.selected = o[0] === value;
      s.append(opt);
    });
    s.addEventListener('change', function () {
      onChange(s.value);
      S.page = 0;
      S.open = -1;
      S.notes = [];
      writeHash();
      show();
    });
    return el('label', {}, [label, s]);
  }

  function setFilter(k) {
    return function (v) {
      S.filters[k] = v;
    };
  }

  function setFocus(v) {
    S.focus = v;
    if (v === ALL)
      FILTERS.forEach(function (f) {
        if (f.perArm) S.filters[f.key] = '';
      });
  }

  /** The guard decisions of any arm's line ('(none)': an arm line without one); none when no arm ran with a guard. */
  function guardValues() {
    if (!S.hasGuard) return [];
    var seen = new Set();
    S.arms.forEach(function (a) {
      var g = S.guard[a],
        has = S.has[a];
      for (var i = 0; i < S.n; i++) if (has[i]) seen.add(g ? g[i] : -1);
    });
    return Array.from(seen, function (k) {
      return k >= 0 ? S.guards[k] : '(none)';
    }).sort();
  }

  function renderControls() {
    var pairs = function (xs) {
      return xs.map(function (x) {
        return [x, x];
      });
    };
    var q = el('input', { id: 'lines-q', type: 'search', dir: 'auto', placeholder: 'OCR / gold / sample_id' });
    q.value = S.filters.q;
    q.addEventListener('input', function () {
      S.filters.q = q.value.trim();
      S.page = 0;
      S.open = -1;
      S.notes = [];
      writeHash();
      show();
    });
    var arms = S.arms
      .map(function (a) {
        return [a, S.upper[a] ? a + ' † (upper bound)' : a];
      })
      .concat([[ALL, 'all lines (any arm or none)']]);
    var c = [select('lines-arm', 'Arm', arms, S.focus, setFocus)];
    FILTERS.forEach(function (f) {
      var values = f.values();
      if (values.length) c.push(select('lines-' + f.key, f.label, [['', 'all']].concat(pairs(values)), S.filters[f.key], setFilter(f.key)));
    });
    c.push(el('label', {}, ['Search', q]));
    document.getElementById('lines-controls').replaceChildren.apply(document.getElementById('lines-controls'), c);
  }

  function writeHash() {
    var p = new URLSearchParams();
    p.set('arm', S.focus);
    Object.keys(S.filters).forEach(function (k) {
      if (S.filters[k]) p.set(k, S.filters[k]);
    });
    try {
      history.replaceState(null, '', '#' + p.toString());
    } catch (e) {
      /* file:// may refuse; the view works without */
    }
  }

  /** The state a link describes: what it leaves out is the default, an unknown value is ignored and said so. */
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ''));
    S.notes = [];
    S.focus = armFromHash(p.get('arm'));
    S.filters = noFilters();
    FILTERS.forEach(function (f) {
      S.filters[f.key] = filterFromHash(f, p.get(f.key) || '');
    });
    S.filters.q = p.get('q') || '';
    if (
      S.focus === ALL &&
      FILTERS.some(function (f) {
        return f.perArm && S.filters[f.key];
      })
    ) {
      var names = FILTERS.filter(function (f) {
        return f.perArm && f.values().length;
      }).map(function (f) {
        return f.key;
      });
      S.notes.push(
        names.slice(0, -1).join(', ') +
          (names.length > 1 ? ' and ' : '') +
          names[names.length - 1] +
          ' filters apply to one arm: ignored with all lines',
      );
      setFocus(ALL);
    }
    S.page = 0;
    S.open = -1;
    if (p.has('line')) openLine(p.get('line'), p.get('dataset'));
  }

  function armFromHash(v) {
    if (v === null || v === ALL || S.arms.indexOf(v) >= 0) return v === null ? S.defaultFocus : v;
    S.notes.push('unknown arm "' + v + '" in the link: showing ' + S.defaultFocus);
    return S.defaultFocus;
  }

  function filterFromHash(f, v) {
    if (!v || f.values().indexOf(v) >= 0) return v;
    S.notes.push('unknown ' + f.key + ' "' + v + '" in the link: ignored');
    return '';
  }

  /**
   * Show a line expanded, always: if the chosen arm has no line for it, switch to an arm that has, or to all
   * lines when no arm corrected it; if the other filters hide it, clear them; say what changed; go to its page.
   */
  function openLine(id, dataset) {
    var i = -1;
    for (var k = 0; k < S.n && i < 0; k++) if (S.ids[k] === id && (!dataset || S.datasetNames[S.dataset[k]] === dataset)) i = k;
    if (i < 0) {
      S.notes.push('line "' + id + '"' + (dataset ? ' of ' + dataset : '') + ' is not in this report');
      return;
    }
    if (S.focus !== ALL && !S.has[S.focus][i]) {
      var other = S.arms.find(function (a) {
        return S.has[a][i];
      });
      S.notes.push(
        other
          ? 'line ' + id + ' has no ' + S.focus + ' output: showing arm ' + other
          : 'no arm corrected line ' + id + ': showing all lines',
      );
      setFocus(other || ALL);
    }
    if (!matches(i)) {
      S.notes.push('filters cleared to show line ' + id);
      S.filters = noFilters();
    }
    S.open = i;
    S.page = Math.floor(view().indexOf(i) / PAGE_SIZE);
  }

  function scrollToOpen() {
    var d = document.querySelector('#lines-table tr.lx-detail');
    if (d && /line=/.test(location.hash)) d.previousElementSibling.scrollIntoView({ block: 'start' });
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

  /** The link's search needs the texts before its line can be placed. */
  function textsForHash() {
    var q = new URLSearchParams(location.hash.replace(/^#/, '')).get('q');
    return q && !LinesData.textsNow() ? LinesData.texts().catch(loadFailed) : Promise.resolve();
  }

  async function main() {
    document.body.setAttribute('data-lines-start-ms', String(Math.round(performance.now())));
    try {
      prepare(await LinesData.readIndex());
      await textsForHash();
      var early = S.notes;
      readHash();
      S.notes = early.concat(S.notes);
      renderControls();
      await show();
      scrollToOpen();
      window.addEventListener('hashchange', function () {
        textsForHash()
          .then(function () {
            readHash();
            return show();
          })
          .then(scrollToOpen);
      });
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
