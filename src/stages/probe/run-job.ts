/**
 * One probe job (a model × a dataset): every probe text's continuation and, where the server gives them, its
 * log-probabilities, appended to the job's JSONL in text order. Resumable: texts already in the file are kept and
 * skipped (a partial last line from a crash is cut off first); `--force` starts the file again.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { clusterSpecOf } from '../../datasets/sample';
import { JsonlAppender, readJsonlAll, recoverJsonl, writeJsonAtomic } from '../../io/jsonl';
import { loadSamples } from '../export/export';
import { throwIfAborted, type StageHooks } from '../shared/types';
import type { ProbeClient } from './client';
import { likelihoodScore } from './likelihood';
import type { ProbeOptions } from './options';
import { continuationScore, continuationTokens } from './score';
import type { ProbeJob, ProbeJobResult, ProbeRecord, ProbeUnit } from './types';
import { probeUnits } from './units';

/** `<dataset>.meta.json` beside the job's JSONL: what memorisation.json says besides the records. */
export interface ProbeJobMeta {
  units: number;
  too_short: number;
  likelihood_skipped: string | null;
}

export function metaFile(output: string): string {
  return output.replace(/\.jsonl$/, '.meta.json');
}

/** The skip reason an earlier run of the job recorded, when the file it left is being resumed. */
function previousSkip(output: string, records: number): string | null {
  if (records === 0 || !existsSync(metaFile(output))) return null;
  return (JSON.parse(readFileSync(metaFile(output), 'utf8')) as Partial<ProbeJobMeta>).likelihood_skipped ?? null;
}

/** Records between two fsyncs of the job's file (a crash loses at most these, redone on resume). */
const CHECKPOINT_EVERY = 16;

const key = (r: Pick<ProbeRecord, 'kind' | 'unit_id'>) => `${r.kind}\0${r.unit_id}`;

export async function runProbeJob(
  o: ProbeOptions,
  job: ProbeJob,
  client: ProbeClient,
  hooks: StageHooks = {},
  force = false,
): Promise<ProbeJobResult> {
  const loaded = await loadSamples(o.config, job.dataset, { limit: o.cli.limit, sample: o.cli.sample }, false);
  const { units, tooShort } = probeUnits(job.dataset, loaded.samples, {
    windowLines: o.probe.window_lines,
    clusters: clusterSpecOf(o.config),
    shuffleSeed: o.probe.shuffle_seed,
    control: job.control,
  });
  if (force) rmSync(job.output, { force: true });
  const recovered = recoverJsonl(job.output);
  const done = new Set((recovered.records ? await readJsonlAll<ProbeRecord>(job.output) : []).map(key));
  const todo = units.filter((u) => !done.has(key(u)));
  const out = new JsonlAppender(job.output, recovered.records);
  let skip: string | null = o.probe.likelihood ? previousSkip(job.output, recovered.records) : 'probe.likelihood is false';
  try {
    let n = units.length - todo.length;
    hooks.onProgress?.(n, units.length, 'probe');
    for (const unit of todo) {
      throwIfAborted(hooks.signal);
      const r = await probeOne(o, job, client, unit, skip, hooks.signal);
      skip = r.skip;
      out.write(r.record);
      if (++n % CHECKPOINT_EVERY === 0) out.checkpoint();
      hooks.onProgress?.(n, units.length, 'probe');
    }
  } finally {
    out.close();
  }
  const meta: ProbeJobMeta = { units: units.length, too_short: tooShort, likelihood_skipped: skip };
  writeJsonAtomic(metaFile(job.output), meta);
  return { job, units: units.length, resumed: units.length - todo.length, likelihoodSkipped: skip };
}

async function probeOne(
  o: ProbeOptions,
  job: ProbeJob,
  client: ProbeClient,
  unit: ProbeUnit,
  skip: string | null,
  signal: AbortSignal | undefined,
): Promise<{ record: ProbeRecord; skip: string | null }> {
  const tokens = continuationTokens(unit.rest, o.probe.max_tokens, client.countTokens?.bind(client));
  const c = await client.continueText(unit.prompt, tokens, signal);
  const s = continuationScore(unit.rest, c.text, o.probe.verbatim_cer);
  let likelihood = null;
  if (!skip) {
    const l = await client.likelihood(unit.text, signal);
    if ('skip' in l) skip = l.skip;
    else likelihood = likelihoodScore(l.tokens, o.probe.min_k, l.exact);
  }
  const { dataset, kind, unit_id, sample_ids, cluster } = unit;
  const record: ProbeRecord = {
    ...{ dataset, model: job.model, kind, unit_id, sample_ids, cluster },
    ...{ rest_chars: s.rest_chars, continuation: s.continuation, edits: s.edits, cer: s.cer, verbatim: s.verbatim, likelihood },
    ...{ prompt_tokens: c.promptTokens, completion_tokens: c.completionTokens },
  };
  return { record, skip };
}
