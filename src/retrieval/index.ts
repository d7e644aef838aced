/** Retriever options (pure core): candidate → rerank, hybrid, MMR, dedup, context windows, budget, citations. */
export * from './config';
export * from './pipeline';
export * from './rerank';
export * from './lexical-index';
export * from './fusion';
export * from './mmr';
export * from './budget';
export * from './neighbours';
export * from './source-lines';
export * from './store';
export * from './text';
export * from './vectors';
