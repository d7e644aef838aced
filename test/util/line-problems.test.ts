import { expect } from 'chai';
import { lineRanges, summarizeLineProblems } from '../../src/util/line-problems';

describe('util/line-problems: per-line problems grouped by kind', () => {
  it('line numbers as ranges, at most three then …', () => {
    expect(lineRanges([1, 2, 3, 5, 7, 8])).to.equal('1–3, 5, 7–8');
    expect(lineRanges([1, 3, 5, 7, 9])).to.equal('1, 3, 5, …');
    expect(lineRanges(Array.from({ length: 2048 }, (_, i) => i + 1))).to.equal('1–2,048');
  });

  it('one sentence per kind, largest first, with count, lines, first example and fix; singular for one line', () => {
    const problems = [
      ...Array.from({ length: 2048 }, (_, i) => ({ line: i + 1, kind: 'lack prompt_type and prompt_version' })),
      { line: 2049, kind: 'are not valid JSON', detail: 'Unexpected end of JSON input' },
    ];
    expect(summarizeLineProblems(problems, { fix: (k) => (k.startsWith('lack') ? 'add them' : undefined) })).to.equal(
      '2,048 lines lack prompt_type and prompt_version (lines 1–2,048; e.g. line 1) — add them; 1 line is not valid JSON (line 2,049: Unexpected end of JSON input)',
    );
  });

  it('stays under the cap, counting the kinds left out', () => {
    const problems = Array.from({ length: 40 }, (_, i) => ({ line: i + 1, kind: `have a bad field_${i}`, detail: 'x'.repeat(60) }));
    const s = summarizeLineProblems(problems, { maxChars: 500 });
    expect(s.length).to.be.at.most(500);
    expect(s).to.match(/; and \d+ more kinds of problem$/);
  });
});
