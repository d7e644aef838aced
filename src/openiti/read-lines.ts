/** Streaming a UTF-8 text file line by line (1 MB chunks, strict UTF-8), as strings, ranges or bytes. */
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { NotUtf8Error } from './parse-errors';

const CHUNK = 1 << 20;

/**
 * Read buffers of finished reads, for the next file. A build reads hundreds of files in a row, and a fresh
 * 1 MB buffer each is memory outside V8's heap whose growth makes V8 run a full collection every few
 * files (measured with bench/parse-openiti.ts: ~100 full collections per pass over the slice's 594
 * files, half the CPU time of reading them). Each read owns its buffer while it runs, so reads that
 * overlap never share one; the bytes handed to a callback are valid only during the call, as before.
 */
const spareBuffers: Buffer[] = [];
const MAX_SPARE_BUFFERS = 4;

/**
 * Read a UTF-8 text file line by line in 1 MB chunks (memory stays flat), strictly: invalid UTF-8
 * throws NotUtf8Error. Each chunk is cut after its last newline byte (a newline never sits inside a
 * multi-byte sequence), validated with the native `isUtf8` and decoded natively — about twice as fast
 * as a fatal TextDecoder. A leading BOM is dropped. `onLine` is synchronous for speed; returns bytes read.
 */
export async function forEachLine(file: string, onLine: (line: string) => void): Promise<number> {
  return forEachLineRange(file, (text, start, end) => onLine(text.slice(start, end)));
}

/**
 * forEachLine without a string per line: `onLine(text, start, end)` gets each line as a range of the
 * decoded chunk `text`, line break and a trailing \r excluded, so text[end] is \r, \n or the end of the
 * chunk (for OpenITILineParser.pushRange).
 */
export async function forEachLineRange(file: string, onLine: (text: string, start: number, end: number) => void): Promise<number> {
  return forEachChunk(file, (bytes, first) => {
    const text = bytes.toString('utf8');
    let start = first && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) !== -1) {
      onLine(text, start, nl > start && text.charCodeAt(nl - 1) === 0x0d ? nl - 1 : nl);
      start = nl + 1;
    }
    if (start < text.length) onLine(text, start, text.endsWith('\r') ? text.length - 1 : text.length); // last line without newline (eof only)
  });
}

/**
 * forEachLine without decoding: `onLine(bytes, start, end)` gets each line as UTF-8 bytes of the chunk
 * (validated; line break and a trailing \r excluded, so bytes[end] is \r, \n or past the end). For
 * OpenITILineParser.pushBytes, which decodes only the lines a caller keeps.
 */
export async function forEachLineBytes(file: string, onLine: (bytes: Buffer, start: number, end: number) => void): Promise<number> {
  return forEachChunk(file, (bytes, first) => {
    let start = first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // BOM
    let nl: number;
    while ((nl = bytes.indexOf(0x0a, start)) !== -1) {
      onLine(bytes, start, nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl);
      start = nl + 1;
    }
    if (start < bytes.length) onLine(bytes, start, bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length); // last line without newline (eof only)
  });
}

/** The reading behind forEachLine*: `onChunk` gets validated chunks that end after a newline (or at eof). */
async function forEachChunk(file: string, onChunk: (bytes: Buffer, first: boolean) => void): Promise<number> {
  const fh = await open(file, 'r');
  let buf = spareBuffers.pop() ?? Buffer.allocUnsafe(CHUNK);
  let carry = 0; // bytes of an unfinished line kept at the start of buf
  let pos = 0; // file offset of the next read
  let first = true;
  try {
    for (;;) {
      if (carry === buf.length) {
        // one line longer than the buffer: grow it
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos);
      const end = carry + bytesRead;
      const eof = bytesRead === 0;
      const cut = eof ? end : buf.lastIndexOf(0x0a, end - 1) + 1;
      if (cut > 0) {
        const bytes = buf.subarray(0, cut);
        if (!isUtf8(bytes)) throw new NotUtf8Error(file, pos - carry + firstInvalidUtf8(bytes));
        onChunk(bytes, first);
        first = false;
        buf.copy(buf, 0, cut, end);
        carry = end - cut;
      } else {
        carry = end;
      }
      pos += bytesRead;
      if (eof) break;
    }
    return pos;
  } finally {
    if (buf.length === CHUNK && spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buf); // a grown one goes
    await fh.close();
  }
}

/** Offset of the first byte that breaks UTF-8 (for the error message; only runs on bad files). */
function firstInvalidUtf8(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  const bad = text.indexOf('\ufffd');
  return bad === -1 ? 0 : Buffer.byteLength(text.slice(0, bad), 'utf8');
}
