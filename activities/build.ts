import type { StageInput } from '../workflows/types';
export async function buildCorpus(_input: StageInput): Promise<Record<string, unknown>> { throw new Error('build stage: wiring in progress'); }
export async function buildIndex(_input: StageInput): Promise<Record<string, unknown>> { throw new Error('build stage: wiring in progress'); }
