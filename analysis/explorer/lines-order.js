/*
 * The lines the Lines view lists, in order: those the filters pass, sorted by the chosen column (lines without a
 * value last, ties in line order).
 */
/* exported LinesOrder */
var LinesOrder = (function () {
  'use strict';
  var S = LinesState.S,
    ALL = LinesState.ALL,
    num = LinesState.num,
    guardOf = LinesState.guardOf,
    matcher = LinesFilters.matcher;

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

  return { valueOf: valueOf, view: view };
})();
