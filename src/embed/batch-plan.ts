/**
 * Where to cut length-sorted texts into session batches. A batch is padded to its longest text, and an
 * encoder's cost grows with the padded tokens it runs, so cutting fixed runs of `batchSize` wastes work
 * where lengths fall steeply (one 108-token sentence padding 31 sentences of 34 tokens). The cut points
 * here minimise padded tokens plus a fixed cost per session run, with at most `maxRows` texts a batch.
 * Vectors do not depend on which texts share a batch (test/embed/embedder.test.ts), only the work does.
 */

/**
 * What one more session run costs, in padded tokens: the call, the message to the session's worker and
 * the operators' set-up. Measured on multilingual-e5-small over 1,000 OpenITI sentences in chunks of 200
 * (raw sessions, 2 × 1 thread): 8, 16 and 32 give the same speed within noise, 17 % above fixed runs of 32;
 * 0 cuts so often that the runs' overhead eats most of the gain, 64 keeps more padding.
 */
export const RUN_COST_TOKENS = 16;

/**
 * End offsets of the batches for `lengths`, sorted longest first: batch b holds [ends[b-1] ?? 0, ends[b]).
 * Dynamic programming over the sorted list (O(n × maxRows)); among plans of equal cost it keeps the longest
 * first batches, so texts of equal length are cut into runs of `maxRows` as before.
 */
export function batchEnds(lengths: readonly number[], maxRows: number, runCost = RUN_COST_TOKENS): number[] {
  const n = lengths.length;
  const best = new Float64Array(n + 1); // best[i]: least cost of the texts from i on
  const cut = new Int32Array(n + 1); // cut[i]: where the batch starting at i ends in that plan
  for (let i = n - 1; i >= 0; i--) {
    let min = Infinity;
    const last = Math.min(n, i + maxRows);
    for (let j = i + 1; j <= last; j++) {
      const cost = (j - i) * lengths[i] + runCost + best[j];
      if (cost <= min) {
        min = cost;
        cut[i] = j;
      }
    }
    best[i] = min;
  }
  const ends: number[] = [];
  for (let i = 0; i < n; i = cut[i]) ends.push(cut[i]);
  return ends;
}
