import type { StageInput } from '../workflows/types';
export async function analyzeResults(_input: StageInput): Promise<Record<string, unknown>> { throw new Error('wiring'); }
