/*
 * The expanded line of the Lines view: gold, OCR and each arm's output with its character diff against gold
 * (computed at analysis time, analysis/lines/diff.ts), its raw output and its retrieved sentences, from the line's
 * record in a side file.
 */
/* exported LinesDetail */
var LinesDetail = (function () {
  'use strict';
  var el = LinesDom.el,
    sides = LinesDom.sides,
    diffEl = LinesDom.diffEl,
    textRow = LinesDom.textRow,
    hitsEl = LinesDom.hitsEl;
  var S = LinesState.S,
    num = LinesState.num,
    armName = LinesState.armName,
    pct = LinesState.pct,
    pp = LinesState.pp;

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
    if (x.replicate_texts)
      out.push(
        textRow(
          a + ': replicates disagree',
          el(
            'ol',
            { class: 'rtl', dir: 'rtl', lang: 'ar', start: '0' },
            x.replicate_texts.map(function (t) {
              return el('li', {}, [t === null ? '(no line)' : t]);
            }),
          ),
        ),
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
  function detailRow(i, line, colspan) {
    var box = el('div', { class: 'lx-detail-box' }, [
      textRow('Gold', el('div', { class: 'rtl gold', dir: 'rtl', lang: 'ar' }, [sides(line.ocr.diff).gold])),
      textRow('OCR · CER ' + pct(line.ocr.cer), diffEl(line.ocr.diff, 'ocr')),
    ]);
    S.arms.forEach(function (a) {
      armRows(i, line, a).forEach(function (e) {
        box.append(e);
      });
    });
    return el('tr', { class: 'lx-detail', 'data-detail-for': line.sample_id }, [el('td', { colspan: String(colspan) }, [box])]);
  }

  return { detailRow: detailRow };
})();
