/** Generic corpora (JSONL records, folders of .txt/.md) chunked into the corpus.jsonl schema. */
export * from './chunk';
export * from './generic';
