/** `export`: how the export stage shards, batches and checkpoints its retrieval of every OCR line. */
import { z } from 'zod';
import { positiveInt } from './primitives';

export const ExportSchema = z.strictObject({
  /** Records per shard: large datasets fan out into shards that several workers process in parallel. */
  shard_size: positiveInt.default(2000),
  /**
   * Lines retrieved per call (their queries embedded in one length-sorted run, so the sessions' batches pad
   * little); records are still written and checkpointed every `checkpoint_every`.
   */
  query_batch_size: positiveInt.default(512),
  /** Checkpoint (fsync + heartbeat) every N records. */
  checkpoint_every: positiveInt.default(64),
  /** An OCR or gold line longer than this (characters) is skipped and counted in the dataset's problems. */
  max_line_chars: positiveInt.default(20_000),
});
