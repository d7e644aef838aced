/** The sample_ids an arm's run already has a record for (failed ones too, unless they are to be retried). */
import { existsSync } from 'node:fs';
import { readJsonl } from '../../io/jsonl';

export async function doneIds(output: string, retryFailed: boolean): Promise<Set<string>> {
  const ids = new Set<string>();
  if (!existsSync(output)) return ids;
  for await (const { value } of readJsonl<{ sample_id?: unknown; error?: unknown }>(output)) {
    if (typeof value.sample_id !== 'string') continue;
    const failed = value.error !== null && value.error !== undefined && value.error !== '';
    if (!(failed && retryFailed)) ids.add(value.sample_id);
  }
  return ids;
}
