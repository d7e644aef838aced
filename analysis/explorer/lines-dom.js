/*
 * The DOM pieces of the Lines view (analysis/explorer/lines.js): elements, the character diff of a text against
 * gold (segments as analysis/lines/diff.ts writes them), a labelled row of the expanded line, the retrieved sentences.
 * Text from the data is only ever set as textContent, never parsed as HTML.
 */
/* exported LinesDom */
var LinesDom = (function () {
  'use strict';

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      e.append(c);
    });
    return e;
  }

  /** Gold and output text of a diff (segments: a string, or [gold, output, edits]). */
  function sides(diff) {
    var gold = '',
      out = '';
    diff.forEach(function (s) {
      if (typeof s === 'string') {
        gold += s;
        out += s;
      } else {
        gold += s[0];
        out += s[1];
      }
    });
    return { gold: gold, output: out };
  }

  function diffEl(diff, id) {
    var box = el('div', { class: 'diff', dir: 'rtl', lang: 'ar', 'data-diff': id });
    diff.forEach(function (s) {
      box.append(typeof s === 'string' ? s : changeEl(s));
    });
    return box;
  }

  function changeEl(s) {
    var ws = function (t) {
      return /^\s+$/.test(t) ? ' ws' : '';
    };
    var del = s[0] ? el('del', { class: 'edit' + ws(s[0]) }, [s[0]]) : null;
    var ins = s[1] ? el('ins', { class: 'edit' + ws(s[1]) }, [s[1]]) : null;
    if (del && ins)
      return el(
        'span',
        {
          class: 'sub',
          title: 'gold ' + s[0] + ' → output ' + s[1] + ' (' + s[2] + ' edit' + (s[2] === 1 ? '' : 's') + ')',
          'data-edits': String(s[2]),
        },
        [del, ins],
      );
    var one = del || ins;
    one.setAttribute('data-edits', String(s[2]));
    one.setAttribute('title', (del ? 'missing in output: ' : 'not in gold: ') + (s[0] || s[1]));
    return one;
  }

  function textRow(label, content) {
    return el('div', { class: 'lx-text' }, [el('div', { class: 'lx-label' }, [label]), content]);
  }

  /** The retrieved sentences of an arm's line; `excluded`: whether the dataset's source book was left out of the corpus (null: unknown). */
  function hitsEl(hits, excluded) {
    if (hits.length === 0) return el('div', { class: 'lx-meta' }, ['no retrieval (zero-shot fallback)']);
    var ol = el('ol', { class: 'lx-hits' });
    hits.forEach(function (h) {
      var meta = el('div', { class: 'lx-meta', dir: 'ltr' }, [
        'score ' + (h.score === null ? '—' : h.score.toFixed(3)) + ' · ' + (h.source_uri || '—'),
      ]);
      if (h.from_source) meta.append(el('span', { class: 'flag' }, ["from the dataset's source book"]));
      if (h.provenance) meta.append(el('span', { class: 'flag' }, [h.provenance.replace('_', ' ')]));
      meta.append(
        el('span', { class: 'flag' }, [
          'source book excluded: ' + (excluded === null || excluded === undefined ? 'unknown' : excluded ? 'yes' : 'no'),
        ]),
      );
      ol.append(el('li', {}, [meta, el('div', { class: 'rtl', dir: 'rtl', lang: 'ar' }, [h.text === null ? '—' : h.text])]));
    });
    return ol;
  }

  return { el: el, sides: sides, diffEl: diffEl, textRow: textRow, hitsEl: hitsEl };
})();
