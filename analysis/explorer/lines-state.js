/*
 * The state of the Lines view (analysis/explorer/lines.js): the index's columns prepared for the table (line
 * CERs and ΔCERs derived from edits as analysis/lines/explorer-lines.ts computes them), the chosen arm, filters, sort, page and
 * open line, and how its figures read (percent, percentage points, an upper-bound arm's dagger).
 */
/* exported LinesState */
var LinesState = (function () {
  'use strict';

  var PAGE_SIZE = 50;

  /** The arm filter's "all lines" value: no arm required, so lines no arm corrected are listed too (never an arm name). */
  var ALL = '*';

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
    /** Per arm with replicates: disagree[a][i] = 1 when its replicates scored different texts on line i, 0 when the same. */
    disagree: {},
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
      S.disagree[a] = x.disagree || null;
      if (x.guard) S.hasGuard = true;
    });
    S.arms.forEach(function (a) {
      var ref = a === S.baseline ? S.ocrCer : S.cer[S.baseline],
        d = (S.delta[a] = new Float64Array(S.n)),
        cer = S.cer[a];
      for (var i = 0; i < S.n; i++) d[i] = cer[i] - ref[i]; // NaN wherever either is missing
    });
  }

  /** The line CERs of an edits column (null: no line → NaN). */
  function cers(edits, refChars) {
    var out = new Float64Array(edits.length);
    for (var i = 0; i < edits.length; i++) out[i] = edits[i] === null ? NaN : lineCer(edits[i], refChars[i]);
    return out;
  }

  /** NaN (no value) as null. */
  function num(x) {
    return x !== x ? null : x;
  }

  /** A line CER as analysis/lines/explorer-lines.ts computes it: round(edits / ref_chars, 6), null without reference characters. */
  function lineCer(edits, refChars) {
    if (!(refChars > 0)) return NaN;
    var r = Math.round((edits / refChars) * 1e6) / 1e6;
    return Object.is(r, -0) ? 0 : r;
  }

  function guardOf(a, i) {
    var g = S.guard[a];
    return g && g[i] >= 0 ? S.guards[g[i]] : null;
  }

  /** An upper-bound arm (retrieval with the gold line as the query) carries a dagger wherever it is named. */
  function armName(a) {
    return S.upper[a] ? a + ' †' : a;
  }

  var pct = function (x) {
    return x === null || x === undefined ? '—' : (x * 100).toFixed(2) + '%';
  };

  var pp = function (x) {
    return x === null ? '—' : (x > 0 ? '+' : x < 0 ? '−' : '±') + Math.abs(x * 100).toFixed(2) + ' pp';
  };

  return { PAGE_SIZE: PAGE_SIZE, ALL: ALL, S: S, prepare: prepare, num: num, guardOf: guardOf, armName: armName, pct: pct, pp: pp };
})();
