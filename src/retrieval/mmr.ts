/**
 * Maximal Marginal Relevance (docs/retrieval.md#retriever-options, λ = 0.5): pick k items one at a time, each maximising
 * λ·relevance − (1 − λ)·(highest cosine to an item already picked), so near-duplicate hits give way to
 * different sentences. λ = 1 is plain relevance order; λ = 0 is maximal diversity.
 */

/**
 * Indices (into `relevance`) of the selected items, in selection order. `vectors` holds one L2-normalised
 * row of `dims` floats per item. Ties keep the earlier item (input order), so the result is deterministic.
 */
export function mmrSelect(relevance: readonly number[], vectors: Float32Array, dims: number, lambda: number, k: number): number[] {
  const n = relevance.length;
  if (!(lambda >= 0 && lambda <= 1)) throw new RangeError(`MMR lambda must be in [0, 1], got ${lambda}`);
  if (vectors.length !== n * dims) throw new Error(`MMR: ${n} items but ${vectors.length / dims} vectors`);
  const picked: number[] = [];
  const maxSim = new Float64Array(n).fill(-Infinity);
  const used = new Uint8Array(n);
  const take = Math.min(k, n);
  while (picked.length < take) {
    let best = -1;
    let bestVal = -Infinity;
    for (let i = 0; i < n; i++) {
      if (used[i]) continue;
      const penalty = picked.length === 0 ? 0 : maxSim[i];
      const v = lambda * relevance[i] - (1 - lambda) * penalty;
      if (v > bestVal) {
        bestVal = v;
        best = i;
      }
    }
    used[best] = 1;
    picked.push(best);
    // Update each remaining item's similarity to the picked set with the new member.
    const b = best * dims;
    for (let i = 0; i < n; i++) {
      if (used[i]) continue;
      let dot = 0;
      const a = i * dims;
      for (let j = 0; j < dims; j++) dot += vectors[a + j] * vectors[b + j];
      if (dot > maxSim[i]) maxSim[i] = dot;
    }
  }
  return picked;
}
