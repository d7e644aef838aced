/**
 * Building an index in two resumable steps:
 *
 * 1. `embedCorpusToVectors` embeds corpus.jsonl in order and appends float32 rows to a partial file,
 *    fsync'd after every chunk. The file is the durable cursor (rows = size / (4·dims)), so a killed build
 *    resumes at the first row not on disk; `onBatch({rowsEmbedded})` is where an activity heartbeats.
 *    A sidecar `<vectors>.meta.json` records the model and corpus the rows belong to, so a partial file
 *    from another model or corpus is never resumed.
 * 2. `buildIndexFromVectors` turns the finished rows into the index file, the ordered sentence list and
 *    the manifest (written last: a manifest means a complete index).
 *
 * A fanned-out build (src/stages/build/shards.ts) runs step 1 once per row range (`range`), each into its own
 * part file, and step 2 over the part files in row order.
 */
export { embedCorpusToVectors, type BatchReport, type EmbedCorpusOptions, type EmbedCorpusResult, type RowRange } from './embed-corpus';
export { buildIndexFromVectors, removeIndex, type BuildIndexOptions } from './build-index';
