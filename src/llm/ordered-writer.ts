import type { JsonlAppender } from '../io/jsonl';
import type { CorrectionRecord } from './records';

/** Writes records in input order whatever order they finish in; checkpoints every N records or ms. */
export class OrderedWriter {
  private readonly buffer = new Map<number, CorrectionRecord | null>();
  private nextToWrite = 0;
  private sinceCheckpoint = 0;
  private lastCheckpoint = Date.now();
  private lastSync = Date.now();

  constructor(
    private readonly appender: JsonlAppender,
    private readonly count: number,
    private readonly checkpointEvery: number,
    private readonly checkpointMs: number,
    private readonly onWritten: () => void,
  ) {}

  add(i: number, rec: CorrectionRecord | null): void {
    this.buffer.set(i, rec);
    this.flush(false);
  }

  /** Write what is ready; `force` (at the end) skips the gaps left by calls that never ran and always checkpoints. */
  flush(force: boolean): void {
    while (this.buffer.has(this.nextToWrite) || (force && this.nextToWrite < this.count)) {
      const rec = this.buffer.get(this.nextToWrite);
      this.buffer.delete(this.nextToWrite);
      this.nextToWrite++;
      if (!rec) continue; // aborted or never started: not written, so a resume picks it up
      this.appender.write(rec);
      this.sinceCheckpoint++;
      this.onWritten();
    }
    if (
      this.sinceCheckpoint > 0 &&
      (force || this.sinceCheckpoint >= this.checkpointEvery || Date.now() - this.lastCheckpoint >= this.checkpointMs)
    ) {
      // Written at once (a resume after the process dies finds them), fsync'd at most every checkpointMs: an
      // fsync blocks the event loop for milliseconds, so one per line would cap a shard at a few hundred lines/s.
      if (force || Date.now() - this.lastSync >= this.checkpointMs) {
        this.appender.checkpoint();
        this.lastSync = Date.now();
      } else this.appender.flush();
      this.sinceCheckpoint = 0;
      this.lastCheckpoint = Date.now();
    }
  }
}
