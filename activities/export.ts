import type { StageInput } from '../workflows/types';
export interface ExportShard { dataset: string; index: number; start: number; end: number }
export interface ExportPlan { datasets: { dataset: string; samples: number; shards: ExportShard[] }[] }
export async function planExport(_input: StageInput): Promise<ExportPlan> { throw new Error('export stage: wiring in progress'); }
export async function exportShard(_a: { input: StageInput; shard: ExportShard }): Promise<{ records: number; fallbacks: number }> { throw new Error('wiring'); }
export async function mergeExport(_a: { input: StageInput; plan: ExportPlan }): Promise<Record<string, unknown>> { throw new Error('wiring'); }
