/**
 * What `phase5 probe` will ask, for `phase5 plan`: per job its probe texts, requests (one continuation per text,
 * plus one likelihood request where `probe.likelihood` is on) and tokens — the prompts' characters (an estimate:
 * the plan has no tokenizer for raw text) and the continuation budget (./score.ts without a token count).
 */
import { clusterSpecOf } from '../../datasets/sample';
import { loadSamples } from '../export/export';
import type { ProbeOptions } from './options';
import { continuationTokens } from './score';
import { probeUnits } from './units';

export interface ProbeJobPlan {
  model: string;
  dataset: string;
  texts: number;
  requests: number;
  /** Characters of every prompt sent (continuation prompts and the likelihood texts). */
  prompt_chars: number;
  max_completion_tokens: number;
}

export async function probePlan(o: ProbeOptions): Promise<ProbeJobPlan[]> {
  const out: ProbeJobPlan[] = [];
  for (const job of o.jobs) {
    const loaded = await loadSamples(o.config, job.dataset, { limit: o.cli.limit, sample: o.cli.sample }, false);
    const { units } = probeUnits(job.dataset, loaded.samples, {
      windowLines: o.probe.window_lines,
      clusters: clusterSpecOf(o.config),
      shuffleSeed: o.probe.shuffle_seed,
      control: job.control,
    });
    const chars = (s: string) => [...s].length;
    out.push({
      model: job.model,
      dataset: job.dataset,
      texts: units.length,
      requests: units.length * (o.probe.likelihood ? 2 : 1),
      prompt_chars: units.reduce((n, u) => n + chars(u.prompt) + (o.probe.likelihood ? chars(u.text) : 0), 0),
      max_completion_tokens: units.reduce((n, u) => n + continuationTokens(u.rest, o.probe.max_tokens) + (o.probe.likelihood ? 1 : 0), 0),
    });
  }
  return out;
}
