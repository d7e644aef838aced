/*
 * Loading for the Lines view of report.html (analysis/explorer/bundle.ts writes what it reads): the index
 * embedded in the page (gzip + base64 of JSON columns), and on demand the side files in report-lines/ —
 * `lines-NNNN.js` (the lines of lines.json, for an expanded line) and `text-NNNN.js` (gold and OCR text, for
 * the search). A page opened from file:// may not fetch() a file beside it but may load a script, so each side
 * file is a script calling openitiLinesChunk(id, kind, n, data); data from a file of another render (another
 * id) is refused.
 */
/* exported LinesData */
var LinesData = (function () {
  'use strict';
  var index = null;
  var loads = {};
  var loaded = {};
  var texts = null;

  async function inflate(b64) {
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text();
  }

  async function readIndex() {
    index = JSON.parse(await inflate(document.getElementById('lines-index').textContent.trim()));
    return index;
  }

  window.openitiLinesChunk = function (id, kind, n, data) {
    var load = loads[kind + ':' + n];
    if (load)
      load.arrived =
        id === index.id
          ? data
          : new Error(
              load.file +
                ' belongs to another render of this report (re-run the report, or keep report.html with its own ' +
                index.side.dir +
                '/)',
            );
  };

  function fileOf(kind, n) {
    return index.side.dir + '/' + kind + '-' + String(n).padStart(4, '0') + '.js';
  }

  /** Side file `n` of `kind` ('lines' or 'text'), parsed; a failed load is tried again on the next call. */
  function chunk(kind, n) {
    var key = kind + ':' + n;
    if (loaded[key]) return Promise.resolve(loaded[key]);
    if (loads[key]) return loads[key].promise;
    var load = (loads[key] = { file: fileOf(kind, n), arrived: undefined });
    load.promise = new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = load.file;
      s.onload = function () {
        s.remove();
        if (load.arrived instanceof Error) reject(load.arrived);
        else if (load.arrived === undefined) reject(new Error(load.file + ' did not hand over its lines'));
        else
          inflate(load.arrived).then(function (t) {
            resolve((loaded[key] = JSON.parse(t)));
          }, reject);
      };
      s.onerror = function () {
        s.remove();
        reject(new Error('could not read ' + load.file + ': keep the folder ' + index.side.dir + '/ beside report.html'));
      };
      document.head.append(s);
    }).finally(function () {
      delete loads[key];
    });
    return load.promise;
  }

  /** Line `i` of lines.json when its side file is loaded, else null. */
  function lineNow(i) {
    var c = loaded['lines:' + Math.floor(i / index.side.lines.size)];
    return c ? c[i % index.side.lines.size] : null;
  }

  function line(i) {
    return chunk('lines', Math.floor(i / index.side.lines.size)).then(function () {
      return lineNow(i);
    });
  }

  /** Gold and OCR text (scoring form) of every line: { gold: [], ocr: [] }, all side files read at once. */
  function allTexts() {
    if (texts) return Promise.resolve(texts);
    var parts = [];
    for (var n = 0; n < index.side.text.count; n++) parts.push(chunk('text', n));
    return Promise.all(parts).then(function (cs) {
      var t = { gold: [], ocr: [] };
      cs.forEach(function (c) {
        c.forEach(function (p) {
          t.gold.push(p[0]);
          t.ocr.push(p[1]);
        });
      });
      for (var k = 0; k < cs.length; k++) delete loaded['text:' + k];
      return (texts = t);
    });
  }

  return {
    readIndex: readIndex,
    line: line,
    lineNow: lineNow,
    texts: allTexts,
    textsNow: function () {
      return texts;
    },
  };
})();
