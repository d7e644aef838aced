/** `phase5 probe`'s options from the config and CLI: the probe settings, and one job per (arm model × dataset) with its file. */
import path from 'node:path';
import type { Config } from '../../config/schema';
import { ProbeSchema, type ProbeConfig } from '../../config/schema/probe';
import { selectedDatasets } from '../export/export';
import { checkedResultDirs } from '../shared/results-dir';
import { studyPlan } from '../study/plan';
import { UserInputError, type RunOptions } from '../shared/types';
import type { ProbeJob } from './types';

export interface ProbeOptions {
  config: Config;
  cli: RunOptions;
  probe: ProbeConfig;
  /** `<results>/probe/`: one folder per model, one JSONL per dataset. */
  probeDir: string;
  /** `<results>/study/memorisation.json`. */
  memorisationFile: string;
  /** Each LLM arm model once (first arm's effective config), in arm order. */
  models: { model: string; config: Config }[];
  jobs: ProbeJob[];
}

/** A model name as a folder name: characters other than letters, digits, `.`, `_` and `-` become `_`. */
export function modelFolder(model: string): string {
  return model.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function probeFile(probeDir: string, model: string, dataset: string): string {
  return path.join(probeDir, modelFolder(model), `${dataset}.jsonl`);
}

export function optionsFrom(config: Config, cli: RunOptions): ProbeOptions {
  const probe = config.probe ?? ProbeSchema.parse({});
  if (probe.control && !config.datasets[probe.control])
    throw new UserInputError(
      `probe.control: "${probe.control}" is not a dataset of the config (datasets: ${Object.keys(config.datasets).join(', ') || 'none'})`,
    );
  const models = new Map<string, Config>();
  for (const arm of studyPlan(config, cli).arms) if (!arm.corrector && !models.has(arm.model)) models.set(arm.model, arm.config);
  if (models.size === 0) throw new UserInputError('probe: the study has no LLM arm to probe (every arm is a non-LLM corrector)');
  const datasets = selectedDatasets(config, cli).filter((d) => d !== probe.control);
  const root = checkedResultDirs(config).root;
  const probeDir = path.join(root, 'probe');
  const jobs: ProbeJob[] = [];
  for (const model of models.keys())
    for (const dataset of probe.control ? [...datasets, probe.control] : datasets)
      jobs.push({ model, dataset, control: dataset === probe.control, output: probeFile(probeDir, model, dataset) });
  return {
    config,
    cli,
    probe,
    probeDir,
    memorisationFile: path.join(root, 'study', 'memorisation.json'),
    models: [...models].map(([model, c]) => ({ model, config: c })),
    jobs,
  };
}
