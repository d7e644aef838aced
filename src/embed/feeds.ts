/**
 * The numeric edges of an embedding run, kept pure so the session worker and the tests share them:
 * padded token ids → ONNX feeds, and the encoder's hidden states → pooled (optionally L2-normalised)
 * sentence vectors.
 */
import * as ort from 'onnxruntime-node';
import type { Pooling } from './presets';

export type IntType = 'int64' | 'int32';

/** Inputs this embedder can feed; any other declared input is an error at load time. */
export const SUPPORTED_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

/**
 * ONNX feeds for one padded batch (`ids` and `mask` are n × L, row-major): input_ids always,
 * attention_mask and token_type_ids (zeros) only when the model declares them.
 */
export function buildFeeds(
  ids: Int32Array,
  mask: Uint8Array,
  n: number,
  L: number,
  inputNames: readonly string[],
  intType: IntType,
): Record<string, ort.Tensor> {
  const size = n * L;
  const make = (fill: (i: number) => number): ort.Tensor => {
    if (intType === 'int32') {
      const a = new Int32Array(size);
      for (let i = 0; i < size; i++) a[i] = fill(i);
      return new ort.Tensor('int32', a, [n, L]);
    }
    // Write the low 32 bits through an Int32 view: values are small and non-negative, and this avoids a
    // BigInt per token (little-endian, as on every platform onnxruntime-node ships for).
    const a = new BigInt64Array(size);
    const a32 = new Int32Array(a.buffer);
    for (let i = 0; i < size; i++) a32[2 * i] = fill(i);
    return new ort.Tensor('int64', a, [n, L]);
  };
  const feeds: Record<string, ort.Tensor> = { input_ids: make((i) => ids[i]) };
  if (inputNames.includes('attention_mask')) feeds.attention_mask = make((i) => mask[i]);
  if (inputNames.includes('token_type_ids')) feeds.token_type_ids = make(() => 0);
  return feeds;
}

/**
 * Sentence vectors from an encoder output: rank 3 ([n, L, d] token states) is pooled over the unmasked
 * tokens (mean) or takes the first token (cls); rank 2 ([n, d]) is already pooled. Returns n × d.
 */
export function poolHidden(
  h: Float32Array,
  n: number,
  L: number,
  mask: Uint8Array,
  pooling: Pooling,
  normalize: boolean,
  rank: number,
): Float32Array {
  if (rank === 2) return normalize ? normalizeRows(h.slice(), n) : h.slice();
  const d = h.length / (n * L);
  const res = new Float32Array(n * d);
  for (let r = 0; r < n; r++) {
    const dst = r * d;
    if (pooling === 'cls') {
      res.set(h.subarray(r * L * d, r * L * d + d), dst);
      continue;
    }
    let count = 0;
    for (let t = 0; t < L; t++) {
      if (!mask[r * L + t]) continue;
      count++;
      const src = (r * L + t) * d;
      for (let j = 0; j < d; j++) res[dst + j] += h[src + j];
    }
    const inv = 1 / Math.max(count, 1);
    for (let j = 0; j < d; j++) res[dst + j] *= inv;
  }
  return normalize ? normalizeRows(res, n) : res;
}

/** L2-normalise each row in place (zero rows stay zero). */
export function normalizeRows(m: Float32Array, rows: number): Float32Array {
  const d = m.length / rows;
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = r * d; j < (r + 1) * d; j++) s += m[j] * m[j];
    if (s === 0) continue;
    const inv = 1 / Math.sqrt(s);
    for (let j = r * d; j < (r + 1) * d; j++) m[j] *= inv;
  }
  return m;
}
