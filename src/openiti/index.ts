/** OpenITI corpus builder (pure core): metadata, parser, sampler, corpus.jsonl I/O. */
export * from './parse';
export * from './metadata';
export * from './sampling';
export * from './corpus';
