/**
 * `<results>/study/memorisation.json` (docs/memorisation.md) from the probe's files: per dataset × model the
 * continuation test, its controls (shuffled lines; the unpublished dataset), the likelihood test against the
 * control and whether the book scores above its control. The unpublished dataset's own figures go under `controls`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { canonicalDescription } from '../../src/text/canonical';
import { readJsonlAll, writeJsonAtomic } from '../../src/io/jsonl';
import { metaFile, type ProbeJobMeta } from '../../src/stages/probe/run-job';
import type { ProbeOptions } from '../../src/stages/probe/options';
import type { ProbeJob, ProbeRecord } from '../../src/stages/probe/types';
import { continuationFigures, type Resampling } from './figures';
import { likelihoodFigures, versusControl, type LikelihoodFigures, type VersusControl } from './likelihood';
import { MARGIN, verdict } from './verdict';

interface JobData {
  job: ProbeJob;
  records: ProbeRecord[];
  meta: ProbeJobMeta | null;
}

async function jobData(job: ProbeJob): Promise<JobData | null> {
  if (!existsSync(job.output)) return null;
  const meta = existsSync(metaFile(job.output)) ? (JSON.parse(readFileSync(metaFile(job.output), 'utf8')) as ProbeJobMeta) : null;
  return { job, records: await readJsonlAll<ProbeRecord>(job.output), meta };
}

/** The likelihood test of a book against its control, or why it was left out. */
export type LikelihoodEntry =
  { skipped: string } | (LikelihoodFigures & { control: LikelihoodFigures | null; versus_control: VersusControl });

function datasetEntry(d: JobData, control: JobData | undefined, rs: Resampling) {
  const of = (kind: ProbeRecord['kind'], from = d) => from.records.filter((r) => r.kind === kind);
  const continuation = continuationFigures(of('book'), rs);
  const shuffled = continuationFigures(of('shuffled'), rs);
  const unpublished = control ? continuationFigures(of('control', control), rs) : null;
  const v = verdict(continuation, [
    { name: 'shuffled', figures: shuffled },
    ...(unpublished ? [{ name: control!.job.dataset, figures: unpublished }] : []),
  ]);
  const floor = v.floor === 'shuffled' || !unpublished ? shuffled : unpublished;
  const lControl = control ? of('control', control) : of('shuffled');
  const book = likelihoodFigures(of('book'));
  const likelihood: LikelihoodEntry = book
    ? {
        ...book,
        control: likelihoodFigures(lControl),
        versus_control: versusControl(of('book'), lControl, control ? control.job.dataset : 'shuffled'),
      }
    : { skipped: d.meta?.likelihood_skipped ?? 'no log-probabilities recorded' };
  return {
    continuation,
    control: {
      source: v.floor,
      verbatim_share: floor.verbatim_share,
      verbatim_share_ci95: floor.verbatim_share_ci95,
      cer: floor.cer,
      shuffled,
      unpublished,
    },
    likelihood,
    above_control: v.above_control,
    rule: v.rule,
    too_short: d.meta?.too_short ?? 0,
  };
}

export type MemorisationEntry = ReturnType<typeof datasetEntry>;

export async function buildMemorisation(o: ProbeOptions) {
  const rs: Resampling = {
    iterations: o.config.analysis.bootstrap_iterations,
    seed: o.config.analysis.bootstrap_seed,
    minClusters: o.config.analysis.min_clusters,
  };
  const data = (await Promise.all(o.jobs.map(jobData))).filter((d): d is JobData => d !== null);
  const datasets: Record<string, Record<string, MemorisationEntry>> = {};
  const controls: Record<string, Record<string, ReturnType<typeof continuationFigures>>> = {};
  for (const d of data) {
    if (d.job.control) {
      (controls[d.job.dataset] ??= {})[d.job.model] = continuationFigures(d.records, rs);
      continue;
    }
    const control = data.find((c) => c.job.control && c.job.model === d.job.model);
    (datasets[d.job.dataset] ??= {})[d.job.model] = datasetEntry(d, control, rs);
  }
  return {
    method: {
      text: canonicalDescription(true),
      profile: 'none (canonical form only)',
      metric: 'CER of the continuation, cut to the length of the rest, against the rest',
      verbatim_cer: o.probe.verbatim_cer,
      window_lines: o.probe.window_lines,
      min_k: o.probe.min_k,
      shuffle_seed: o.probe.shuffle_seed,
      estimate_margin: MARGIN,
      bootstrap: {
        iterations: rs.iterations,
        seed: rs.seed,
        min_clusters: rs.minClusters,
        clusters: 'the analysis clusters (analysis.block_lines, datasets.<key>.page_pattern)',
      },
    },
    control_dataset: o.probe.control ?? null,
    datasets,
    controls,
  };
}

export type Memorisation = Awaited<ReturnType<typeof buildMemorisation>>;

export async function writeMemorisation(o: ProbeOptions): Promise<{ file: string; datasets: number; aboveControl: number }> {
  const doc = await buildMemorisation(o);
  writeJsonAtomic(o.memorisationFile, doc);
  const entries = Object.values(doc.datasets).flatMap((m) => Object.values(m));
  return {
    file: o.memorisationFile,
    datasets: Object.keys(doc.datasets).length,
    aboveControl: entries.filter((e) => e.above_control).length,
  };
}
