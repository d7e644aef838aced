/**
 * Witness index offsets are 32-bit (src/witness/build.ts MAX_KEY_POSITIONS): a layout that would pass the bound
 * stops with a one-line error instead of wrapping offsets around. The bound is lowered here to a few hundred
 * positions so the test builds kilobytes, not 8 GB; the default is 2^32 − 1.
 */
import { expect } from 'chai';
import { MAX_KEY_POSITIONS, WitnessLayoutBuilder } from '../../src/witness/build';
import type { WitnessWork } from '../../src/witness/works';

const work = (uri: string, lines: number): WitnessWork => ({
  uri,
  date: 300,
  lines: Array.from({ length: lines }, (_, i) => ({ line: i + 1, text: 'قال أبو عثمان الجاحظ في كتاب الحيوان', page: null, ms: null })),
});

describe('witness index positions', () => {
  it('the default bound is the largest Uint32 offset', () => {
    expect(MAX_KEY_POSITIONS).to.equal(2 ** 32 - 1);
  });

  it('works within the bound are laid out; the work that would pass it stops the build in one line', () => {
    const b = new WitnessLayoutBuilder(() => {}, 400);
    b.add(work('A', 5));
    const layout = b.finish();
    expect(layout.lineStart[layout.lineStart.length - 1]).to.be.within(100, 400);
    expect(() => b.add(work('B', 20))).to.throw(
      RangeError,
      /^witness index text would pass 400 key positions \(32-bit offsets\) — index fewer works per index$/,
    );
  });
});
