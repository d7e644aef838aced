/*
 * Deep links into the Lines view: the state a link (#arm=…&<filter>=…&q=…&line=…) describes, what it leaves out
 * set to the default, an unknown value ignored and said so, and a linked line always shown expanded.
 */
/* exported LinesLink */
var LinesLink = (function () {
  'use strict';
  var S = LinesState.S,
    ALL = LinesState.ALL,
    PAGE_SIZE = LinesState.PAGE_SIZE;
  var FILTERS = LinesFilters.FILTERS,
    noFilters = LinesFilters.noFilters,
    setFocus = LinesFilters.setFocus,
    matches = LinesFilters.matches,
    view = LinesOrder.view,
    loadFailed = LinesTable.loadFailed;

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

  /** The link's search needs the texts before its line can be placed. */
  function textsForHash() {
    var q = new URLSearchParams(location.hash.replace(/^#/, '')).get('q');
    return q && !LinesData.textsNow() ? LinesData.texts().catch(loadFailed) : Promise.resolve();
  }

  return { readHash: readHash, scrollToOpen: scrollToOpen, textsForHash: textsForHash };
})();
