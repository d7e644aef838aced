/*
 * Lines view of report.html, inlined by analysis/explorer/embed.ts after its parts: lines-data.js (loading the
 * index and the side files), lines-dom.js (diffs and retrieved sentences), lines-state.js (the state),
 * lines-filters.js and lines-order.js (which lines, in which order), lines-detail.js (the expanded line),
 * lines-table.js (the table), lines-controls.js (the controls) and lines-link.js (deep links). The table, its
 * sort and its filters run on the embedded index (columns: one entry per line); a row expands to OCR, gold and
 * each arm's output with the character diff computed at analysis time (analysis/lines/diff.ts) and the retrieved
 * sentences, read from the line's side file. Text from the data is only ever set as textContent, never parsed
 * as HTML.
 */
(function () {
  'use strict';
  var S = LinesState.S,
    prepare = LinesState.prepare;
  var renderControls = LinesControls.renderControls,
    show = LinesTable.show,
    readHash = LinesLink.readHash,
    scrollToOpen = LinesLink.scrollToOpen,
    textsForHash = LinesLink.textsForHash;

  async function main() {
    document.body.setAttribute('data-lines-start-ms', String(Math.round(performance.now())));
    try {
      prepare(await LinesData.readIndex());
      S.filters = LinesFilters.noFilters();
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
