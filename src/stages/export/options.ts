/** The export stage's options from the config and the CLI, and the options of one shared export of a study. */
import type { Config } from '../../config/schema';
import type { ExportGroup } from '../study/types';
import { studyPlan, type StudyPlan } from '../study/plan';
import { UserInputError, type RunOptions } from '../shared/types';
import type { ExportOptions } from './types';
import { selectedDatasets } from './datasets';

export function optionsFrom(config: Config, cli: RunOptions, force = false, plan: StudyPlan = studyPlan(config, cli)): ExportOptions {
  return {
    config,
    paths: plan.paths,
    datasets: selectedDatasets(config, cli),
    limit: cli.limit,
    ...(cli.sample ? { sample: cli.sample } : {}),
    force,
    groups: plan.exports,
    arms: plan.declared,
  };
}

/** The options that make one shared export: the group's effective config (its retrieval overrides) and corpus. */
export function groupOptions(options: ExportOptions, group: string | undefined): ExportOptions & { mode: ExportGroup['mode'] } {
  if (group === undefined) return { ...options, mode: 'dense' };
  const g = options.groups?.find((x) => x.fingerprint === group);
  if (!g)
    throw new UserInputError(
      `export ${group}: no study arm has this retrieval any more — the config changed since the plan; rerun \`phase5 export\``,
    );
  return { ...options, config: g.config, paths: g.paths, mode: g.mode };
}
