export * from './build';
export * from './context-search';
export * from './files';
export * from './hits';
export * from './key';
export * from './retriever';
export * from './search';
export * from './works';
