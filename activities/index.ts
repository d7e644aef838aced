// Every activity the workers register. Workflows import this module as types only.
export { checkEnvironment } from './doctor';
export { buildCorpus, buildIndex } from './build';
export { planExport, exportShard, mergeExport } from './export';
export { inferCondition, importCorrections } from './infer';
export { analyzeResults } from './analyze';
