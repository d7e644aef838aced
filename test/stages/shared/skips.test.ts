/**
 * Counted skips (src/stages/shared/skips.ts): zero counts dropped, at most three examples kept while the count stays
 * complete, the one-line description with labels, a "…" when examples were left out, and repeated files
 * shortened to `:line`.
 */
import { expect } from 'chai';
import { compactExamples, describeKinds, MAX_SKIP_EXAMPLES, skipsFromCounts, totalSkips } from '../../../src/stages/shared/skips';

describe('stages/skips', () => {
  it('skipsFromCounts drops zero counts and keeps at most MAX_SKIP_EXAMPLES examples; totalSkips sums every kind', () => {
    const skips = skipsFromCounts(
      { badLines: 5, duplicateIds: 0, tooLong: 1 },
      { badLines: ['a.jsonl:1', 'a.jsonl:2', 'a.jsonl:3', 'a.jsonl:4'] },
    );
    expect(Object.keys(skips)).to.deep.equal(['badLines', 'tooLong']);
    expect(skips.badLines).to.deep.equal({ count: 5, examples: ['a.jsonl:1', 'a.jsonl:2', 'a.jsonl:3'] });
    expect(MAX_SKIP_EXAMPLES).to.equal(3);
    expect(totalSkips(skips)).to.equal(6);
    expect(totalSkips(undefined)).to.equal(0);
  });

  it('describeKinds names each kind, compacts the examples and marks the ones left out', () => {
    const skips = skipsFromCounts(
      { badLines: 4, duplicateIds: 1, custom_kind: 2 },
      { badLines: ['data/x.jsonl:4', 'data/x.jsonl:9', 'data/x.jsonl:12'], duplicateIds: ['data/x.jsonl:7'] },
    );
    expect(describeKinds(skips)).to.equal(
      '4 invalid line (data/x.jsonl:4, :9, :12, …), 1 duplicate sample_id (data/x.jsonl:7), 2 custom_kind',
    );
  });

  it('compactExamples shortens paths and repeats of the same file; examples without a line stay whole', () => {
    const short = (f: string) => f.replace('/long/path/', '');
    expect(compactExamples(['/long/path/a.txt:3', '/long/path/a.txt:8', '/long/path/b.txt:1: bad', 'KHATT/0001'], short)).to.deep.equal([
      'a.txt:3',
      ':8',
      'b.txt:1',
      'KHATT/0001',
    ]);
  });
});
