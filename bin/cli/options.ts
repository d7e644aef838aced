/**
 * CLI flags → (validated config, run options). Flags that correspond to config keys are merged into the
 * config and the result is validated again, so `--top-k -3` fails exactly like a bad config value.
 */
import { ConfigError, DEFAULT_CONFIG, formatIssues, loadConfig } from '../../src/config/load';
import { ConfigSchema, type Config, type StageName, STAGES } from '../../src/config/schema';
import type { RunOptions } from '../../src/stages/shared/types';
import { allArmNames } from '../../src/stages/study/arm-names';
import { foldAliasedFlags } from './renamed-flags';

export interface GlobalFlags {
  config?: string;
  address?: string;
  namespace?: string;
  resultsDir?: string;
  run?: string;
  verbose?: boolean;
  openitiRoot?: string;
  /** Print result documents as JSON instead of a human summary. */
  json?: boolean;
  /** `human` (default) or `json` (pino's structured lines); env PHASE5_LOG_FORMAT. */
  logFormat?: string;
}

export interface StageFlags {
  limit?: string;
  sample?: string;
  seed?: string;
  datasets?: string[];
  force?: boolean;
  forceStage?: string[];
  noErrorAnalysis?: boolean;
  /** commander's negated form of --no-error-analysis */
  errorAnalysis?: boolean;
  topK?: string;
  minScore?: string;
  maxSentences?: string;
  corpusPath?: string;
  indexPath?: string;
  baselineDir?: string;
  import?: string;
  batchOut?: string;
  batchIn?: string[];
  retryFailed?: boolean;
  /** `phase5 infer --arm NAME`: one study arm (with --import: the arm the file goes to). */
  arm?: string;
  /** `--missing-lines error|ocr` = config analysis.missing_lines. */
  missingLines?: string;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

function num(flag: string, v: string | undefined, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag} expects ${integer ? 'an integer' : 'a number'}, got "${v}"`);
  return n;
}

/** Load the config named by --config and apply flag overrides; validates the merged result. */
export function resolveConfig(global: GlobalFlags, stage: StageFlags = {}): { config: Config; file: string } {
  const { config, file } = loadConfig(global.config ?? DEFAULT_CONFIG);
  const merged: Config = structuredClone(config);
  if (global.address) merged.temporal.address = global.address;
  if (global.namespace) merged.temporal.namespace = global.namespace;
  if (global.resultsDir) merged.paths.results_dir = global.resultsDir;
  if (global.run) merged.run_name = global.run;
  if (global.openitiRoot) merged.data.openiti_root = global.openitiRoot;
  const topK = num('--top-k', stage.topK, true);
  if (topK !== undefined) {
    merged.retrieval.top_k = topK;
    merged.rag.top_k = topK;
  }
  const minScore = num('--min-score', stage.minScore, false);
  if (minScore !== undefined) merged.retrieval.min_score = minScore;
  const maxSentences = num('--max-sentences', stage.maxSentences, true);
  if (maxSentences !== undefined) merged.corpus.max_sentences = maxSentences;
  if (stage.noErrorAnalysis || stage.errorAnalysis === false) merged.analysis.analyze_errors = false;
  if (stage.missingLines !== undefined) (merged.analysis as Record<string, unknown>).missing_lines = stage.missingLines;
  const check = ConfigSchema.safeParse(merged);
  if (!check.success) throw new ConfigError(`${file} (with command-line overrides)`, formatIssues(check.error, merged));
  return { config: check.data, file };
}

/** The CLI options that are not config keys, checked against the config (datasets, arms). */
export function runOptions(given: StageFlags, config: Config): RunOptions {
  const { flags: stage, problem } = foldAliasedFlags(given);
  if (problem) throw new UsageError(problem);
  const limit = num('--limit', stage.limit, true);
  if (limit !== undefined && limit <= 0) throw new UsageError(`--limit must be a positive integer, got ${limit}`);
  const datasets = stage.datasets
    ?.flatMap((d) => d.split(','))
    .map((d) => d.trim())
    .filter(Boolean);
  if (datasets) {
    const unknown = datasets.filter((d) => !(d in config.datasets));
    if (unknown.length) {
      throw new UsageError(
        `unknown dataset${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} — the config declares: ${Object.keys(config.datasets).join(', ') || '(none)'}`,
      );
    }
  }
  const opts: RunOptions = {};
  if (limit !== undefined) opts.limit = limit;
  const sample = pilotOption(stage);
  if (sample && limit !== undefined) throw new UsageError('--sample and --limit exclude each other: a random pilot, or the first n lines');
  if (sample) opts.sample = sample;
  if (datasets?.length) opts.datasets = datasets;
  if (stage.corpusPath) opts.corpusPath = stage.corpusPath;
  if (stage.indexPath) opts.indexPath = stage.indexPath;
  if (stage.baselineDir) opts.baselineDir = stage.baselineDir;
  if (stage.noErrorAnalysis || stage.errorAnalysis === false) opts.noErrorAnalysis = true;
  if (stage.import) opts.importFile = stage.import;
  if (stage.batchOut && stage.batchIn)
    throw new UsageError('--batch-out and --batch-in exclude each other: write the requests, or import the answers');
  if ((stage.batchOut || stage.batchIn) && stage.import) throw new UsageError('--import and --batch-out/--batch-in exclude each other');
  if (stage.batchOut) opts.batchOut = stage.batchOut;
  if (stage.batchIn?.length) opts.batchIn = stage.batchIn;
  if (stage.retryFailed) opts.retryFailed = true;
  if (stage.arm !== undefined) {
    const arms = allArmNames(config);
    if (!arms.includes(stage.arm))
      throw new UsageError(`unknown arm "${stage.arm}" (--arm) — the ${config.study ? 'study has' : 'config runs'}: ${arms.join(', ')}`);
    opts.arm = stage.arm;
  }
  return opts;
}

/** `--sample N --seed S`: both or neither; N a positive integer, S an integer (docs/plan.md#random-pilots). */
export function pilotOption(stage: Pick<StageFlags, 'sample' | 'seed'>): RunOptions['sample'] {
  const lines = num('--sample', stage.sample, true);
  const seed = num('--seed', stage.seed, true);
  if (lines === undefined && seed === undefined) return undefined;
  if (lines === undefined) throw new UsageError('--seed draws a random pilot: give --sample <n> with it');
  if (seed === undefined)
    throw new UsageError('--sample needs --seed <s>: the seed is part of the pilot (the same seed draws the same lines)');
  if (lines <= 0) throw new UsageError(`--sample must be a positive integer, got ${lines}`);
  return { lines, seed };
}

export function forcedStages(stage: StageFlags): StageName[] {
  if (stage.force) return [...STAGES];
  const list = (stage.forceStage ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of list)
    if (!STAGES.includes(s as StageName)) throw new UsageError(`--force-stage: unknown stage "${s}" (stages: ${STAGES.join(', ')})`);
  return list as StageName[];
}
