/** OpenITI corpus builder (pure core): metadata, parser, sampler, corpus.jsonl I/O. */
export * from './arabic-filter';
export * from './build-corpus';
export * from './build-options';
export * from './build-summary';
export { codePointLength, isArabicLetter, letterCountsByScript, type LetterCounts } from './char-classes';
export { cleanContentLine } from './clean-line';
export * from './corpus-file';
export * from './digest-set';
export * from './line-parser';
export * from './metadata';
export * from './parse-errors';
export * from './read-lines';
export * from './sampling';
export * from './scan-eligible';
export * from './source-works';
export { isWorkExcluded } from './work-exclusion';
