/*
 * The filters of the Lines view: the arm, the filters of FILTERS (dataset, band, the arm's outcome, guard and
 * gold passage) and the text search over gold, OCR and sample_id, as one predicate on line indices.
 */
/* exported LinesFilters */
var LinesFilters = (function () {
  'use strict';
  var S = LinesState.S,
    ALL = LinesState.ALL,
    num = LinesState.num,
    guardOf = LinesState.guardOf;

  var OUTCOMES = ['improved', 'unchanged', 'worsened', 'n/a'];

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
      key: 'replicates',
      label: 'Replicates',
      perArm: true,
      values: replicateValues,
      test: function (i, v, a) {
        var d = S.disagree[a];
        return d !== null && d !== undefined && d[i] >= 0 && REPLICATES[1 - d[i]] === v;
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

  /** Arms with replicates: whether the replicates scored different texts on the line (lines.json `replicates_disagree`). */
  var REPLICATES = ['disagree', 'agree'];

  function replicateValues() {
    return S.arms.some(function (a) {
      return S.disagree[a];
    })
      ? REPLICATES
      : [];
  }

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

  function outcomeOf(d) {
    if (d === null) return 'n/a';
    return Math.abs(d) < 1e-9 ? 'unchanged' : d < 0 ? 'improved' : 'worsened';
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

  function setFocus(v) {
    S.focus = v;
    if (v === ALL)
      FILTERS.forEach(function (f) {
        if (f.perArm) S.filters[f.key] = '';
      });
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

  return { FILTERS: FILTERS, noFilters: noFilters, setFocus: setFocus, matcher: matcher, matches: matches };
})();
