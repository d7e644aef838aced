/*
 * The controls of the Lines view: the arm, one select per filter that has values, the search box; each change
 * resets the page and the open line and is written to the link (#arm=…&band=…).
 */
/* exported LinesControls */
var LinesControls = (function () {
  'use strict';
  var el = LinesDom.el;
  var S = LinesState.S,
    ALL = LinesState.ALL;
  var FILTERS = LinesFilters.FILTERS,
    setFocus = LinesFilters.setFocus,
    show = LinesTable.show;

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

  return { renderControls: renderControls };
})();
