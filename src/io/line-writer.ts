/**
 * Text to a file through asynchronous writes of about 1 MB each. A synchronous write blocks the event loop for as
 * long as the kernel holds it (a slow disk, or dirty pages being flushed while gigabytes are written), and an
 * activity whose event loop is blocked past its heartbeat timeout is taken for dead; these writes let the loop run.
 */
import { mkdirSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export class LineWriter {
  private pending: string[] = [];
  private pendingChars = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly flushChars: number,
  ) {}

  /** Open `file` for writing (`'w'` truncates, `'a'` appends), creating its folder. */
  static async open(file: string, flags: 'w' | 'a' = 'w', flushChars = 1 << 20): Promise<LineWriter> {
    mkdirSync(path.dirname(file), { recursive: true });
    return new LineWriter(await open(file, flags), flushChars);
  }

  /** Append `text` (the caller adds the newline); written once about `flushChars` characters are waiting. */
  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= this.flushChars) await this.flush();
  }

  /** Append bytes as they are, after what is waiting. */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.flush();
    await this.handle.write(bytes);
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    await this.handle.write(text);
  }

  /** Write what is waiting, fsync when `sync` (the file survives the machine crashing), and close. */
  async close(options: { sync?: boolean } = {}): Promise<void> {
    try {
      await this.flush();
      if (options.sync) await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }
}
