/**
 * Batch output files read line by line, in any order and any number of parts: `{id, custom_id, response:
 * {status_code, request_id, body}, error}` (https://platform.openai.com/docs/api-reference/batch/request-output;
 * vllm/entrypoints/openai/run_batch.py, BatchRequestOutput). Each line is matched by custom_id against the
 * requests the batch set issued; what cannot be used is counted in the tally, the rest kept per run.
 */
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { UserInputError } from '../shared/types';
import type { IssuedRequest } from './batch-index';
import type { BatchTally } from './batch-tally';
import type { UnansweredLines } from './batch-share';
import { parseCustomId } from './custom-id';

interface OutputLine {
  custom_id?: unknown;
  response?: { status_code?: unknown; body?: unknown } | null;
  error?: { code?: unknown; message?: unknown } | null;
}

/** One answer to keep: the request it answers and the chat completion body. */
export interface BatchAnswer {
  request: IssuedRequest;
  body: unknown;
  where: string;
}

/** A failed line's reason: the error's code, else the HTTP status. */
function failureOf(v: OutputLine): string | null {
  if (v.error) return typeof v.error.code === 'string' ? v.error.code : 'error';
  const status = v.response?.status_code;
  if (status !== 200) return `HTTP ${String(status)}`;
  return null;
}

/** Run key → sample_id → answer, from every output file; `seen`: every custom_id answered (well or not). */
export async function readAnswers(
  files: readonly string[],
  issued: Map<string, IssuedRequest>,
  study: string,
  tally: BatchTally,
  unanswered: UnansweredLines,
): Promise<{ byRun: Map<string, Map<string, BatchAnswer>>; seen: Set<string> }> {
  const seen = new Set<string>();
  const byRun = new Map<string, Map<string, BatchAnswer>>();
  for (const file of files) {
    if (!existsSync(file)) throw new UserInputError(`batch output not found: ${file}`);
    const rl = readline.createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    let n = 0;
    for await (const text of rl) {
      n++;
      if (!text.trim()) continue;
      const where = `${path.basename(file)}:${n}`;
      let v: OutputLine;
      try {
        v = JSON.parse(text) as OutputLine;
      } catch {
        tally.add('unreadable', where);
        continue;
      }
      const id = typeof v?.custom_id === 'string' ? v.custom_id : '';
      const parts = parseCustomId(id);
      if (parts && parts.study !== study) tally.add('otherStudy', where);
      else if (!issued.has(id)) tally.add('unknown', where);
      else if (seen.has(id)) tally.add('duplicate', where);
      else {
        seen.add(id);
        const failure = failureOf(v);
        const request = issued.get(id)!;
        if (failure) {
          tally.add('error', `${where} ${failure}`);
          unanswered.add(request, failure);
        } else {
          const run = byRun.get(request.run) ?? new Map<string, BatchAnswer>();
          byRun.set(request.run, run);
          run.set(request.sampleId, { request, body: v.response?.body, where });
        }
      }
    }
  }
  return { byRun, seen };
}
