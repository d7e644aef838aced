import type { StageInput } from '../workflows/types';
export async function inferCondition(_a: { input: StageInput; condition: 'rag' | 'zero_shot' }): Promise<Record<string, unknown>> { throw new Error('wiring'); }
export async function importCorrections(_input: StageInput): Promise<Record<string, unknown>> { throw new Error('wiring'); }
